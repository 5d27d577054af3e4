import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
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

/** Express guard of the operator routes: `Authorization: Bearer <token>`, else 401 (logged). */
export function requireBearer(token: string): RequestHandler {
  return (req, res, next) => {
    if (bearerMatches(req.get('authorization'), token)) {
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
