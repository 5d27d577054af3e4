/**
 * Asking the payer to pay: the payment row written (`requested`) before anything is sent, then
 * the collect (a PIN prompt on the handset) and its answer given to the machine. Purchases and
 * agents' own top-ups alike.
 */
import type { PaymentEvent } from './machine';
import { maskMsisdn, premasked } from '../../observability/logger';
import type { PurchaseRecord, PurchaseState } from '../../purchases/types';
import { isStalePlan, type Queryable } from '../../records/database';
import type { Money } from '../../vas/money';
import { newPaymentRecord, topUpSubject, type AgentTopUp, type PaymentRecord } from '../store/types';
import { applyEarlyNotices } from './callbacks';
import { errorInfo, log, type LifecycleContext } from './context';
import { schedulePoll } from './polling';

/** What a payment asks for, when not the purchase's own amount and payer. */
export interface PaymentRequestOptions {
  amount?: Money;
  payerMsisdn?: string;
  description?: string;
}

/** `requestPayment` for a purchase that may not be paid for: missing, or past `created`. */
export class PurchaseNotPayableError extends Error {
  constructor(
    readonly purchaseId: string,
    readonly state: PurchaseState | null,
  ) {
    super(`purchase ${purchaseId} cannot be paid for (${state ?? 'not found'})`);
    this.name = 'PurchaseNotPayableError';
  }
}

/** When a payment requested at `requestedAt` is past the payer's window (and our margin). */
function expiresAt(ctx: LifecycleContext, requestedAt: string): string {
  return new Date(Date.parse(requestedAt) + ctx.settings.windowMs + ctx.settings.marginMs).toISOString();
}

/** See `PaymentLifecycle.writeRequest`. */
export async function writeRequest(
  ctx: LifecycleContext,
  purchase: PurchaseRecord,
  options: PaymentRequestOptions = {},
): Promise<{ created: boolean; record: PaymentRecord }> {
  const created = await ctx.payments.create(freshPayment(ctx, purchase, options));
  if (!created.record) throw new PurchaseNotPayableError(purchase.id, purchase.state);
  return { created: created.created, record: created.record };
}

/** See `PaymentLifecycle.writeRequestWith`. */
export function writeRequestWith(
  ctx: LifecycleContext,
  candidate: PurchaseRecord,
  tx: Queryable,
  options: PaymentRequestOptions = {},
): Promise<PaymentRecord | null> {
  return ctx.payments.createWithPurchase(freshPayment(ctx, candidate, options), tx);
}

/** A new payment row (`requested`) for `purchase`. */
function freshPayment(
  ctx: LifecycleContext,
  purchase: PurchaseRecord,
  options: PaymentRequestOptions,
): PaymentRecord {
  const requestedAt = ctx.now();
  return newPaymentRecord({
    id: ctx.newId(),
    purchaseId: purchase.id,
    provider: ctx.provider.name,
    payerMsisdn: options.payerMsisdn ?? purchase.intent.requesterMsisdn,
    amount: options.amount ?? purchase.intent.amount,
    description: options.description ?? describe(purchase),
    requestedAt,
    expiresAt: expiresAt(ctx, requestedAt),
  });
}

/** See `PaymentLifecycle.requestTopUp`. */
export async function requestTopUp(
  ctx: LifecycleContext,
  request: { requestKey: string; msisdn: string; amount: Money },
): Promise<{ created: boolean; record: PaymentRecord }> {
  const requestedAt = ctx.now();
  const topUp: Pick<AgentTopUp, 'id' | 'requestKey' | 'msisdn' | 'amount'> = {
    id: ctx.newId(),
    ...request,
  };
  const fresh = newPaymentRecord({
    id: ctx.newId(),
    purchaseId: topUpSubject(topUp.id),
    provider: ctx.provider.name,
    payerMsisdn: request.msisdn,
    amount: request.amount,
    description: 'Float top-up',
    requestedAt,
    expiresAt: expiresAt(ctx, requestedAt),
  });
  const created = await ctx.payments.createTopUp(topUp, fresh);
  return created.created ? { created: true, record: await sendRequested(ctx, created.record) } : created;
}

/** Send the collect of a payment this caller wrote (`writeRequest`), its row committed. */
export async function sendRequested(ctx: LifecycleContext, payment: PaymentRecord): Promise<PaymentRecord> {
  log.info(
    'payment requested',
    premasked({
      paymentId: payment.id,
      purchaseId: payment.purchaseId,
      payer: maskMsisdn(payment.payerMsisdn),
      provider: payment.provider,
    }),
  );
  return sendCollect(ctx, payment);
}

