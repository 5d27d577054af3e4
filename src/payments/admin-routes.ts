import express, { Router, type Request } from 'express';
import { adminErrors, type ErrorAnswer } from '../http/admin-errors';
import { operatorOf, requireBearer, type AdminCredential } from '../http/secrets';
import { CareInputError } from '../purchases/care/care';
import type { SqlPaymentStore } from './store/sql';
import { REFUND_CARE_STATES } from './store/types';
import { limitOf } from '../purchases/care/care';
import {
  UnmatchedNotFoundError,
  UnmatchedQueryError,
  UnmatchedStateError,
  unmatchedQuery,
  type UnmatchedPayments,
} from './unmatched';
import { UnknownPaymentNotFoundError, type UnknownPayments } from './unknown';

const body = (req: Request) => (req.body ?? {}) as Record<string, unknown>;

/** What a refusal answers: nothing was changed. */
function refusal(err: Error): ErrorAnswer | undefined {
  if (err instanceof UnmatchedQueryError)
    return {
      status: 400,
      body: {
        error: err.field === 'limit' ? 'invalid_limit' : 'invalid_older_than_ms',
        message: err.message,
      },
    };
  if (err instanceof CareInputError)
    return { status: 400, body: { error: 'invalid_request', field: err.field, message: err.message } };
  if (err instanceof UnmatchedNotFoundError || err instanceof UnknownPaymentNotFoundError)
    return { status: 404, body: { error: 'not_found', message: err.message } };
  if (err instanceof UnmatchedStateError)
    return { status: 409, body: { error: err.reason, message: err.message } };
  return undefined;
}

/**
 * `/admin/payments` (bearer ADMIN_TOKEN; numbers masked unless `?reveal=true`, like every admin
 * answer):
 *
 * - `GET /refunds?limit=`: payments whose refund needs a person (refund_failed, needs_attention);
 * - `GET /?receipt=`: the payments a provider's receipt names; `GET /of/:purchaseId`: a
 *   purchase's payment and every notice kept for it (given the store);
 * - `GET /unmatched?limit=&olderThanMs=`: success notices no payment of ours took, received more
 *   than `olderThanMs` ago (default: the longest one may still be matched), newest first:
 *   `{olderThanMs, total, count, notices}` (./unmatched.ts). A bad value is a 400 naming it.
 * - `POST /unmatched/:id/resolve {note}`: close one once its money is dealt with: `{notice}` with
 *   its `resolution {by, at, note}`, audited. 400 a missing, blank or too long note; 404 no such
 *   notice; 409 resolved already (`already_resolved`), not money no payment took
 *   (`not_unmatched_success`) or still young enough to be taken (`still_matchable`).
 * - `GET /unknown?limit=`: payments whose outcome nobody learnt (`unknown`, re-checks over, not
 *   reviewed), newest first: `{total, count, payments}` (./unknown.ts);
 *   `POST /unknown/:id/review {note}`: what a person found at the provider and did, audited; 404
 *   when no such payment waits.
 */
export function paymentAdminRoutes(
  unmatched: UnmatchedPayments,
  credentials: string | readonly AdminCredential[],
  payments?: Pick<SqlPaymentStore, 'getByPurchase' | 'noticesOf' | 'listByStates' | 'listByReceipt'>,
  unknown?: UnknownPayments,
): Router {
  const router = Router();
  const admin = Router();
  admin.use(requireBearer(credentials));

  if (payments) {
    // Read only, for care's console: the refunds that need a person, a receipt's payments, a
    // purchase's payment with every provider notice (callback) kept for it.
    admin.get('/refunds', async (req, res) => {
      const list = await payments.listByStates(REFUND_CARE_STATES, limitOf(req.query.limit, 50, 500));
      res.json({ states: REFUND_CARE_STATES, count: list.length, payments: list });
    });
    admin.get('/', async (req, res) => {
      const receipt = req.query.receipt;
      if (typeof receipt !== 'string' || receipt.trim() === '' || receipt.length > 64)
        throw new CareInputError('receipt', 'receipt must be a non-empty string of at most 64 characters');
      const list = await payments.listByReceipt(receipt.trim());
      res.json({ receipt: receipt.trim(), count: list.length, payments: list });
    });
    admin.get('/of/:purchaseId', async (req, res) => {
      const payment = await payments.getByPurchase(req.params.purchaseId);
      const notices = payment ? await payments.noticesOf(payment.id) : [];
      res.json({ purchaseId: req.params.purchaseId, payment, notices });
    });
  }

  if (unknown) {
    admin.get('/unknown', async (req, res) => {
      res.json(await unknown.list(limitOf(req.query.limit, 50, 500)));
    });
    admin.post('/unknown/:id/review', express.json({ limit: '16kb' }), async (req, res) => {
      res.json({ payment: await unknown.review(req.params.id, body(req).note, operatorOf(res)) });
    });
  }

  admin.get('/unmatched', async (req, res) => {
    const query = unmatchedQuery({ limit: req.query.limit, olderThanMs: req.query.olderThanMs });
    res.json(await unmatched.list(query));
  });

  admin.post('/unmatched/:id/resolve', express.json({ limit: '16kb' }), async (req, res) => {
    res.json({ notice: await unmatched.resolve(req.params.id, body(req).note, operatorOf(res)) });
  });

  admin.use(adminErrors('payments', refusal));
  router.use('/admin/payments', admin);
  return router;
}
