/**
 * Providers' callbacks: each notice kept first, then matched to our payment or refund and given
 * to the machine; a mismatched one never marks anything paid, and one that came before the
 * collect's answer waits unmatched until that answer names it.
 */
import type { PaymentNotice, PaymentStatus, ProviderNotice, RefundNotice } from '../port';
import type { NoticeOutcome } from '../store/sql';
import type { PaymentRecord, PaymentRecordState } from '../store/types';
import { mismatchOf, pollDelayMs } from './verdicts';
import type { UnmatchedNotice } from '../store/notices';
import { canQuery, errorInfo, log, type LifecycleContext, type MoveResult } from './context';
import { isDatabaseBlip } from './request';

/** The states a success can still decide (a failed one: money that came after all, given back). */
const OPEN_TO_SUCCESS: readonly PaymentRecordState[] = ['requested', 'pending', 'unknown', 'failed'];

/**
 * Status queries asked about success callbacks the provider does not vouch for, at most (the
 * first included), backing off as the polls do: past them, the notice is left for care.
 */
export const VERIFY_ROUNDS = 6;

/** What became of a provider's callback. */
export interface CallbackResult {
  outcome: NoticeOutcome;
  paymentId: string | null;
}

/**
 * A provider's callback, already authenticated and parsed by its adapter. Kept first, then
 * applied: a duplicate or a late, weaker one changes nothing; one whose amount, currency or
 * reference does not match never marks anything paid (it is logged and the status asked with
 * our own key); a success the provider does not vouch for (MoMo's, which only our URL's key
 * admits) is `unverified` until the provider's own status says paid (`runVerify`); one that names
 * no payment yet (a Daraja callback faster than the push's answer) waits unmatched until the
 * answer tells its CheckoutRequestID.
 */
export async function onCallback(ctx: LifecycleContext, notice: ProviderNotice): Promise<CallbackResult> {
  if (notice.type === 'refund')
    return applyRefundNotice(ctx, await ctx.payments.recordNotice(ctx.provider.name, notice), notice);
  let taken: { noticeId: string; payment: PaymentRecord | null; moved: MoveResult | null };
  try {
    taken = await keepAndMove(ctx, notice);
  } catch (error) {
    // Away: the route spools it. Refused otherwise: kept on its own first, then applied as before.
    if (isDatabaseBlip(error)) throw error;
    const kept = await ctx.payments.keepNotice(ctx.provider.name, notice);
    taken = { noticeId: kept.id, payment: kept.payment, moved: null };
  }
  const { noticeId, payment, moved } = taken;
  if (!payment) {
    log.warn('payment callback names no payment of ours: kept unmatched', {
      providerReference: notice.providerReference,
      reference: notice.reference,
      state: notice.state,
    });
    return { outcome: 'unmatched', paymentId: null };
  }
  if (!moved) return applyPaymentNotice(ctx, noticeId, payment, notice);
  // Committed: what the payment's new state calls for (the purchase's confirm) is done now.
  await moved.followUp();
  if (moved.written) return { outcome: 'applied', paymentId: payment.id };
  log.info('payment callback changed nothing', {
    paymentId: payment.id,
    state: moved.record.state,
    told: notice.state,
  });
  return { outcome: 'duplicate', paymentId: payment.id };
}

/**
 * The callback's one transaction: the notice kept with the payment it names read (under the
 * provider key's lock, so a push answer committing at the same moment is seen, or sees it), and,
 * when the notice is for that payment as it stands, the payment moved with the notice noted
 * `applied` (or the notice noted a duplicate). A mismatch or a success to verify is left to
 * `applyPaymentNotice` once the notice has committed.
 */
async function keepAndMove(
  ctx: LifecycleContext,
  notice: PaymentNotice,
): Promise<{ noticeId: string; payment: PaymentRecord | null; moved: MoveResult | null }> {
  return ctx.payments.keepingNotice(ctx.provider.name, notice, async (kept, tx) => {
    const { payment } = kept;
    const plain = payment !== null && routeOf(ctx, payment, notice) === 'write';
    if (!plain) return { noticeId: kept.id, payment, moved: null };
    const event = {
      type: 'CALLBACK',
      notice,
      vouched: vouchedFor(ctx, payment, notice),
      at: ctx.now(),
    } as const;
    const moved = await ctx.move(payment, event, kept.id, tx);
    if (!moved.written) await ctx.payments.settleNotice(kept.id, payment.id, 'duplicate', tx);
    return { noticeId: kept.id, payment, moved };
  });
}

