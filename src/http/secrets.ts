import { createHash, timingSafeEqual } from 'node:crypto';

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
