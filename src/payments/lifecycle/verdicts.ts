/**
 * The payment machine's pure reckoning, apart from its states: whether an answer can be this
 * payment's success (`mismatchOf`), the polling backoff within the payer's window, and reading
 * the facts and errors out of an event. The guards and actions of `payment.machine.ts` ask these.
 */
import type { RefundStatus } from '../port';
import type { PaymentRecord } from '../store/types';
import type { Money } from '../../vas/money';
import type { PaymentContext, PaymentEvent, PaymentFacts, PaymentLifecycleSettings } from './types';

/** An ISO time in milliseconds; NaN for none. */
export const ms = (iso: string | null | undefined): number => (iso ? Date.parse(iso) : NaN);
export const iso = (millis: number) => new Date(millis).toISOString();
export const sameMoney = (a: Money, b: Money) => a.currency === b.currency && a.minor === b.minor;

/**
 * Why `facts` cannot be this payment's success, or null when they can. A callback must state the
 * amount (`requireAmount`); a status query asked for our own reference may leave it out (Daraja's
 * query does). Never marks anything paid: the caller only refuses and logs.
 */
export function mismatchOf(
  payment: Pick<PaymentRecord, 'id' | 'providerReference' | 'amount'>,
  facts: PaymentFacts,
  requireAmount: boolean,
): 'reference' | 'provider_reference' | 'amount_missing' | 'currency' | 'amount' | null {
  if (facts.reference !== undefined && facts.reference !== payment.id) return 'reference';
  if (
    facts.providerReference !== undefined &&
    payment.providerReference !== null &&
    facts.providerReference !== payment.providerReference
  )
    return 'provider_reference';
  if (!facts.amount) return requireAmount ? 'amount_missing' : null;
  if (facts.amount.currency !== payment.amount.currency) return 'currency';
  if (!sameMoney(facts.amount, payment.amount)) return 'amount';
  return null;
}

/** Exponential backoff from pollBaseMs with up to 50% jitter, capped by pollMaxMs. */
export function pollDelayMs(settings: PaymentLifecycleSettings, attempt: number, random: number): number {
  const capped = Math.min(settings.pollBaseMs * 2 ** Math.min(attempt, 30), settings.pollMaxMs);
  return Math.round(capped + capped * 0.5 * Math.min(Math.max(random, 0), 1));
}

export type Timed = { at: string; random?: number };
export const eventAt = (event: PaymentEvent) => (event as Timed).at;
export const eventRandom = (event: PaymentEvent) => (event as Timed).random ?? 0.5;

/** The next wait after `event` (its time and jitter), never past `deadline` (the last query lands on it). */
export function waitUntil(
  settings: PaymentLifecycleSettings,
  attempt: number,
  event: PaymentEvent,
  deadline: string,
) {
  const delay = pollDelayMs(settings, attempt, eventRandom(event));
  return Math.max(0, Math.min(delay, ms(deadline) - ms(eventAt(event))));
}

/**
 * One more status query counted, with the run of not-found answers it leaves (one more, or 0
 * when the run is broken): the not-found count is what tells a collect that never landed.
 */
export const polled = (payment: PaymentContext['payment'], notFoundCount: number) => ({
  ...payment,
  pollAttempts: payment.pollAttempts + 1,
  notFoundCount,
});

/** The next status query of the payment, within its expiry. */
export const nextPoll = ({ context, event }: { context: PaymentContext; event: PaymentEvent }) =>
  waitUntil(context.settings, context.payment.pollAttempts, event, context.payment.expiresAt);

/** What a callback or status answer says about the money; null for any other event. */
export const paidFacts = (event: PaymentEvent): { state: string; amount?: Money; receipt?: string } | null =>
  event.type === 'CALLBACK' ? event.notice : event.type === 'STATUS' ? event.status : null;

/**
 * How the adapters say a refund status query found no such refund (MoMo's 404
 * `RESOURCE_NOT_FOUND`, the generic provider's 404 `not_found`). Not a refusal: MoMo answers it
 * for a while after its own 202 (it lags), so the refund is asked about again until its deadline,
 * and past it goes to a person as unanswered — never as refused, which a person would refund again.
 */
const REFUND_NOT_FOUND = new Set(['not_found', 'RESOURCE_NOT_FOUND']);

/** A refund answer that only says the provider does not know the refund (yet). */
export const refundNotFound = (status: RefundStatus) =>
  status.state === 'failed' && status.detail !== undefined && REFUND_NOT_FOUND.has(status.detail);

/** A failed call as the record keeps it; null for an event that is no failure. */
export const errorOf = (event: PaymentEvent) =>
  'error' in event
    ? { code: event.error.code, message: event.error.message, outcome: event.error.outcome }
    : null;
