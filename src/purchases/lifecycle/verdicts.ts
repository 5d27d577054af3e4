/**
 * The purchase machine's pure reckoning, apart from its states: waits and backoff, whether a
 * confirm can still be in flight, and what kind of answer a failed call is (not sent, resendable,
 * no verdict, a definitive refusal). The guards and actions of `purchase.machine.ts` ask these.
 */
import { CONFIRM_NO_VERDICT_CODES, FAILED_TRANSACTION_CODES, isDocumentedCode } from '../../vas/error-codes';
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
 * A managed-retry debit account (interface 1.5): the service retries a failed transaction itself
 * until `managedRetryUntil` (stored with the confirm). Until then no failure is final.
 */
export const pastManagedWindow = (context: PurchaseContext, event: { at: string }) =>
  context.managedRetryUntil === null || ms(event.at) >= ms(context.managedRetryUntil);

/** A verdict inferred or told may be drawn: the confirm is past in flight and the service's own retries past. */
export const mayConclude = (context: PurchaseContext, event: { at: string }) =>
  pastInFlight(context, event) && pastManagedWindow(context, event);

/**
 * Confirm refused in a way that settles it: the service's own refusal of the request with a code
 * the document lists (or ours, raised before anything was sent: status 0). A proxy's page
 * (`http_<status>`), an unknown code or `upstream_error` says nothing: the outcome is unknown.
 */
export const isConfirmRefusal = (error: ErrorInfo) =>
  error.outcome === 'rejected' &&
  (error.status === 0 || (isDocumentedCode(error.code) && !CONFIRM_NO_VERDICT_CODES.has(error.code)));

/**
 * A `retry` answer that says the original transaction genuinely failed: only the codes of
 * FAILED_TRANSACTION_CODES (an allow-list), not retryable, as a 4xx. Everything else — a proxy's
 * page, a refusal of the retry request, `upstream_error`, a code we do not know — is asked again.
 */
export const isDefinitiveRefusal = (error: ErrorInfo) =>
  error.outcome === 'rejected' &&
  FAILED_TRANSACTION_CODES.has(error.code) &&
  !error.retryable &&
  error.status !== null &&
  error.status >= 400 &&
  error.status < 500;

/** A failed call as the record keeps it (`lastError`); null for an event that is no failure. */
export const errorOf = (event: PurchaseEvent) =>
  'error' in event
    ? { code: event.error.code, message: event.error.message, outcome: event.error.outcome }
    : null;
