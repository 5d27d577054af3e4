/**
 * How long an outgoing SMS is retried. A token must survive an SMS provider outage, so the
 * default horizon is hours, not seconds: 60 attempts, doubling from 5 s up to 10 min between
 * attempts (with jitter) — roughly 7 to 9 hours in all.
 */
export interface SmsRetryPolicy {
  /** Total attempts including the first. */
  attempts: number;
  /** Delay before the first retry; doubles per attempt. */
  baseDelayMs: number;
  /** Ceiling of the exponential delay. */
  maxDelayMs: number;
  /** Ceiling of a provider's `Retry-After` hint (a provider asking for a day is not obeyed blindly). */
  maxRetryAfterMs: number;
}

export const DEFAULT_SMS_RETRY_POLICY: SmsRetryPolicy = {
  attempts: 60,
  baseDelayMs: 5_000,
  maxDelayMs: 10 * 60_000,
  maxRetryAfterMs: 60 * 60_000,
};

/**
 * Delay before retry number `retry` (1 for the first retry): exponential with "equal jitter"
 * (half fixed, half random, so retries of many messages spread out after an outage), never
 * less than the provider's `retryAfterMs` hint (capped by `maxRetryAfterMs`).
 */
export function smsRetryDelay(
  retry: number,
  policy: SmsRetryPolicy,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(0, retry - 1), 40);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  const jittered = Math.round(ceiling / 2 + (random() * ceiling) / 2);
  const hint = retryAfterMs === undefined ? 0 : Math.min(Math.max(0, retryAfterMs), policy.maxRetryAfterMs);
  return Math.max(jittered, hint);
}
