import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { sameSecret } from '../../http/secrets';
import { componentLogger } from '../../observability/logger';
import type { HopEngine } from '../../session/engine';
import { isParseError, type UssdAdapter, type UssdHttpResponse } from './types';
import { AllowList } from '../../http/allow-list';

const log = componentLogger('ussd-router');

/** Last-resort answer when the engine itself failed (it normally answers its own polite END). */
export const FALLBACK_END = 'Sorry, the service is unavailable right now. Please try again later.';

export interface UssdRouterOptions {
  engine: Pick<HopEngine, 'handleHop' | 'endSession'>;
  adapters: UssdAdapter[];
  /** Shared secret expected as `?key=` or header `X-Callback-Key`; unset = open (development only). */
  callbackSecret?: string;
  /**
   * Client IPs allowed to call (empty = any). Matched against `req.ip`: behind a reverse proxy
   * or load balancer set express's `trust proxy` on the app so `req.ip` is the aggregator's
   * address from `X-Forwarded-For`, not the proxy's.
   */
  allowedIps?: string[];
}

/**
 * A rejected callback is logged at most once per reason per 10 s, with how many were
 * suppressed meanwhile: a scanner or a misconfigured aggregator must not flood the logs.
 */
function rejectionLog(): (reason: string, fields: Record<string, unknown>) => void {
  const last = new Map<string, { at: number; suppressed: number }>();
  return (reason, fields) => {
    const now = Date.now();
    const seen = last.get(reason);
    if (seen && now - seen.at < 10_000) {
      seen.suppressed += 1;
      return;
    }
    last.set(reason, { at: now, suppressed: 0 });
    log.warn(`USSD callback rejected: ${reason}`, { ...fields, suppressedSinceLast: seen?.suppressed ?? 0 });
  };
}

function send(res: Response, wire: UssdHttpResponse): void {
  res.status(wire.status).type(wire.contentType);
  if (wire.headers) res.set(wire.headers);
  res.send(wire.body);
}

/**
 * `POST /ussd/<adapter>` (hops) and `POST /ussd/<adapter>/events` (end notifications, when
 * the adapter has them) for every adapter. A malformed request gets 400 naming the problem and
 * changes nothing; an engine failure still answers the aggregator with a polite END.
 */
export function ussdRouter(options: UssdRouterOptions): Router {
  const { engine, adapters, callbackSecret } = options;
  const allowed = new AllowList(options.allowedIps ?? []);
  const rejected = rejectionLog();
  if (!callbackSecret) log.warn('USSD callbacks are not protected by a secret (set USSD_CALLBACK_SECRET)');

  const router = express.Router();
  const bodies = [express.urlencoded({ extended: false, limit: '16kb' }), express.json({ limit: '16kb' })];

  function guard(req: Request, res: Response, next: NextFunction): void {
    if (allowed.size > 0 && !allowed.allows(req.ip)) {
      rejected('address not on the allow-list', { ip: req.ip, path: req.path });
      res.status(403).type('text/plain').send('forbidden');
      return;
    }
    if (callbackSecret) {
      const fromQuery = typeof req.query.key === 'string' ? req.query.key : undefined;
      const fromHeader = req.get('x-callback-key');
      const given = fromHeader ?? fromQuery;
      if (given === undefined || !sameSecret(given, callbackSecret)) {
        rejected('missing or wrong secret', { ip: req.ip, path: req.path });
        res.status(401).type('text/plain').send('unauthorised');
        return;
      }
    }
    next();
  }

  for (const adapter of adapters) {
    router.post(`/ussd/${adapter.name}`, guard, ...bodies, async (req: Request, res: Response) => {
      const hop = adapter.parseHop(req);
      if (isParseError(hop)) {
        log.warn('malformed USSD hop', { aggregator: adapter.name, reason: hop.error });
        res.status(400).type('text/plain').send(hop.error);
        return;
      }
      let wire: UssdHttpResponse;
      try {
        wire = adapter.formatReply(await engine.handleHop(hop));
      } catch (err) {
        log.error('USSD hop failed', { aggregator: adapter.name, error: err });
        wire = adapter.formatReply({ text: FALLBACK_END, end: true });
      }
      send(res, wire);
    });

    const parseEnd = adapter.parseEnd?.bind(adapter);
    if (!parseEnd) continue;
    router.post(`/ussd/${adapter.name}/events`, guard, ...bodies, async (req: Request, res: Response) => {
      const end = parseEnd(req);
      if (isParseError(end)) {
        log.warn('malformed USSD end notification', { aggregator: adapter.name, reason: end.error });
        res.status(400).type('text/plain').send(end.error);
        return;
      }
      try {
        await engine.endSession(end);
      } catch (err) {
        // The aggregator cannot do anything useful with a failure: acknowledge, log loudly.
        log.error('USSD end notification failed', { aggregator: adapter.name, error: err });
      }
      send(res, adapter.formatEndAck?.() ?? { status: 200, contentType: 'text/plain', body: 'OK' });
    });
  }

  // Body parser failures (bad JSON, too large, bad charset) on these routes: 400, never a stack.
  router.use('/ussd', (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const status = (err as { status?: number }).status;
    const code = typeof status === 'number' && status >= 400 && status < 500 ? status : 400;
    res.status(code).type('text/plain').send('malformed request body');
  });

  return router;
}
