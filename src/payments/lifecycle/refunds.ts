/**
 * Giving the buyer's money back, once, when the purchase could not be sold (or the money came
 * after it was ended): the rule read first (`refundDue`, the one the database enforces), the
 * refund row written before the provider is called, and its status asked until it is settled.
 */
import type { PaymentEvent } from './machine';
import type { PurchaseRecord } from '../../purchases/types';
import { RefundNotAllowedError } from '../store/sql';
import { topUpIdOf, type PaymentRecord, type RefundReason } from '../store/types';
import { errorInfo, log, type LifecycleContext } from './context';
import { runWait } from './polling';

/** Whether a refund may be asked for this purchase now: the rule the database enforces, read first. */
export function refundDue(
  purchase: PurchaseRecord | null,
  at: string,
): { due: true; reason: RefundReason } | { due: false; why: string; retryAt?: string } {
  if (!purchase) return { due: false, why: 'purchase_missing' };
  if (purchase.state !== 'failed') return { due: false, why: `purchase_${purchase.state}` };
  // The service issued a token after all (sent to the buyer): a sale, for a person to settle.
  if (purchase.lateSuccess) return { due: false, why: 'late_success' };
  if (purchase.confirmAttempts === 0) return { due: true, reason: 'late_payment' };
  if (purchase.failure?.charged !== false) return { due: false, why: 'might_be_charged' };
  // "No charge was found" is inferred and re-checked: a token may still turn up until then.
  if (
    purchase.failure.code === 'transaction_not_found' &&
    purchase.recheckUntil &&
    purchase.recheckUntil > at
  )
    return { due: false, why: 'verdict_rechecked', retryAt: purchase.recheckUntil };
  return { due: true, reason: 'vend_failed' };
}

/**
 * Give the buyer's money back, once, if it is due: the purchase was paid and then failed
 * definitively, or the money came after the purchase was ended unpaid. Never for a purchase that
 * might have issued a token (see {@link refundDue}; the database refuses it too). The refund row
 * is committed (`refund_requested`, one per payment) before the provider is called. Returns the
 * payment as it stands, null when there is none.
 */
export async function refundIfDue(ctx: LifecycleContext, purchaseId: string): Promise<PaymentRecord | null> {
  const payment = await ctx.payments.getByPurchase(purchaseId);
  if (!payment || payment.state !== 'successful' || topUpIdOf(purchaseId) !== null) return payment;
  const purchase = await ctx.purchases.get(purchaseId);
  const due = refundDue(purchase, ctx.now());
  if (!due.due) {
    log.info('refund not due', { paymentId: payment.id, purchaseId, why: due.why });
    if (due.retryAt)
      await ctx.queue.enqueue(
        { kind: 'refund-due', purchaseId, attempt: 0 },
        Math.max(0, Date.parse(due.retryAt) - ctx.clock().getTime()) + 1000,
      );
    return payment;
  }
  const refundId = ctx.newId();
  let started: PaymentRecord;
  try {
    started = await ctx.apply(payment, {
      type: 'REFUND_START',
      refundId,
      reason: due.reason,
      at: ctx.now(),
    });
  } catch (error) {
    if (!(error instanceof RefundNotAllowedError)) throw error;
    log.warn('refund refused by the records', { paymentId: payment.id, purchaseId, error: error.message });
    return (await ctx.payments.get(payment.id)) ?? payment;
  }
  // Another instance started the refund first: it calls the provider, not us.
  if (started.refund?.id !== refundId || started.state !== 'refund_requested') return started;
  log.info('refund requested', { paymentId: started.id, purchaseId, refundId, reason: due.reason });
  return sendRefund(ctx, started);
}

async function sendRefund(ctx: LifecycleContext, payment: PaymentRecord): Promise<PaymentRecord> {
  const refund = payment.refund!;
  let event: PaymentEvent;
  try {
    const status = await ctx.provider.refund(
      {
        reference: payment.id,
        providerReference: payment.providerReference,
        receipt: payment.receipt,
        payerMsisdn: payment.payerMsisdn,
        amount: refund.amount,
        refundReference: refund.id,
      },
      { requestId: `refund-${refund.id}` },
    );
    event = { type: 'REFUND_ANSWER', status, at: ctx.now(), random: ctx.random() };
  } catch (error) {
    event = { type: 'REFUND_ERR', error: errorInfo(error), at: ctx.now(), random: ctx.random() };
  }
  return ctx.apply(payment, event);
}

/** Ask the refund's status (job `refund-poll`), where the provider can be asked. */
export async function runRefundPoll(
  ctx: LifecycleContext,
  payment: PaymentRecord,
  attempt: number,
): Promise<void> {
  if (payment.state !== 'refund_requested' || !payment.refund || attempt !== payment.refund.pollAttempts)
    return;
  if (!ctx.provider.refundStatus) {
    await runWait(ctx, payment);
    return;
  }
  let event: PaymentEvent;
  try {
    const status = await ctx.provider.refundStatus(
      { refundReference: payment.refund.id, providerReference: payment.refund.providerReference },
      { requestId: `refund-status-${payment.refund.id}-${attempt}` },
    );
    event = { type: 'REFUND_ANSWER', status, at: ctx.now(), random: ctx.random() };
  } catch (error) {
    event = { type: 'REFUND_ERR', error: errorInfo(error), at: ctx.now(), random: ctx.random() };
  }
  // A status answer's error says nothing about the refund itself: only its deadline ends it.
  if (event.type === 'REFUND_ERR') event = { ...event, error: { ...event.error, outcome: 'unknown' } };
  await ctx.apply(payment, event);
}
