import type { IncomingMessage, ServerResponse } from 'node:http';
import { callbackCheck } from '../http/callback-guard';
import { BodyError, queryOf, readBody, sendText } from '../http/lean-request';
import { componentLogger } from '../observability/logger';
import type { HopEngine } from './engine/engine';
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

/**
 * Every aggregator's own settings with its screen limit settled: `USSD_SCREEN_LIMIT_<NAME>`, else
 * the aggregator's documented limit (`UssdAdapter.screenLimit`) when it is below the gateway's.
 */
export function settledAggregatorSettings(
  adapters: readonly Pick<UssdAdapter, 'name' | 'screenLimit'>[],
  own: Record<string, AggregatorSettings>,
  defaultScreenLimit: number,
): Record<string, AggregatorSettings> {
  const out: Record<string, AggregatorSettings> = { ...own };
  for (const { name, screenLimit } of adapters)
    if (own[name]?.screenLimit === undefined && screenLimit !== undefined && screenLimit < defaultScreenLimit)
      out[name] = { ...own[name], screenLimit };
  return out;
}

export interface UssdRouterOptions {
  engine: Pick<HopEngine, 'handleHop' | 'endSession' | 'sessionActive'>;
  adapters: UssdAdapter[];
  /** Shared secret expected as `?key=` or header `X-Callback-Key`; unset = open (development only). */
  callbackSecret?: string;
  /** Client IPs/CIDRs allowed to call (empty = any), matched against {@link clientIp}. */
  allowedIps?: string[];
  /**
   * The caller's address: the socket's, or behind a load balancer the one `TRUST_PROXY` trusts
   * from `X-Forwarded-For` (the gateway passes express's own rule, so both paths agree).
   */
  clientIp?: (req: IncomingMessage) => string | undefined;
  /** Per-aggregator overrides, by adapter name. */
  aggregators?: Record<string, AggregatorSettings>;
}

/** A request the USSD routes answer; `false` from {@link UssdCallbacks.handle} means not ours. */
export type UssdCallbackHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

function send(res: ServerResponse, wire: UssdHttpResponse): void {
  sendText(res, wire.status, wire.contentType, wire.body, wire.headers);
}

/** Default routes: hops on `POST /ussd/<name>`, end notifications on `POST /ussd/<name>/events`. */
function routesOf(adapter: UssdAdapter): readonly UssdRoute[] {
  if (adapter.routes) return adapter.routes;
  return [
    { method: 'POST', path: '', kind: 'hop' },
    ...(adapter.parseEnd ? [{ method: 'POST' as const, path: '/events', kind: 'end' as const }] : []),
  ];
}

