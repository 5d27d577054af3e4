import { randomUUID } from 'node:crypto';
import express, { Router, type ErrorRequestHandler } from 'express';
import { operatorOf, requireBearer, type AdminCredential } from '../../http/secrets';
import { componentLogger } from '../../observability/logger';
import { PurchaseNotFoundError, PurchaseNotSettledError } from '../hand-over';
import type { MessageStore } from '../../messaging/store/store';
import { UndeliveredSms } from '../notify/undelivered';
import { careRoutes } from '../care/routes';
import type { CustomerCare } from '../care/care';
import type { PurchaseStory } from '../care/story';
import { PURCHASE_STATES, SETTLED_STATES, type PurchaseDesk, type PurchaseState } from '../types';

const log = componentLogger('admin');

export const DEFAULT_ADMIN_LIMIT = 50;
export const MAX_ADMIN_LIMIT = 500;
const MAX_REQUEST_KEY = 128;

export interface AdminRouterOptions {
  desk: PurchaseDesk;
  /** Bearer token operators send; undefined = no admin routes at all (404). */
  adminToken: string | readonly AdminCredential[] | undefined;
  /**
   * Where the SMS of a purchase can be looked up (shown with the purchase), and the SMS that
   * never reached the phone (`/admin/sms/undelivered`, resent in bulk); optional.
   */
  notifications?: MessageStore;
  /** Customer care: search, resolve, reconcile again, the audit trail (src/purchases/care). */
  care?: CustomerCare;
  /** A purchase's steps and its payment's, with the service calls' request ids (`GET /:id/story`). */
  story?: (purchaseId: string) => Promise<PurchaseStory>;
  /** How many purchases are in each state (`GET /counts`). */
  counts?: () => Promise<Record<PurchaseState, number>>;
}

function parseLimit(raw: unknown): number | string {
  if (raw === undefined) return DEFAULT_ADMIN_LIMIT;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_ADMIN_LIMIT) {
    return `limit must be a whole number from 1 to ${MAX_ADMIN_LIMIT}`;
  }
  return Number(raw);
}

/** The request key of a resend: the client's (`Idempotency-Key` header or `requestKey` in the body) or a fresh one. */
function requestKeyOf(req: express.Request): string | { error: string } {
  const body = (req.body ?? {}) as { requestKey?: unknown };
  const given = req.get('idempotency-key') ?? body.requestKey;
  if (given === undefined) return `admin-${randomUUID()}`;
  if (typeof given !== 'string' || given.trim() === '' || given.length > MAX_REQUEST_KEY) {
    return { error: `requestKey must be a non-empty string of at most ${MAX_REQUEST_KEY} characters` };
  }
  return `admin-${given.trim()}`;
}

/**
 * `/admin/sms/undelivered` (`?limit=`, oldest first): SMS the subscriber did not get (the
 * provider refused it, or every retry failed) and nobody resent; `POST …/resend` (`{"limit"}`)
 * resends them in that order once the provider is fixed (see ../notify/undelivered.ts).
 */
function undeliveredRoutes(router: Router, undelivered: UndeliveredSms): void {
  const limitOf = (raw: unknown, res: express.Response): number | null => {
    const limit = parseLimit(typeof raw === 'number' ? String(raw) : raw);
    if (typeof limit === 'number') return limit;
    res.status(400).json({ error: 'invalid_limit', message: limit });
    return null;
  };
  router.get('/undelivered', async (req, res) => {
    const limit = limitOf(req.query.limit, res);
    if (limit === null) return;
    const { total, sms } = await undelivered.list(limit);
    res.json({ total, count: sms.length, sms });
  });
  router.post('/undelivered/resend', async (req, res) => {
    const limit = limitOf(((req.body ?? {}) as { limit?: unknown }).limit, res);
    if (limit === null) return;
    const report = await undelivered.resend(limit);
    const actor = operatorOf(res);
    log.warn('admin resent undelivered sms', {
      actor,
      resent: report.resent.length,
      skipped: report.skipped.length,
      failed: report.failed.length,
    });
    const { total } = await undelivered.list(0);
    res.json({ ...report, remaining: total });
  });
}

/**
 * `/admin/purchases` for operators: list by state, show one (with its SMS), re-send its SMS.
 * The gateway masks numbers and tokens in every admin answer unless `?reveal=true` (audited):
 * see ../care/masking.ts.
 * Without `adminToken` the router is empty, so every admin path is a plain 404.
 */
