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

/**
 * The protection of a provider callback, checked before anything else (before the body is even
 * parsed): the IP allow-list (403), then the shared secret (401).
 */
export function callbackGuard(options: CallbackGuardOptions): RequestHandler {
  const allowed = new AllowList(options.allowedIps ?? []);
  const rejected = rejectionLog(options.what);
  const { secret } = options;
  return (req: Request, res: Response, next: NextFunction) => {
    if (allowed.size > 0 && !allowed.allows(req.ip)) {
      rejected('address not on the allow-list', { ip: req.ip, path: req.path });
      res.status(403).type('text/plain').send('forbidden');
      return;
    }
    if (secret) {
      const fromQuery = typeof req.query.key === 'string' ? req.query.key : undefined;
      const given = req.get('x-callback-key') ?? fromQuery;
      if (given === undefined || !sameSecret(given, secret)) {
        rejected('missing or wrong secret', { ip: req.ip, path: req.path });
        res.status(401).type('text/plain').send('unauthorised');
        return;
      }
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
