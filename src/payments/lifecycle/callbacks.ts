/**
 * Providers' callbacks: each notice kept first, then matched to our payment or refund and given
 * to the machine; a mismatched one never marks anything paid, and one that came before the
 * collect's answer waits unmatched until that answer names it.
 */
import type { PaymentNotice, ProviderNotice, RefundNotice } from '../port';
import type { NoticeOutcome } from '../store/sql';
import type { PaymentRecord } from '../store/types';
import { mismatchOf } from '../../../machines/payment/verdicts';
import { canQuery, log, type LifecycleContext } from './context';

/** What became of a provider's callback. */
export interface CallbackResult {
  outcome: NoticeOutcome;
  paymentId: string | null;
}

/**
 * A provider's callback, already authenticated and parsed by its adapter. Kept first, then
 * applied: a duplicate or a late, weaker one changes nothing; one whose amount, currency or
 * reference does not match never marks anything paid (it is logged and the status asked with
 * our own key); one that names no payment yet (a Daraja callback faster than the push's answer)
 * waits unmatched until the answer tells its CheckoutRequestID.
 */
export async function onCallback(ctx: LifecycleContext, notice: ProviderNotice): Promise<CallbackResult> {
  if (notice.type === 'refund')
    return applyRefundNotice(ctx, await ctx.payments.recordNotice(ctx.provider.name, notice), notice);
  // Kept, and the payment it names read, in one statement (by our reference, else the provider's).
  const kept = await ctx.payments.keepNotice(ctx.provider.name, notice);
  const noticeId = kept.id;
  // None seen: read again now the notice has committed. The statement's snapshot may predate a
  // push answer whose early-notice look (applyEarlyNotices) ran before this notice was visible.
  const payment =
    kept.payment ??
    (notice.providerReference
      ? await ctx.payments.getByProviderReference(ctx.provider.name, notice.providerReference)
      : null);
  if (!payment) {
    log.warn('payment callback names no payment of ours: kept unmatched', {
      providerReference: notice.providerReference,
      reference: notice.reference,
      state: notice.state,
    });
    return { outcome: 'unmatched', paymentId: null };
  }
  return applyPaymentNotice(ctx, noticeId, payment, notice);
}

async function applyPaymentNotice(
  ctx: LifecycleContext,
  noticeId: string,
  payment: PaymentRecord,
  notice: PaymentNotice,
): Promise<CallbackResult> {
  const mismatch = notice.state === 'successful' ? mismatchOf(payment, notice, true) : null;
  if (mismatch !== null && ['requested', 'pending', 'unknown', 'failed'].includes(payment.state)) {
    log.error('PAYMENT CALLBACK DOES NOT MATCH ITS PAYMENT: not marked paid; asking the provider', {
      paymentId: payment.id,
      purchaseId: payment.purchaseId,
      mismatch,
      expected: payment.amount,
      told: notice.amount ?? null,
      providerReference: notice.providerReference,
    });
    await ctx.payments.settleNotice(noticeId, payment.id, 'mismatch');
    // Only our own question, keyed by what we stored, may still mark it paid.
    if (payment.state === 'pending' && canQuery(ctx, payment))
      await ctx.queue.enqueue({
        kind: 'payment-poll',
        purchaseId: payment.purchaseId,
        attempt: payment.pollAttempts,
      });
    return { outcome: 'mismatch', paymentId: payment.id };
  }
  // Noted `applied` in the statement that writes what it changes, before what that sets off (the
  // purchase's confirm); a notice that changes nothing is noted a duplicate instead.
  const { record, written } = await ctx.write(payment, { type: 'CALLBACK', notice, at: ctx.now() }, noticeId);
  if (written) return { outcome: 'applied', paymentId: payment.id };
  await ctx.payments.settleNotice(noticeId, payment.id, 'duplicate');
  log.info('payment callback changed nothing', {
    paymentId: payment.id,
    state: record.state,
    told: notice.state,
  });
  return { outcome: 'duplicate', paymentId: payment.id };
}