/** The collect for a `requested` payment whose compare-and-set was just written. */
export async function sendCollect(ctx: LifecycleContext, payment: PaymentRecord): Promise<PaymentRecord> {
  let event: PaymentEvent;
  try {
    const accepted = await ctx.provider.collect(
      {
        reference: payment.id,
        payerMsisdn: payment.payerMsisdn,
        amount: payment.amount,
        description: payment.description,
      },
      { requestId: `collect-${payment.id}-${payment.requestAttempts}` },
    );
    event = {
      type: 'REQUEST_ACCEPTED',
      providerReference: accepted.providerReference,
      at: ctx.now(),
      random: ctx.random(),
    };
  } catch (error) {
    event = { type: 'REQUEST_ERR', error: errorInfo(error), at: ctx.now(), random: ctx.random() };
  }
  return writeAnswer(ctx, payment, event);
}

/** Waits before each retry of a push answer's write (a blip of the database, a failover). */
export const ANSWER_WRITE_RETRIES_MS = [50, 250, 1_000];

/**
 * Write the collect's answer, retried on a database error: the answer exists only in memory, and
 * Daraja is never pushed again, so an answer lost here leaves the payment keyless (found only by
 * payer and amount). Safe to repeat: the write is a compare-and-set on the version read, and one
 * that did commit is found and decided again, not written twice.
 */
async function writeAnswer(ctx: LifecycleContext, payment: PaymentRecord, event: PaymentEvent) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await ctx.apply(payment, event);
    } catch (error) {
      const wait = ANSWER_WRITE_RETRIES_MS[attempt];
      if (!isDatabaseBlip(error)) throw error;
      if (wait === undefined) return spoolAnswer(ctx, payment, event, error);
      log.warn('push answer not written: retrying', {
        paymentId: payment.id,
        attempt: attempt + 1,
        error: errorInfo(error).message,
      });
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/**
 * The records stayed away through every retry: the provider's key for this payment exists only in
 * memory. It is logged whole (a provider's reference, no personal data) and spooled, so the
 * payment learns it once the records are back (`applySpooled`); the payment is left `requested`
 * meanwhile (the sweep finds it lost and asks with the key, or adopts its callback).
 */
async function spoolAnswer(
  ctx: LifecycleContext,
  payment: PaymentRecord,
  event: PaymentEvent,
  error: unknown,
): Promise<PaymentRecord> {
  if (event.type !== 'REQUEST_ACCEPTED' || !event.providerReference) throw error;
  log.error('PUSH ANSWER NOT WRITTEN: the records are away; its key is spooled', {
    paymentId: payment.id,
    purchaseId: payment.purchaseId,
    providerReference: event.providerReference,
    error: errorInfo(error).message,
  });
  if (!ctx.spool) throw error;
  await ctx.spool.keep({
    kind: 'answer',
    provider: ctx.provider.name,
    paymentId: payment.id,
    requestAttempts: payment.requestAttempts,
    providerReference: event.providerReference,
    at: ctx.now(),
  });
  ctx.spooled();
  return payment;
}

/**
 * A push's answer taken from the spool once the records are back: written as it would have been
 * when the payment still waits for it (`requested`, the same attempt); else the payment moved on
 * without its key (found lost: asked about, or waiting for a callback it cannot match) and the
 * key is recorded now — the callback kept unmatched under it is applied, and later questions can
 * name it. A payment that knows a key already, or is gone, takes nothing.
 */
export async function applySpooledAnswer(
  ctx: LifecycleContext,
  entry: { paymentId: string; requestAttempts: number; providerReference: string },
): Promise<void> {
  const payment = await ctx.payments.get(entry.paymentId);
  if (!payment || payment.providerReference !== null) return;
  if (payment.state === 'requested') {
    // Asked again since (another attempt): that attempt's own answer names its key.
    if (payment.requestAttempts === entry.requestAttempts)
      await ctx.apply(payment, {
        type: 'REQUEST_ACCEPTED',
        providerReference: entry.providerReference,
        at: ctx.now(),
        random: ctx.random(),
      });
    return;
  }
  const keyed = await ctx.payments.transition(payment, {
    ...payment,
    providerReference: entry.providerReference,
  });
  if (!keyed.ok) return; // moved meanwhile: the next replay looks again
  log.warn('push answer applied late: the payment knows its key now', {
    paymentId: payment.id,
    state: payment.state,
    providerReference: entry.providerReference,
  });
  if (await applyEarlyNotices(ctx, keyed.record, keyed.early)) return;
  if (keyed.record.state === 'pending') await schedulePoll(ctx, keyed.record, 0);
}

/**
 * A database error a moment later may not repeat: the connection lost or terminated (SQLSTATE
 * classes 08, 57), a serialization failure or deadlock (40), out of resources (53), a connection's
 * prepared statements gone stale (dropped with it), or a driver error without a SQLSTATE about its
 * connection. Never a refusal of the data itself.
 */
export function isDatabaseBlip(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (isStalePlan(error)) return true;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return /^(08|57|40|53)/.test(code);
  return /connect|terminat|ECONN|timeout/i.test(String(message ?? code ?? ''));
}

/** What the payer's prompt says the money is for (`Electricity`, `Airtime`, `Water`). */
function describe(purchase: PurchaseRecord): string {
  const type = String(purchase.intent.productType);
  return type.charAt(0) + type.slice(1).toLowerCase();
}
