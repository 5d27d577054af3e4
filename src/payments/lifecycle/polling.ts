/**
 * Asking the provider and waiting: status queries of a pending payment (job `payment-poll`),
 * the re-checks of an `unknown` one (`payment-recheck`), and what a payment whose time has come
 * with nobody to ask becomes (`payment-wait`): lost, unknown at expiry, or a refund needing a person.
 */
import { decidePayment, nextRecheckMs, type PaymentEvent } from './machine';
import type { PaymentNotice } from '../port';
import type { PaymentRecord } from '../store/types';
import { adoptLostNotice } from './callbacks';
import { canQuery, errorInfo, later, log, REVIVE, type LifecycleContext } from './context';

/** A status query for a pending payment (job `payment-poll`); a stale job (older attempt) does nothing. */
export async function runPoll(ctx: LifecycleContext, payment: PaymentRecord, attempt: number): Promise<void> {
  if (payment.state === 'requested' || (payment.state === 'pending' && !canQuery(ctx, payment))) {
    await runWait(ctx, payment);
    return;
  }
  if (payment.state !== 'pending' || attempt !== payment.pollAttempts) return;
  await applyStatus(ctx, payment, await statusEvent(ctx, payment));
}

/**
 * Write a status answer. One saying paid that the payment no longer takes because a failure
 * callback decided it first is a success signal against a failure: it moves nothing (which one is
 * right is a person's call), and is kept as an `overruled` notice that care lists (unmatched.ts).
 */
async function applyStatus(
  ctx: LifecycleContext,
  payment: PaymentRecord,
  event: PaymentEvent,
): Promise<void> {
  const { record, written } = await ctx.write(payment, event);
  if (written || event.type !== 'STATUS' || event.status.state !== 'successful' || record.state !== 'failed')
    return;
  log.error('PROVIDER STATUS SAYS PAID AFTER A FAILURE DECIDED THE PAYMENT: nothing moved; kept for care', {
    paymentId: record.id,
    purchaseId: record.purchaseId,
    reason: record.reason,
    amount: event.status.amount ?? null,
  });
  const notice: PaymentNotice = {
    type: 'payment',
    ...event.status,
    reference: record.id,
    ...(record.providerReference !== null && { providerReference: record.providerReference }),
    // A query's answer may leave the amount out (Daraja's): the amount asked for is what it paid.
    amount: event.status.amount ?? record.amount,
    payerMsisdn: record.payerMsisdn,
  };
  await ctx.payments.keepSettledNotice(ctx.provider.name, notice, record.id, 'overruled');
}

async function statusEvent(ctx: LifecycleContext, payment: PaymentRecord): Promise<PaymentEvent> {
  try {
    const status = await ctx.provider.status(
      { reference: payment.id, providerReference: payment.providerReference },
      { requestId: `status-${payment.id}-${payment.pollAttempts}` },
    );
    return { type: 'STATUS', status, at: ctx.now(), random: ctx.random() };
  } catch (error) {
    return { type: 'STATUS_ERR', error: errorInfo(error), at: ctx.now(), random: ctx.random() };
  }
}

/**
 * A payment whose time has come without anyone to ask (job `payment-wait`): a `requested` row
 * whose sender can no longer be calling is lost (then asked about, never pushed again for
 * Daraja); a payment that cannot be queried is `unknown` at its expiry; a refund nobody
 * answered needs a person at its deadline.
 */
export async function runWait(ctx: LifecycleContext, payment: PaymentRecord): Promise<void> {
  const now = ctx.clock().getTime();
  if (payment.state === 'requested') {
    const lostAt = lostAtMs(ctx, payment);
    if (now < lostAt) await later(ctx, 'payment-wait', payment, lostAt - now);
    else await ctx.apply(payment, { type: 'REQUEST_LOST', at: ctx.now() });
  } else if (payment.state === 'pending') {
    if (canQuery(ctx, payment)) {
      await ctx.queue.enqueue({
        kind: 'payment-poll',
        purchaseId: payment.purchaseId,
        attempt: payment.pollAttempts,
      });
      return;
    }
    const expiry = Date.parse(payment.expiresAt);
    if (now < expiry) await later(ctx, 'payment-wait', payment, expiry - now);
    // Its callback, come while nobody knew its key, is looked for once more before giving up.
    else if (!(await adoptLostNotice(ctx, payment, true)))
      await ctx.apply(payment, { type: 'DEADLINE', at: ctx.now() });
  } else if (payment.state === 'refund_requested' && payment.refund) {
    const deadline = Date.parse(payment.refund.deadlineAt);
    if (now >= deadline) await ctx.apply(payment, { type: 'DEADLINE', at: ctx.now() });
    else if (ctx.provider.refundStatus)
      await ctx.queue.enqueue({
        kind: 'refund-poll',
        purchaseId: payment.purchaseId,
        attempt: payment.refund.pollAttempts,
      });
    else await later(ctx, 'payment-wait', payment, deadline - now);
  }
}

