import express, { type Request, type Response, type Router } from 'express';
import { callbackGuard, malformedBody } from '../../http/callback-guard';
import { componentLogger } from '../../observability/logger';
import type { HopEngine } from '../../session/engine';
import {
  isParseError,
  isSessionEnd,
  type UssdAdapter,
  type UssdHttpRequest,
  type UssdHttpResponse,
  type UssdParseError,
  type UssdRoute,
  type UssdSessionEnd,
} from './types';

const log = componentLogger('ussd-router');

/** Last-resort answer when the engine itself failed (it normally answers its own polite END). */
export const FALLBACK_END = 'Sorry, the service is unavailable right now. Please try again later.';

/** What one aggregator gets beyond the gateway-wide defaults (`USSD_*_<NAME>` variables). */
export interface AggregatorSettings {
  callbackSecret?: string;
  allowedIps?: string[];
  /** Characters per screen for this aggregator (many telco gateways cut at 160). */
  screenLimit?: number;
}

export interface UssdRouterOptions {
  engine: Pick<HopEngine, 'handleHop' | 'endSession' | 'sessionActive'>;
  adapters: UssdAdapter[];
  /** Shared secret expected as `?key=` or header `X-Callback-Key`; unset = open (development only). */
  callbackSecret?: string;
  /**
   * Client IPs allowed to call (empty = any). Matched against `req.ip`: behind a reverse proxy
   * or load balancer set express's `trust proxy` on the app so `req.ip` is the aggregator's
   * address from `X-Forwarded-For`, not the proxy's.
   */
  allowedIps?: string[];
  /** Per-aggregator overrides, by adapter name. */
  aggregators?: Record<string, AggregatorSettings>;
}

function send(res: Response, wire: UssdHttpResponse): void {
  res.status(wire.status).type(wire.contentType);
  if (wire.headers) res.set(wire.headers);
  res.send(wire.body);
}

/** The adapter's view of an express request (path parameters as single strings). */
function wireRequest(req: Request, route: UssdRoute): UssdHttpRequest {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.params ?? {}))
    params[k] = Array.isArray(v) ? v.join('/') : String(v);
  return {
    method: req.method,
    body: req.body,
    query: req.query,
    headers: req.headers,
    params,
    route: route.path,
  };
}

/** Default routes: hops on `POST /ussd/<name>`, end notifications on `POST /ussd/<name>/events`. */
function routesOf(adapter: UssdAdapter): readonly UssdRoute[] {
  if (adapter.routes) return adapter.routes;
  return [
    { method: 'POST', path: '', kind: 'hop' },
    ...(adapter.parseEnd ? [{ method: 'POST' as const, path: '/events', kind: 'end' as const }] : []),
  ];
}

/**
 * Every adapter's routes under `/ussd/<name>` (by default `POST /ussd/<name>` for hops and
 * `POST /ussd/<name>/events` for end notifications). A malformed request gets 400 naming the
 * problem and changes nothing; an engine failure still answers the aggregator with a polite END.
 */
export function ussdRouter(options: UssdRouterOptions): Router {
  const { engine, adapters } = options;
  const router = express.Router();
  const bodies = [express.urlencoded({ extended: false, limit: '16kb' }), express.json({ limit: '16kb' })];

  const open: string[] = [];
  for (const adapter of adapters) {
    const own = options.aggregators?.[adapter.name] ?? {};
    const secret = own.callbackSecret ?? options.callbackSecret;
    if (!secret) open.push(adapter.name);
    const guard = callbackGuard({
      what: `USSD callback (${adapter.name})`,
      secret,
      allowedIps: own.allowedIps ?? options.allowedIps,
    });

    /** A refused request: 400 (401 for wrong credentials) in the format's error shape; nothing changed. */
    function refuse(res: Response, refused: UssdParseError): void {
      const status = refused.status ?? 400;
      send(
        res,
        adapter.formatError?.(status, refused.error) ?? {
          status,
          contentType: 'text/plain',
          body: refused.error,
        },
      );
    }

    async function end(res: Response, parsed: UssdSessionEnd): Promise<void> {
      try {
        await engine.endSession(parsed);
      } catch (err) {
        // The aggregator cannot do anything useful with a failure: acknowledge, log loudly.
        log.error('USSD end notification failed', { aggregator: adapter.name, error: err });
      }
      send(res, adapter.formatEndAck?.() ?? { status: 200, contentType: 'text/plain', body: 'OK' });
    }

    const handlers: Record<
      UssdRoute['kind'],
      (req: Request, res: Response, route: UssdRoute) => Promise<void>
    > = {
      async hop(req, res, route) {
        const parsed = adapter.parseHop(wireRequest(req, route));
        if (isParseError(parsed)) {
          log.warn(parsed.status === 401 ? 'USSD hop refused: wrong credentials' : 'malformed USSD hop', {
            aggregator: adapter.name,
            reason: parsed.error,
          });
          return refuse(res, parsed);
        }
        if (isSessionEnd(parsed)) return end(res, parsed);
        let wire: UssdHttpResponse;
        try {
          const hop = own.screenLimit === undefined ? parsed : { ...parsed, screenLimit: own.screenLimit };
          wire = adapter.formatReply(await engine.handleHop(hop), parsed);
        } catch (err) {
          log.error('USSD hop failed', { aggregator: adapter.name, error: err });
          wire = adapter.formatReply({ text: FALLBACK_END, end: true }, parsed);
        }
        send(res, wire);
      },
      async end(req, res, route) {
        const parsed = adapter.parseEnd?.(wireRequest(req, route)) ?? { error: 'no end notifications here' };
        if (isParseError(parsed)) {
          log.warn('malformed USSD end notification', { aggregator: adapter.name, reason: parsed.error });
          return refuse(res, parsed);
        }
        return end(res, parsed);
      },
      async status(req, res, route) {
        const asked = adapter.parseStatus?.(wireRequest(req, route)) ?? { error: 'no status here' };
        if (isParseError(asked)) return refuse(res, asked);
        const active = await engine.sessionActive({ aggregator: adapter.name, sessionId: asked.sessionId });
        send(
          res,
          adapter.formatStatus?.(active) ?? { status: 200, contentType: 'text/plain', body: String(active) },
        );
      },
    };

    for (const route of routesOf(adapter)) {
      const method = route.method.toLowerCase() as 'get' | 'post' | 'put';
      router[method](`/ussd/${adapter.name}${route.path}`, guard, ...bodies, (req: Request, res: Response) =>
        handlers[route.kind](req, res, route),
      );
    }
  }

  if (open.length > 0)
    log.warn('USSD callbacks are not protected by a secret (set USSD_CALLBACK_SECRET)', {
      aggregators: open,
    });
  router.use('/ussd', malformedBody);

  return router;
}
