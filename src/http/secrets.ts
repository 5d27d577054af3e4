import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { componentLogger } from '../observability/logger';

const log = componentLogger('admin');

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Constant-time comparison of a presented secret with the expected one. Comparing digests makes
 * the lengths equal, so neither the secret's content nor its length leaks through timing.
 */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** Whether an `Authorization` header carries `Bearer <token>` (constant time; an empty token never matches). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/i.exec(header ?? '');
  const presented = match ? match[1].trim() : '';
  return sameSecret(presented, token) && presented.length > 0;
}

/** A bearer token operators send, and the name the audit trail records for it (`ADMIN_TOKENS`). */
export interface AdminCredential {
  label: string;
  token: string;
}

/**
 * The label of the credential an `Authorization` header carries, or undefined. Every credential
 * is compared (constant time each), so timing does not tell which one matched.
 */
export function credentialLabel(
  header: string | undefined,
  credentials: readonly AdminCredential[],
): string | undefined {
  let label: string | undefined;
  for (const credential of credentials)
    if (bearerMatches(header, credential.token) && label === undefined) label = credential.label;
  return label;
}

/** Who acts, for the audit trail: the label `requireBearer` left for the operator's token. */
export const operatorOf = (res: Response): string =>
  typeof res.locals.operator === 'string' ? res.locals.operator : 'admin';

/**
 * Express guard of the operator routes: `Authorization: Bearer <token>`, else 401 (logged).
 * With labelled credentials, the matching label is left in `res.locals.operator` for the audit trail.
 */
export function requireBearer(token: string | readonly AdminCredential[]): RequestHandler {
  const credentials = typeof token === 'string' ? [{ label: 'admin', token }] : token;
  return (req, res, next) => {
    // Let through by the gate of `/admin` (src/operators/admin-auth.ts): a named operator.
    if (res.locals.caller !== undefined) {
      next();
      return;
    }
    const label = credentialLabel(req.get('authorization'), credentials);
    if (label !== undefined) {
      res.locals.operator = label;
      next();
      return;
    }
    log.warn('admin request refused: missing or wrong bearer token', { path: req.path, ip: req.ip });
    res
      .status(401)
      .set('WWW-Authenticate', 'Bearer realm="admin"')
      .json({ error: 'unauthorized', message: 'send Authorization: Bearer <ADMIN_TOKEN>' });
  };
}
