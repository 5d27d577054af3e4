import express, { type Request, type Response, type Router } from 'express';
import { callbackGuard, malformedBody } from '../../http/callback-guard';
import { componentLogger } from '../../observability/logger';
import type { HopEngine } from '../../session/engine';
import { isParseError, type UssdAdapter, type UssdHttpResponse } from './types';

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
  if (!callbackSecret) log.warn('USSD callbacks are not protected by a secret (set USSD_CALLBACK_SECRET)');

  const router = express.Router();
  const bodies = [express.urlencoded({ extended: false, limit: '16kb' }), express.json({ limit: '16kb' })];
  const guard = callbackGuard({
    what: 'USSD callback',
    secret: callbackSecret,
    allowedIps: options.allowedIps,
  });

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

  router.use('/ussd', malformedBody);

  return router;
}