/**
 * How a payment notice is taken: one whose success does not match an open payment never marks it
 * paid (`mismatch`); a success the provider does not vouch for is verified first (`unverified`);
 * any other is written as the machine decides (`write`).
 */
function routeOf(
  ctx: LifecycleContext,
  payment: PaymentRecord,
  notice: PaymentNotice,
): 'mismatch' | 'unverified' | 'write' {
  const open = OPEN_TO_SUCCESS.includes(payment.state);
  if (notice.state !== 'successful' || !open) return 'write';
  if (mismatchOf(payment, notice, true) !== null) return 'mismatch';
  return vouchedFor(ctx, payment, notice) ? 'write' : 'unverified';
}

async function applyPaymentNotice(
  ctx: LifecycleContext,
  noticeId: string,
  payment: PaymentRecord,
  notice: PaymentNotice,
): Promise<CallbackResult> {
  const route = routeOf(ctx, payment, notice);
  if (route === 'mismatch') {
    // Pending: asked about below. Unknown or failed: the provider says money moved that this
    // payment cannot take; the notice is listed for care (unmatched.ts) while the payment stays so.
    log.error(
      'PAYMENT CALLBACK DOES NOT MATCH ITS PAYMENT: not marked paid; kept for care, the provider asked',
      {
        paymentId: payment.id,
        purchaseId: payment.purchaseId,
        mismatch: mismatchOf(payment, notice, true),
        expected: payment.amount,
        told: notice.amount ?? null,
        providerReference: notice.providerReference,
      },
    );
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
  const vouched = vouchedFor(ctx, payment, notice);
  if (route === 'unverified') {
    // Our URL's key is all it has (a URL a proxy may have logged): the provider's own status decides.
    log.warn('success callback the provider does not vouch for: its status is asked before it is applied', {
      paymentId: payment.id,
      purchaseId: payment.purchaseId,
      state: payment.state,
      noticeId,
    });
    await ctx.payments.settleNotice(noticeId, payment.id, 'unverified');
    await ctx.queue.enqueue({ kind: 'payment-verify', purchaseId: payment.purchaseId, attempt: 0 });
    return { outcome: 'unverified', paymentId: payment.id };
  }
  // Noted `applied` in the statement that writes what it changes, before what that sets off (the
  // purchase's confirm); a notice that changes nothing is noted a duplicate instead.
  const { record, written } = await ctx.write(
    payment,
    { type: 'CALLBACK', notice, vouched, at: ctx.now() },
    noticeId,
  );
  if (written) return { outcome: 'applied', paymentId: payment.id };
  await ctx.payments.settleNotice(noticeId, payment.id, 'duplicate');
  log.info('payment callback changed nothing', {
    paymentId: payment.id,
    state: record.state,
    told: notice.state,
  });
  return { outcome: 'duplicate', paymentId: payment.id };
}

/**
 * Whether the provider itself stands behind a notice as it came (see `CallbackProof`): signed,
 * or naming the provider's own key for the payment, which we stored from the collect's answer.
 */
function vouchedFor(ctx: LifecycleContext, payment: PaymentRecord, notice: PaymentNotice): boolean {
  switch (ctx.provider.callbackProof) {
    case 'signature':
      return true;
    case 'provider_key':
      return payment.providerReference !== null && notice.providerReference === payment.providerReference;
    default:
      return false;
  }
}

/** What the provider's status said of a success notice it does not vouch for. */
type Verification = 'applied' | 'refuted' | 'undecided' | 'moot';

/**
 * Ask the provider's own status about a success notice it does not vouch for, keyed by what we
 * stored (else the key the notice names: a Daraja push whose answer was lost), and apply the
 * notice only when the answer says paid, this payment's amount: `applied`. A definite "not paid"
 * (a not-found only when asked again, `round` ≥ 1: MoMo's store may lag) refutes it — forged, or
 * sent in error — and it is never applied: `refuted`. Pending, or no answer: `undecided`. `moot`:
 * the payment was decided meanwhile.
 */
async function verifyNotice(
  ctx: LifecycleContext,
  payment: PaymentRecord,
  noticeId: string,
  notice: PaymentNotice,
  round: number,
): Promise<Verification> {
  if (!OPEN_TO_SUCCESS.includes(payment.state)) {
    await ctx.payments.settleNotice(noticeId, payment.id, 'duplicate');
    return 'moot';
  }
  const key = payment.providerReference ?? notice.providerReference ?? null;
  if (key === null && !ctx.settings.resendSafe) return 'undecided';
  let status: PaymentStatus;
  try {
    status = await ctx.provider.status(
      { reference: payment.id, providerReference: key },
      { requestId: `verify-${payment.id}-${noticeId}-${round}` },
    );
  } catch (error) {
    log.warn('status of a success callback not answered: asked again later', {
      paymentId: payment.id,
      noticeId,
      error: errorInfo(error).message,
    });
    return 'undecided';
  }
  const fields = { paymentId: payment.id, purchaseId: payment.purchaseId, noticeId, told: status.state };
  if (status.state === 'successful') {
    const mismatch = mismatchOf({ ...payment, providerReference: key }, status, false);
    if (mismatch === null) {
      const event = { type: 'CALLBACK', notice, vouched: true, at: ctx.now() } as const;
      const { written } = await ctx.write(payment, event, noticeId);
      if (written) {
        log.info('success callback confirmed by the provider status: applied', fields);
        return 'applied';
      }
      await ctx.payments.settleNotice(noticeId, payment.id, 'duplicate');
      return 'moot';
    }
    log.error('PROVIDER STATUS SAYS PAID, BUT NOT THIS PAYMENT: the callback is not applied; kept for care', {
      ...fields,
      mismatch,
    });
    await ctx.payments.settleNotice(noticeId, payment.id, 'mismatch');
    return 'refuted';
  }
  if (status.state === 'failed' && (status.reason !== 'not_found' || round >= 1)) {
    log.error('SUCCESS CALLBACK REFUTED BY THE PROVIDER STATUS: not marked paid (forged, or sent in error)', {
      ...fields,
      reason: status.reason,
    });
    await ctx.payments.settleNotice(noticeId, payment.id, 'refuted');
    return 'refuted';
  }
  return 'undecided';
}

/**
 * The success notices of a payment waiting for its provider's status (job `payment-verify`,
 * attempt = round): each asked about once a round; while any is undecided, asked again later (as
 * the polls back off), at most VERIFY_ROUNDS times, then left for care (unmatched.ts lists it).
 */
export async function runVerify(ctx: LifecycleContext, payment: PaymentRecord, round: number): Promise<void> {
  let undecided = 0;
  for (const { id, notice } of await ctx.payments.unverifiedNotices(payment.id)) {
    const current = (await ctx.payments.get(payment.id)) ?? payment;
    if (notice.type === 'payment' && (await verifyNotice(ctx, current, id, notice, round)) === 'undecided')
      undecided += 1;
  }
  if (undecided === 0) return;
  if (round + 1 < VERIFY_ROUNDS)
    await ctx.queue.enqueue(
      { kind: 'payment-verify', purchaseId: payment.purchaseId, attempt: round + 1 },
      pollDelayMs(ctx.settings, round, ctx.random()),
    );
  else
    log.error(
      'SUCCESS CALLBACK NEITHER CONFIRMED NOR REFUTED BY THE PROVIDER STATUS: not marked paid; left for care',
      {
        paymentId: payment.id,
        purchaseId: payment.purchaseId,
        notices: undecided,
      },
    );
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
export async function applyEarlyNotices(
  ctx: LifecycleContext,
  payment: PaymentRecord,
  kept?: UnmatchedNotice[],
): Promise<boolean> {
  // As the statement that wrote the key read them under its lock, else read now.
  const early = kept ?? (await ctx.payments.unmatchedNotices(ctx.provider.name, payment.providerReference!));
  if (early.length === 0) return false;
  let applied = false;
  // The payment as just written, for the first; read again after each, which may have moved it.
  let known: PaymentRecord | null = kept ? payment : null;
  for (const { id, notice } of early) {
    const current = known ?? (await ctx.payments.get(payment.id));
    known = null;
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
  log.warn('callback of a lost push matched by payer and amount: its CheckoutRequestID is queried', {
    paymentId: payment.id,
    purchaseId: payment.purchaseId,
    providerReference: notice.providerReference,
    noticeId: id,
  });
  // Payer and amount are no proof (anyone holding our URL's key could send them): only the
  // provider's status for the key the notice names may make it this payment's money. Undecided,
  // the notice stays unmatched and is looked at again at the next re-check.
  return (await verifyNotice(ctx, payment, id, notice, decisive ? 1 : 0)) === 'applied';
}