/** When a `requested` row's sender can no longer be calling the provider. */
function lostAtMs(ctx: LifecycleContext, payment: PaymentRecord): number {
  return Date.parse(payment.requestSentAt) + ctx.settings.requestTimeoutMs + ctx.settings.lostMarginMs;
}

/** Ask about an `unknown` payment now and then: money that came after all is recorded (and given back). */
export async function runRecheck(
  ctx: LifecycleContext,
  payment: PaymentRecord,
  round: number,
): Promise<void> {
  if (payment.state !== 'unknown' || nextRecheckMs(payment, ctx.now(), ctx.settings, 0) === null) return;
  // One chain per payment: a round other than the one noted due is a stale copy (a sweep's revival
  // raced the chain's own next step) and asks nothing. Every sweep starting a chain of its own
  // multiplied the queries after an outage, into the provider's spike arrest.
  if (round !== (payment.recheckRound ?? 0)) return;
  if (canQuery(ctx, payment)) {
    const event = await statusEvent(ctx, payment);
    const decided = decidePayment(payment, event, ctx.settings);
    if (decided) {
      await applyStatus(ctx, payment, event);
      return;
    }
  } else if (await adoptLostNotice(ctx, payment)) return;
  const delay = nextRecheckMs(payment, ctx.now(), ctx.settings, round + 1);
  if (delay === null) return;
  // Noted before it is queued: the sweep resumes from here if the job is lost.
  await ctx.payments.noteRecheck(
    payment.id,
    round + 1,
    new Date(ctx.clock().getTime() + delay).toISOString(),
  );
  await ctx.queue.enqueue(
    { kind: 'payment-recheck', purchaseId: payment.purchaseId, attempt: round + 1 },
    delay,
  );
}

/** The sweep: an `unknown` payment's chain of re-checks, resumed at the round and time it noted. */
export async function resumeRecheck(ctx: LifecycleContext, payment: PaymentRecord): Promise<void> {
  const due = Date.parse(payment.recheckAt ?? payment.nextAttemptAt ?? '') - ctx.clock().getTime();
  await ctx.queue.enqueue(
    { kind: 'payment-recheck', purchaseId: payment.purchaseId, attempt: payment.recheckRound ?? 0 },
    Number.isFinite(due) ? Math.max(0, due) : 0,
    REVIVE,
  );
}

export async function schedulePoll(
  ctx: LifecycleContext,
  payment: PaymentRecord,
  delayMs: number,
): Promise<void> {
  if (canQuery(ctx, payment))
    await ctx.queue.enqueue(
      { kind: 'payment-poll', purchaseId: payment.purchaseId, attempt: payment.pollAttempts },
      delayMs,
    );
  // Nothing to ask with (a Daraja push whose answer was lost): wait for a callback until expiry.
  else
    await later(
      ctx,
      'payment-wait',
      payment,
      Math.max(0, Date.parse(payment.expiresAt) - ctx.clock().getTime()),
    );
}

/**
 * A pending payment just decided (a callback, an early notice): its scheduled status poll is moot,
 * dropped while still waiting for its time. One already running reads the decided payment and does
 * nothing, as does any the queue cannot drop.
 */
export async function dropPoll(ctx: LifecycleContext, payment: PaymentRecord): Promise<void> {
  if (!ctx.queue.cancel) return;
  try {
    await ctx.queue.cancel({
      kind: 'payment-poll',
      purchaseId: payment.purchaseId,
      attempt: payment.pollAttempts,
    });
  } catch (error) {
    // Only a saving: the poll, if it runs, reads the decided payment and does nothing.
    log.warn('moot status poll not dropped', { paymentId: payment.id, error: errorInfo(error).message });
  }
}

export async function resumeWaiting(ctx: LifecycleContext, payment: PaymentRecord): Promise<void> {
  const now = ctx.clock().getTime();
  if (payment.state === 'pending' && canQuery(ctx, payment)) {
    const due = payment.nextAttemptAt ? Date.parse(payment.nextAttemptAt) - now : 0;
    await ctx.queue.enqueue(
      { kind: 'payment-poll', purchaseId: payment.purchaseId, attempt: payment.pollAttempts },
      Math.max(0, due),
      REVIVE,
    );
  } else if (payment.state === 'refund_requested' && payment.refund && ctx.provider.refundStatus) {
    const due = payment.nextAttemptAt ? Date.parse(payment.nextAttemptAt) - now : 0;
    await ctx.queue.enqueue(
      { kind: 'refund-poll', purchaseId: payment.purchaseId, attempt: payment.refund.pollAttempts },
      Math.max(0, due),
      REVIVE,
    );
  } else {
    await runWait(ctx, payment);
  }
}