/** One route of one adapter, matched on method and path. */
interface Endpoint {
  route: UssdRoute;
  /** For paths with parameters (`/session/:id/start`); fixed paths are looked up whole. */
  pattern?: RegExp;
  params: string[];
  /** The aggregator's guard (allow-list, secret): null lets the call through. */
  check: ReturnType<typeof callbackCheck>;
  handler: (wire: UssdHttpRequest, res: ServerResponse) => Promise<void>;
  /** A body that cannot be read, answered in the aggregator's own error shape. */
  refuseBody: (res: ServerResponse, error: BodyError) => void;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A path parameter as sent; a malformed escape (`%E0%A4%A`) is kept as it came, never thrown. */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** `/ussd/infobip/session/:id/start` → a case-insensitive pattern and its parameter names. */
function compilePath(path: string): { pattern: RegExp; params: string[] } {
  const params: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return escapeRegExp(segment);
      params.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}/?$`, 'i'), params };
}

/**
 * Every adapter's routes under `/ussd/<name>` (by default `POST /ussd/<name>` for hops and
 * `POST /ussd/<name>/events` for end notifications), served on `node:http` directly: the hop is
 * the hot path, and express's router and wrappers cost more than the rest of its HTTP work.
 * Matching follows express's defaults (case-insensitive, an optional trailing slash). The guard
 * runs before the body is read; a malformed request gets 400 naming the problem and changes
 * nothing; an engine failure still answers the aggregator with a polite END.
 */
export function ussdCallbacks(options: UssdRouterOptions): UssdCallbackHandler {
  const { engine, adapters } = options;
  const clientIp = options.clientIp ?? ((req: IncomingMessage) => req.socket.remoteAddress);
  /** Fixed paths by `METHOD /path` (lower case, no trailing slash); paths with parameters in a list. */
  const fixed = new Map<string, Endpoint>();
  const patterned: Endpoint[] = [];

  const open: string[] = [];
  for (const adapter of adapters) {
    const own = options.aggregators?.[adapter.name] ?? {};
    const secret = own.callbackSecret ?? options.callbackSecret;
    if (!secret) open.push(adapter.name);
    const check = callbackCheck({
      what: `USSD callback (${adapter.name})`,
      secret,
      allowedIps: own.allowedIps ?? options.allowedIps,
    });

    /** A refused request: 400 (401 for wrong credentials) in the format's error shape; nothing changed. */
    function refuse(res: ServerResponse, refused: UssdParseError | BodyError): void {
      const status = (refused instanceof BodyError ? refused.status : refused.status) ?? 400;
      const message = refused instanceof BodyError ? refused.message : refused.error;
      send(
        res,
        adapter.formatError?.(status, message) ?? {
          status,
          contentType: 'text/plain',
          body: message,
        },
      );
    }

    async function end(res: ServerResponse, parsed: UssdSessionEnd): Promise<void> {
      try {
        await engine.endSession(parsed);
      } catch (err) {
        // The aggregator cannot do anything useful with a failure: acknowledge, log loudly.
        log.error('USSD end notification failed', { aggregator: adapter.name, error: err });
      }
      send(res, adapter.formatEndAck?.() ?? { status: 200, contentType: 'text/plain', body: 'OK' });
    }

    const handlers: Record<UssdRoute['kind'], (wire: UssdHttpRequest, res: ServerResponse) => Promise<void>> =
      {
        async hop(wire, res) {
          const parsed = adapter.parseHop(wire);
          if (isParseError(parsed)) {
            log.warn(parsed.status === 401 ? 'USSD hop refused: wrong credentials' : 'malformed USSD hop', {
              aggregator: adapter.name,
              reason: parsed.error,
            });
            return refuse(res, parsed);
          }
          if (isSessionEnd(parsed)) return end(res, parsed);
          let reply: UssdHttpResponse;
          try {
            const hop = own.screenLimit === undefined ? parsed : { ...parsed, screenLimit: own.screenLimit };
            reply = adapter.formatReply(await engine.handleHop(hop), parsed);
          } catch (err) {
            log.error('USSD hop failed', { aggregator: adapter.name, error: err });
            reply = adapter.formatReply({ text: FALLBACK_END, end: true }, parsed);
          }
          send(res, reply);
        },
        async end(wire, res) {
          const parsed = adapter.parseEnd?.(wire) ?? { error: 'no end notifications here' };
          if (isParseError(parsed)) {
            log.warn('malformed USSD end notification', { aggregator: adapter.name, reason: parsed.error });
            return refuse(res, parsed);
          }
          return end(res, parsed);
        },
        async status(wire, res) {
          const asked = adapter.parseStatus?.(wire) ?? { error: 'no status here' };
          if (isParseError(asked)) return refuse(res, asked);
          const active = await engine.sessionActive({ aggregator: adapter.name, sessionId: asked.sessionId });
          send(
            res,
            adapter.formatStatus?.(active) ?? {
              status: 200,
              contentType: 'text/plain',
              body: String(active),
            },
          );
        },
      };

    for (const route of routesOf(adapter)) {
      const path = `/ussd/${adapter.name}${route.path}`;
      const handler = handlers[route.kind];
      if (path.includes('/:'))
        patterned.push({ route, ...compilePath(path), check, handler, refuseBody: refuse });
      else
        fixed.set(`${route.method} ${path.toLowerCase()}`, {
          route,
          params: [],
          check,
          handler,
          refuseBody: refuse,
        });
    }
  }

  if (open.length > 0)
    log.warn('USSD callbacks are not protected by a secret (set USSD_CALLBACK_SECRET)', {
      aggregators: open,
    });

  function match(
    method: string,
    path: string,
  ): { endpoint: Endpoint; params: Record<string, string> } | null {
    const bare = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const endpoint = fixed.get(`${method} ${bare.toLowerCase()}`);
    if (endpoint) return { endpoint, params: {} };
    for (const candidate of patterned) {
      if (candidate.route.method !== method) continue;
      const found = candidate.pattern!.exec(path);
      if (!found) continue;
      const params: Record<string, string> = {};
      candidate.params.forEach((name, i) => (params[name] = decodePathSegment(found[i + 1])));
      return { endpoint: candidate, params };
    }
    return null;
  }

  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    endpoint: Endpoint,
    params: Record<string, string>,
    path: string,
  ): Promise<void> {
    const query = queryOf(req.url!);
    const header = req.headers['x-callback-key'];
    // The guard first: a caller turned away costs no body read.
    const rejection = endpoint.check({
      ip: clientIp(req),
      key: typeof header === 'string' ? header : typeof query.key === 'string' ? query.key : undefined,
      path,
    });
    if (rejection) {
      req.resume();
      return sendText(res, rejection.status, 'text/plain', rejection.body);
    }
    const wire: UssdHttpRequest = {
      method: req.method!,
      body: await readBody(req),
      query,
      headers: req.headers,
      params,
      route: endpoint.route.path,
    };
    await endpoint.handler(wire, res);
  }

  return (req, res) => {
    if (!req.url!.startsWith('/ussd/') && !req.url!.startsWith('/USSD/')) return false;
    const at = req.url!.indexOf('?');
    const path = at === -1 ? req.url! : req.url!.slice(0, at);
    const found = match(req.method!, path);
    if (!found) return false;
    serve(req, res, found.endpoint, found.params, path).catch((error: unknown) => {
      if (res.headersSent) return;
      if (error instanceof BodyError) return found.endpoint.refuseBody(res, error);
      log.error('USSD callback failed', { error });
      sendText(res, 500, 'text/plain', 'internal error');
    });
    return true;
  };
}
