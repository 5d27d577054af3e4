import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { componentLogger } from '../observability/logger';
import { AllowList } from './allow-list';
import { sameSecret } from './secrets';

const log = componentLogger('callback-guard');

export interface CallbackGuardOptions {
  /** What is guarded, for the logs (`USSD callback`, `inbound SMS`). */
  what: string;
  /** Shared secret expected in header `X-Callback-Key` (preferred) or `?key=`; unset = open. */
  secret?: string;
  /** Client IPs/CIDRs allowed to call (empty = any), matched against `req.ip`. */
  allowedIps?: string[];
}

/**
 * A rejected callback is logged at most once per reason per 10 s, with how many were suppressed
 * meanwhile: a scanner or a misconfigured provider must not flood the logs.
 */
function rejectionLog(what: string): (reason: string, fields: Record<string, unknown>) => void {
  const last = new Map<string, { at: number; suppressed: number }>();
  return (reason, fields) => {
    const now = Date.now();
    const seen = last.get(reason);
    if (seen && now - seen.at < 10_000) {
      seen.suppressed += 1;
      return;
    }
    last.set(reason, { at: now, suppressed: 0 });
    log.warn(`${what} rejected: ${reason}`, { ...fields, suppressedSinceLast: seen?.suppressed ?? 0 });
  };
}

/** Why a callback was turned away, and the answer it gets. */
export interface CallbackRejection {
  status: 401 | 403;
  body: string;
}

/** What the check needs of a request, whatever serves it (express or the lean USSD path). */
export interface CallbackCall {
  ip: string | undefined;
  /** The secret as given: header `X-Callback-Key`, else `?key=`. */
  key: string | undefined;
  path: string;
}

/**
 * The protection of a provider callback, checked before anything else (before the body is even
 * read): the IP allow-list (403), then the shared secret (401). Null: let it through.
 */
export function callbackCheck(
  options: CallbackGuardOptions,
): (call: CallbackCall) => CallbackRejection | null {
  const allowed = new AllowList(options.allowedIps ?? []);
  const rejected = rejectionLog(options.what);
  const { secret } = options;
  return ({ ip, key, path }) => {
    if (allowed.size > 0 && !allowed.allows(ip)) {
      rejected('address not on the allow-list', { ip, path });
      return { status: 403, body: 'forbidden' };
    }
    if (secret && (key === undefined || !sameSecret(key, secret))) {
      rejected('missing or wrong secret', { ip, path });
      return { status: 401, body: 'unauthorised' };
    }
    return null;
  };
}

/** {@link callbackCheck} as express middleware (the inbound SMS routes). */
export function callbackGuard(options: CallbackGuardOptions): RequestHandler {
  const check = callbackCheck(options);
  return (req: Request, res: Response, next: NextFunction) => {
    const fromQuery = typeof req.query.key === 'string' ? req.query.key : undefined;
    const rejection = check({ ip: req.ip, key: req.get('x-callback-key') ?? fromQuery, path: req.path });
    if (rejection) {
      res.status(rejection.status).type('text/plain').send(rejection.body);
      return;
    }
    next();
  };
}

/**
 * Body-parser failures (bad JSON, too large, bad charset) on a callback route: 400 (or the
 * parser's own 4xx) with a short text, never a stack.
 */
export function malformedBody(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(err);
  const status = (err as { status?: number }).status;
  const code = typeof status === 'number' && status >= 400 && status < 500 ? status : 400;
  res.status(code).type('text/plain').send('malformed request body');
}