export function createAdminRouter(options: AdminRouterOptions): Router {
  const router = Router();
  const token = options.adminToken;
  // An empty list: no shared token, the gate of `/admin` (src/operators/admin-auth.ts) names the caller.
  if (token === undefined || token === '') return router;
  const { desk, notifications } = options;

  const admin = Router();
  admin.use(requireBearer(token));
  admin.use(express.json({ limit: '16kb' }));
  if (options.care) admin.use(careRoutes(options.care));

  admin.get('/', async (req, res) => {
    const state = req.query.state;
    if (typeof state !== 'string' || !(PURCHASE_STATES as readonly string[]).includes(state)) {
      res.status(400).json({
        error: 'invalid_state',
        message: `state must be one of: ${PURCHASE_STATES.join(', ')}${options.care ? '; or search by msisdn, identifier or reference' : ''}`,
        validStates: PURCHASE_STATES,
      });
      return;
    }
    const limit = parseLimit(req.query.limit);
    if (typeof limit === 'string') {
      res.status(400).json({ error: 'invalid_limit', message: limit });
      return;
    }
    const purchases = await desk.listByState(state as PurchaseState, { limit });
    res.json({ state, count: purchases.length, purchases });
  });

  if (options.counts) {
    const counts = options.counts;
    // Before '/:id': how many purchases are in each state now (the console's home page).
    admin.get('/counts', async (_req, res) => {
      res.json({ byState: await counts() });
    });
  }

  admin.get('/:id', async (req, res) => {
    const purchase = await desk.get(req.params.id);
    if (!purchase) {
      res.status(404).json({ error: 'not_found', message: `no purchase ${req.params.id}` });
      return;
    }
    const sms = notifications ? await notifications.listByPurchase(purchase.id) : undefined;
    const audit = options.care ? await options.care.trail({ purchaseId: purchase.id }) : undefined;
    res.json({ purchase, ...(sms && { sms }), ...(audit && { audit }) });
  });

  const { story } = options;
  if (story)
    admin.get('/:id/story', async (req, res) => {
      const purchase = await desk.get(req.params.id);
      if (!purchase) {
        res.status(404).json({ error: 'not_found', message: `no purchase ${req.params.id}` });
        return;
      }
      res.json({ purchaseId: purchase.id, ...(await story(purchase.id)) });
    });

  admin.post('/:id/resend-sms', async (req, res) => {
    const purchase = await desk.get(req.params.id);
    if (!purchase) {
      res.status(404).json({ error: 'not_found', message: `no purchase ${req.params.id}` });
      return;
    }
    if (!SETTLED_STATES.includes(purchase.state)) {
      res.status(409).json({
        error: 'not_settled',
        message: `purchase is ${purchase.state}: its outcome SMS is sent once it settles`,
        state: purchase.state,
      });
      return;
    }
    if (purchase.tokenMaskedAt) {
      res.status(409).json({
        error: 'token_masked',
        message: `the token was masked at ${purchase.tokenMaskedAt} (TOKEN_RETENTION_DAYS): there is none to resend`,
      });
      return;
    }
    const requestKey = requestKeyOf(req);
    if (typeof requestKey !== 'string') {
      res.status(400).json({ error: 'invalid_request_key', message: requestKey.error });
      return;
    }
    try {
      await desk.resendSms(purchase.id, requestKey);
    } catch (err) {
      // The record may have changed since it was read: answer as if it had been read now.
      if (err instanceof PurchaseNotFoundError) {
        res.status(404).json({ error: 'not_found', message: `no purchase ${purchase.id}` });
        return;
      }
      if (err instanceof PurchaseNotSettledError) {
        res.status(409).json({ error: 'not_settled', message: err.message });
        return;
      }
      throw err;
    }
    if (options.care) {
      // Audited like every operator action on a purchase, before the answer.
      const actor = operatorOf(res);
      await options.care.recordResend(actor, purchase.id, requestKey);
    }
    log.info('admin queued a resend of the outcome sms', { purchaseId: purchase.id, state: purchase.state });
    res.status(202).json({ queued: true, purchaseId: purchase.id, requestKey });
  });

  const errors: ErrorRequestHandler = (
    err: { status?: number; type?: string; message?: string },
    _req,
    res,
    _next,
  ) => {
    // The body parser's and the path decoder's refusals: the client's mistake, named, never a 500.
    const status = typeof err.status === 'number' && err.status >= 400 && err.status < 500 ? err.status : 0;
    if (err.type === 'entity.too.large' || status === 413) {
      res.status(413).json({ error: 'bad_request', message: 'request body is larger than 16kb' });
      return;
    }
    if (err.type === 'charset.unsupported' || err.type === 'encoding.unsupported' || status === 415) {
      res.status(415).json({ error: 'bad_request', message: 'request body must be JSON in UTF-8' });
      return;
    }
    if (err.type === 'entity.parse.failed') {
      res.status(400).json({ error: 'bad_request', message: 'request body must be JSON' });
      return;
    }
    if (status !== 0) {
      res.status(status).json({ error: 'bad_request', message: 'malformed request (path or body)' });
      return;
    }
    log.error('admin request failed', { error: err.message });
    res.status(500).json({ error: 'internal', message: 'the request failed; see the logs' });
  };
  admin.use(errors);

  router.use('/admin/purchases', admin);
  if (notifications) {
    const sms = Router();
    sms.use(requireBearer(token));
    sms.use(express.json({ limit: '16kb' }));
    undeliveredRoutes(sms, new UndeliveredSms(notifications, desk.resendSms));
    sms.use(errors);
    router.use('/admin/sms', sms);
  }
  return router;
}
