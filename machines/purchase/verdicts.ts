/**
 * The purchase machine's pure reckoning, apart from its states: waits and backoff, whether a
 * confirm can still be in flight, and what kind of answer a failed call is (not sent, resendable,
 * no verdict, a definitive refusal). The guards and actions of `purchase.machine.ts` ask these.
 */
import type { ErrorInfo, LifecycleSettings, PurchaseContext, PurchaseEvent } from './types';

export type TimedEvent = Extract<PurchaseEvent, { random: number }>;

/** An ISO time in milliseconds; NaN for none. */
export const ms = (iso: string | null): number => (iso === null ? NaN : Date.parse(iso));

/** Exponential backoff from baseDelayMs with up to 50% jitter, capped by maxDelayMs. */
export function backoffMs(settings: LifecycleSettings, attempt: number, random: number): number {
  const exponential = settings.baseDelayMs * 2 ** Math.min(attempt, 30);
  const capped = Math.min(exponential, settings.maxDelayMs);
  return Math.round(capped + capped * 0.5 * Math.min(Math.max(random, 0), 1));
}

/** The next wait, never past the deadline (the last ask lands on it) and honouring Retry-After. */
export function waitMs(context: PurchaseContext, event: TimedEvent): number {
  const hint = 'error' in event ? (event.error.retryAfterMs ?? 0) : 0;
  const delay = Math.max(backoffMs(context.settings, context.reconcileAttempts, event.random), hint);
  const untilDeadline = ms(context.reconcileDeadlineAt) - ms(event.at);
  return Number.isFinite(untilDeadline) ? Math.max(0, Math.min(delay, untilDeadline)) : delay;
}

/**
 * The original confirm can no longer be in flight: past the in-flight deadline the sender stored
 * when it sent it (its own client timeout, not the reader's), or past when the call came back if
 * that is later — plus a margin for clocks and the network.
 */
export const pastInFlight = (context: PurchaseContext, event: { at: string }) => {
  const ended = ms(context.confirmEndedAt);
  const deadline = ms(context.confirmInFlightUntil);
  const lastAnswer = Math.max(
    Number.isFinite(deadline) ? deadline : ms(context.confirmSentAt) + context.settings.confirmTimeoutMs,
    Number.isFinite(ended) ? ended : -Infinity,
  );
  return ms(event.at) > lastAnswer + context.settings.inFlightMarginMs;
};

/** Until when a verdict that is not a fact keeps being re-checked. */
export const recheckUntil = (context: PurchaseContext, at: string) =>
  new Date(ms(at) + context.settings.recheckForMs).toISOString();

/** The call never reached the service. */
export const isNotSent = (error: ErrorInfo) => error.outcome === 'not_sent';
/** A refusal that says "not now" about this very request: nothing happened, it may be sent again. */
export const isResendable = (error: ErrorInfo) =>
  error.outcome === 'rejected' && (error.code === 'transaction_pending' || error.status === 429);
/**
 * 4xx answers to `retry` that say nothing about the original transaction: no error envelope
 * (`http_<status>`: a proxy or load balancer answered, not the service), or a refusal of the
 * retry request itself (its shape, its path). Only retry reaches these; they never prove "not charged".
 */
export const isNoVerdict = (error: ErrorInfo) =>
  /^http_\d+$/.test(error.code) ||
  ['missing_field', 'invalid_argument', 'method_not_allowed', 'resource_not_found'].includes(error.code);
/** 400-class answers that settle the transaction (not our credentials, not "ask later"). */
export const isDefinitiveRefusal = (error: ErrorInfo) =>
  error.outcome === 'rejected' &&
  !isNoVerdict(error) &&
  // Not found may only mean "the confirm is still in flight": see provedNotCharged.
  error.code !== 'transaction_not_found' &&
  !error.retryable &&
  error.status !== null &&
  error.status >= 400 &&
  error.status < 500 &&
  error.status !== 401 &&
  error.status !== 403 &&
  error.status !== 409 &&
  error.status !== 429;

/** A failed call as the record keeps it (`lastError`); null for an event that is no failure. */
export const errorOf = (event: PurchaseEvent) =>
  'error' in event
    ? { code: event.error.code, message: event.error.message, outcome: event.error.outcome }
    : null;