async function applyRefundNotice(
  ctx: LifecycleContext,
  noticeId: string,
  notice: RefundNotice,
): Promise<CallbackResult> {
  const payment = await ctx.payments.getByRefund({
    provider: ctx.provider.name,
    refundReference: notice.refundReference,
    providerReference: notice.providerReference ?? undefined,
    paymentReceipt: notice.paymentReceipt,
  });
  if (!payment?.refund) {
    log.warn('refund callback names no refund of ours: kept unmatched', {
      refundReference: notice.refundReference,
      providerReference: notice.providerReference,
    });
    return { outcome: 'unmatched', paymentId: null };
  }
  const { refund } = payment;
  if (
    notice.amount &&
    (notice.amount.currency !== refund.amount.currency || notice.amount.minor !== refund.amount.minor)
  ) {
    log.error('REFUND CALLBACK DOES NOT MATCH ITS REFUND: ignored', {
      paymentId: payment.id,
      expected: refund.amount,
      told: notice.amount,
    });
    await ctx.payments.settleNotice(noticeId, payment.id, 'mismatch');
    return { outcome: 'mismatch', paymentId: payment.id };
  }
  const { written } = await ctx.write(payment, {
    type: 'REFUND_ANSWER',
    status: notice,
    at: ctx.now(),
    random: ctx.random(),
  });
  const outcome = written ? 'applied' : 'duplicate';
  await ctx.payments.settleNotice(noticeId, payment.id, outcome);
  return { outcome, paymentId: payment.id };
}

/**
 * Callbacks that came before the collect's answer told us the provider's key. Whether one was
 * applied (the payment moved on, and what its new state calls for was done).
 */
export async function applyEarlyNotices(ctx: LifecycleContext, payment: PaymentRecord): Promise<boolean> {
  const early = await ctx.payments.unmatchedNotices(ctx.provider.name, payment.providerReference!);
  let applied = false;
  for (const { id, notice } of early) {
    const current = await ctx.payments.get(payment.id);
    if (!current || notice.type !== 'payment') continue;
    if ((await applyPaymentNotice(ctx, id, current, notice)).outcome === 'applied') applied = true;
  }
  return applied;
}

/**
 * A payment whose push answer was never written (no provider key: the write failed, the process
 * died) has its callback waiting unmatched: it names only the key we never stored. Found lost, at
 * its deadline and while `unknown`, the one success notice with its payer number and amount, in
 * its window, is adopted when it fits no other open payment (`lostPaymentNotice`), and applied as
 * any callback: paid before the purchase ended → confirmed; after → given back. Whether applied.
 * `decisive`: the look at its deadline, after which it is given up: an ambiguity is reported for
 * care there, once (the look when it is found lost, and every later re-check, log it quietly).
 */
export async function adoptLostNotice(
  ctx: LifecycleContext,
  payment: PaymentRecord,
  decisive = false,
): Promise<boolean> {
  if (payment.providerReference !== null || ctx.settings.resendSafe) return false;
  const match = await ctx.payments.lostPaymentNotice(payment, ctx.settings.marginMs);
  if (!match.found) {
    const fields = {
      paymentId: payment.id,
      purchaseId: payment.purchaseId,
      notices: match.notices,
      payments: match.payments,
    };
    if (match.notices > 0 && decisive)
      log.error('CALLBACK OF A LOST PUSH NOT MATCHED: more than one fits; left for care', fields);
    else if (match.notices > 0)
      log.info('callback of a lost push still not matched: more than one fits', fields);
    return false;
  }
  const { id, notice } = match.notice;
  if (notice.type !== 'payment') return false;
  log.warn('callback of a lost push matched by payer and amount', {
    paymentId: payment.id,
    purchaseId: payment.purchaseId,
    providerReference: notice.providerReference,
    noticeId: id,
  });
  return (await applyPaymentNotice(ctx, id, payment, notice)).outcome === 'applied';
}
