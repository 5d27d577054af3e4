/**
 * The payment lifecycle: one small class the gateway wires (queue handler, requests, callbacks,
 * refunds, the sweep) around the compare-and-set write and what each written state calls for.
 * The work itself is in `lifecycle/`: `request.ts`, `callbacks.ts`, `polling.ts`, `refunds.ts`.
 */
import { randomUUID } from 'node:crypto';
import { decidePayment, type PaymentEvent, type PaymentLifecycleSettings } from './machine';
import type { PurchaseRecord } from '../../purchases/types';
import type { Queryable } from '../../records/database';
import type { Money } from '../../vas/money';
import type { ProviderNotice } from '../port';
import type { PaymentJob } from '../queue';
import type { PurchaseGlance } from '../store/sql';
import type { UnmatchedNotice } from '../store/notices';
import { REFUND_CARE_STATES, topUpIdOf, type PaymentRecord } from '../store/types';
import { adoptLostNotice, applyEarlyNotices, onCallback, runVerify, type CallbackResult } from './callbacks';
import { premasked } from '../../observability/logger';
import { errorInfo, later, log, REVIVE, type LifecycleContext, type MoveResult } from './context';
import {
  dropPoll,
  resumeRecheck,
  resumeWaiting,
  runPoll,
  runRecheck,
  runWait,
  schedulePoll,
} from './polling';
import { refundIfDue, runRefundPoll } from './refunds';
import {
  applySpooledAnswer,
  isDatabaseBlip,
  sendCollect,
  sendRequested,
  requestTopUp,
  writeRequest,
  writeRequestWith,
  type PaymentRequestOptions,
} from './request';
import type { PaymentLifecycleOptions, PaymentOutcomeHooks } from './settings';

/**
 * A purchase needing collection with no payment row this long after it was written is ended: its
 * payment will never be asked for (a Buy writes both at once, so this is a safety net only).
 */
export const NOT_STARTED_AFTER_MS = 60_000;

/** Spooled entries applied per read of the spool. */
const SPOOL_BATCH = 100;
/** How often a process that spooled something tries to apply it. */
const SPOOL_REPLAY_EVERY_MS = 1000;

/** `tellPurchase` from the sweep. */
const SWEPT = true;

/**
 * The payment lifecycle's worker side: asks the provider to collect once per purchase, reads its
 * callbacks and status answers, gives money back once when the purchase could not be sold, and
 * resumes what a crash left behind. It asks the machine (`paymentMachine`) what each answer
 * means, writes the decision with compare-and-set, and only then does what it allows. Every
 * handler re-reads the payment, so a duplicated job or callback does nothing new.
 */
export class PaymentLifecycle {
  readonly settings: PaymentLifecycleSettings;
  private readonly hooks: PaymentOutcomeHooks;
  private readonly ctx: LifecycleContext;

  constructor(options: PaymentLifecycleOptions) {
    this.settings = options.settings;
    this.hooks = options;
    const clock = options.clock ?? (() => new Date());
    this.ctx = {
      payments: options.payments,
      purchases: options.purchases,
      provider: options.provider,
      queue: options.queue,
      hooks: options,
      settings: options.settings,
      clock,
      random: options.random ?? Math.random,
      newId: options.newId ?? randomUUID,
      spool: options.spool,
      spooled: () => this.replaySoon(),
      now: () => clock().toISOString(),
      write: (payment, event, noticeId) => this.write(payment, event, noticeId),
      move: (payment, event, noticeId, on) => this.move(payment, event, noticeId, on),
      apply: (payment, event) => this.apply(payment, event),
    };
  }

  /** The payment queue's handler. */
  readonly handle = async (job: PaymentJob): Promise<void> => {
    if (job.kind === 'refund-due') {
      await this.refundIfDue(job.purchaseId);
      return;
    }
    const payment = await this.ctx.payments.getByPurchase(job.purchaseId);
    if (!payment) return;
    if (job.kind === 'payment-poll') await runPoll(this.ctx, payment, job.attempt);
    else if (job.kind === 'payment-recheck') await runRecheck(this.ctx, payment, job.attempt);
    else if (job.kind === 'refund-poll') await runRefundPoll(this.ctx, payment, job.attempt);
    else if (job.kind === 'payment-verify') await runVerify(this.ctx, payment, job.attempt);
    else await runWait(this.ctx, payment);
  };

  /**
   * Ask the payer to pay for `purchase` (a PIN prompt on the handset), once per purchase: the
   * payment row is committed (`requested`) before the collect is sent, and a purchase that has
   * one already gets that one back with nothing sent again — even from another instance. Resolves
   * once the provider answered the collect (the payment is then `pending`, or `failed` when
   * refused); the outcome comes later by callback or status query. A Buy writes the row with its
   * purchase instead (`writeRequest`, then `sendRequested`).
   */
  async requestPayment(
    purchase: PurchaseRecord,
    options: PaymentRequestOptions = {},
  ): Promise<PaymentRecord> {
    const created = await writeRequest(this.ctx, purchase, options);
    // Another call wrote it first: that one sends the collect (or sent it, or its sweep resumes it).
    return created.created ? this.sendRequested(created.record) : created.record;
  }

  /**
   * Write the payment row (`requested`) of a purchase being written on `tx`, with it (the
   * purchase's `AlongsideWrite`): so neither exists without the other, and only if the purchase
   * is written (null otherwise: a key already taken has its payment). Sends nothing: once `tx`
   * has committed, `sendRequested` sends the collect.
   */
  writeRequestWith(
    candidate: PurchaseRecord,
    tx: Queryable,
    options: PaymentRequestOptions = {},
  ): Promise<PaymentRecord | null> {
    return writeRequestWith(this.ctx, candidate, tx, options);
  }

  /**
   * Ask an agent to pay `amount` into its own float (a PIN prompt on its handset): the top-up and
   * its one payment are written together, then the collect is sent. The same `requestKey` again
   * (a re-delivered message) sends nothing and answers the first request's payment.
   */
  async requestTopUp(request: {
    requestKey: string;
    msisdn: string;
    amount: Money;
  }): Promise<{ created: boolean; record: PaymentRecord }> {
    return requestTopUp(this.ctx, request);
  }

  /** Send the collect of a payment this caller wrote (`writeRequest`), its row committed. */
  async sendRequested(payment: PaymentRecord): Promise<PaymentRecord> {
    return sendRequested(this.ctx, payment);
  }

  /**
   * A provider's callback, already authenticated and parsed by its adapter. Kept first, then
   * applied: a duplicate or a late, weaker one changes nothing; one whose amount, currency or
   * reference does not match never marks anything paid (it is logged and the status asked with
   * our own key); one that names no payment yet (a Daraja callback faster than the push's answer)
   * waits unmatched until the answer tells its CheckoutRequestID.
   */
  async onCallback(notice: ProviderNotice): Promise<CallbackResult> {
    return onCallback(this.ctx, notice);
  }

  /**
   * A provider's callback as its route takes it: `onCallback`, and when the records cannot take
   * it (a failover, a restart), kept in the spool instead, so it can be acknowledged — Daraja
   * never sends it again — and applied once they are back. Throws only when neither took it.
   */
  async takeCallback(
    notice: ProviderNotice,
  ): Promise<CallbackResult | { outcome: 'spooled'; paymentId: null }> {
    try {
      return await onCallback(this.ctx, notice);
    } catch (error) {
      const { spool } = this.ctx;
      if (!spool || !isDatabaseBlip(error)) throw error;
      await spool.keep({ kind: 'callback', provider: this.ctx.provider.name, notice, at: this.ctx.now() });
      log.warn('payment callback spooled: the records are away', {
        spool: spool.where,
        type: notice.type,
        state: notice.state,
        providerReference: notice.providerReference,
        error: errorInfo(error).message,
      });
      this.replaySoon();
      return { outcome: 'spooled', paymentId: null };
    }
  }

  /**
   * Apply what the spool holds, oldest first, while the records take it (each entry dropped once
   * applied; one the records still refuse stops the pass). Run by every payment sweep and, after
   * something was spooled, every second until the spool is empty. How many were applied, whether
   * any are left, and how many of those the records refused (not for being away).
   */
  async replaySpool(): Promise<{ applied: number; left: boolean; refused?: number }> {
    const { spool } = this.ctx;
    if (!spool) return { applied: 0, left: false };
    let applied = 0;
    for (;;) {
      const batch = await spool.list(SPOOL_BATCH);
      if (batch.length === 0) return { applied, left: false };
      // An entry the records refuse for another reason than being away is kept (the gauge and its
      // alert show it) and passed over, so it holds up none behind it; the pass then ends.
      let refused = 0;
      for (const { id, entry } of batch) {
        try {
          if (entry.kind === 'callback') await onCallback(this.ctx, entry.notice);
          else await applySpooledAnswer(this.ctx, entry);
        } catch (error) {
          if (isDatabaseBlip(error)) return { applied, left: true };
          log.error('spooled payment notice not applied', { id, kind: entry.kind, error });
          refused += 1;
          continue;
        }
        await spool.drop(id);
        applied += 1;
      }
      if (applied > 0) log.info('spooled payment notices applied', { applied });
      if (refused > 0) return { applied, left: true, refused };
    }
  }

  private replayTimer: NodeJS.Timeout | undefined;

  /** Replay the spool every second until it is empty (one timer per lifecycle). */
  private replaySoon(): void {
    if (this.replayTimer) return;
    this.replayTimer = setInterval(() => {
      this.replaySpool()
        // Empty, or holding only what the records refuse: the sweep looks again, once a period.
        .then(({ left, refused }) => {
          if (!left || refused) this.stopReplay();
        })
        .catch((error: unknown) =>
          log.warn('payment spool replay failed', { error: errorInfo(error).message }),
        );
    }, SPOOL_REPLAY_EVERY_MS);
    this.replayTimer.unref();
  }

  /** Stop replaying the spool by timer (the sweep still does). */
  stopReplay(): void {
    if (this.replayTimer) clearInterval(this.replayTimer);
    this.replayTimer = undefined;
  }

  /**
   * Give the buyer's money back, once, if it is due: the purchase was paid and then failed
   * definitively, or the money came after the purchase was ended unpaid. Never for a purchase that
   * might have issued a token (see {@link refundDue}; the database refuses it too). The refund row
   * is committed (`refund_requested`, one per payment) before the provider is called. Returns the
   * payment as it stands, null when there is none.
   */
  async refundIfDue(purchaseId: string): Promise<PaymentRecord | null> {
    return refundIfDue(this.ctx, purchaseId);
  }

  /**
   * On start and periodically: picks up every payment a crash or a lost job left behind — a
   * `requested` row (lost once its collect can no longer be in flight), a pending payment (asked
   * again), a refund waiting for its answer, a decided payment whose purchase was not told, and
   * money kept for a purchase that was ended (given back).
   */
  async resumeStuck(): Promise<{
    resumed: number;
    told: number;
    refunds: number;
    notStarted: number;
    spooled: number;
  }> {
    const counts = { resumed: 0, told: 0, refunds: 0, notStarted: 0, spooled: 0 };
    // What the providers told while the records were away, first: it may decide what follows.
    const replayed = await this.replaySpool();
    counts.spooled = replayed.applied;
    if (replayed.left) this.replaySoon();
    counts.notStarted = await this.endNotStarted();
    for (let after: PaymentRecord | undefined; ;) {
      const page = await this.ctx.payments.listForSweep(after);
      if (page.length === 0) break;
      for (const { payment, purchaseState, purchase } of page) {
        if (['requested', 'pending', 'refund_requested'].includes(payment.state)) {
          await resumeWaiting(this.ctx, payment);
          counts.resumed += 1;
        } else if (payment.state === 'successful' && purchaseState === 'failed') {
          await this.refundIfDue(payment.purchaseId);
          counts.refunds += 1;
        } else {
          if (purchaseState === 'created') {
            // A top-up's payment has no purchase glance: tellPurchase credits its float.
            await this.tellPurchase(payment, purchase ?? undefined, SWEPT);
            counts.told += 1;
          }
          if (payment.state === 'unknown') await resumeRecheck(this.ctx, payment);
        }
      }
      after = page[page.length - 1].payment;
    }
    if (Object.values(counts).some((n) => n > 0)) log.info('payments resumed', counts);
    return counts;
  }

  /**
   * End the purchases that need collection and never got a payment row (one page a sweep). A
   * payment written for one meanwhile (never by a Buy) would find it failed: money it still
   * collects is refunded as a late payment.
   */
  private async endNotStarted(): Promise<number> {
    if (!this.hooks.onNotStarted) return 0;
    const before = new Date(this.ctx.clock().getTime() - NOT_STARTED_AFTER_MS);
    const ids = await this.ctx.payments.listNotStarted(before);
    for (const purchaseId of ids) {
      log.error('PURCHASE WITHOUT ITS PAYMENT: ended not paid, nothing bought', { purchaseId });
      await this.hooks.onNotStarted(purchaseId);
    }
    return ids.length;
  }

  /**
   * Decide `event` on the payment and write it (compare-and-set); when another writer moved it
   * first, decide again on what it wrote. Then does what the new state calls for. Returns the
   * payment as it stands and whether this call wrote it (false: its state did not take the event).
   * `on`: a transaction of the caller's (a callback's keep and move): the write is made on it, and
   * what the new state calls for is left to `moved.followUp`, to be run once it has committed.
   */
  private async write(
    payment: PaymentRecord,
    event: PaymentEvent,
    noticeId?: string,
  ): Promise<{ record: PaymentRecord; written: boolean }> {
    const moved = await this.move(payment, event, noticeId);
    await moved.followUp();
    return moved;
  }

  private async move(
    payment: PaymentRecord,
    event: PaymentEvent,
    noticeId?: string,
    on?: Queryable,
  ): Promise<MoveResult> {
    const nothing = async () => undefined;
    let current: PaymentRecord | null = payment;
    for (let i = 0; i < 5 && current; i += 1) {
      const decision = decidePayment(current, event, this.settings);
      if (!decision) {
        log.info('payment event ignored: its state does not take it', {
          paymentId: current.id,
          state: current.state,
          event: event.type,
        });
        return { record: current, written: false, followUp: nothing };
      }
      const nextAttemptAt =
        decision.delayMs === null
          ? null
          : new Date(this.ctx.clock().getTime() + decision.delayMs).toISOString();
      const next = { ...decision.next, nextAttemptAt };
      // Newly unknown: its re-checks start at round 0, at `nextAttemptAt`.
      if (next.state === 'unknown' && current.state !== 'unknown') {
        delete next.recheckRound;
        delete next.recheckAt;
      }
      const result = await this.ctx.payments.transition(current, next, noticeId, on);
      if (!result.ok) {
        current = result.current;
        continue;
      }
      const record = result.record;
      return {
        record,
        written: true,
        followUp: async () => {
          // Ids, state names, a reason code and numbers: nothing the logger's masking walk could find.
          log.info(
            'payment transition',
            premasked({
              paymentId: record.id,
              purchaseId: record.purchaseId,
              from: decision.from,
              to: record.state,
              version: record.version,
              event: event.type,
              ...(record.reason && decision.from !== record.state ? { reason: record.reason } : {}),
              ...(decision.delayMs !== null ? { nextInMs: decision.delayMs } : {}),
            }),
          );
          await this.followUp(record, decision.from, decision.delayMs, result.purchase, result.early);
        },
      };
    }
    return { record: current ?? payment, written: false, followUp: nothing };
  }

  private async apply(payment: PaymentRecord, event: PaymentEvent): Promise<PaymentRecord> {
    return (await this.write(payment, event)).record;
  }

  /** What a written state calls for next. */
  private async followUp(
    payment: PaymentRecord,
    from: PaymentRecord['state'],
    delayMs: number | null,
    purchase: PurchaseGlance | null,
    early?: UnmatchedNotice[],
  ): Promise<void> {
    switch (payment.state) {
      case 'requested':
        // pending → requested: the compare-and-set before the collect is sent again (same reference).
        if (from === 'pending') await sendCollect(this.ctx, payment);
        return;
      case 'pending':
        // An early notice applied has moved the payment on (its own follow-up done): no poll then.
        if (
          from === 'requested' &&
          payment.providerReference &&
          (await applyEarlyNotices(this.ctx, payment, early))
        )
          return;
        // Found lost with no key (its answer never written): its callback may be waiting unmatched.
        if (from === 'requested' && !payment.providerReference && (await adoptLostNotice(this.ctx, payment)))
          return;
        await schedulePoll(this.ctx, payment, delayMs ?? 0);
        return;
      case 'successful':
      case 'failed':
        if (from === 'pending') await dropPoll(this.ctx, payment);
        await this.tellPurchase(payment, purchase);
        return;
      case 'unknown':
        await this.tellPurchase(payment, purchase);
        await this.ctx.queue.enqueue(
          { kind: 'payment-recheck', purchaseId: payment.purchaseId, attempt: 0 },
          delayMs ?? this.settings.recheckEveryMs,
        );
        return;
      case 'refund_requested':
        // Just started: refundIfDue sends the refund next. Else its answer is awaited.
        if (from === 'successful') return;
        if (this.ctx.provider.refundStatus)
          await this.ctx.queue.enqueue(
            { kind: 'refund-poll', purchaseId: payment.purchaseId, attempt: payment.refund!.pollAttempts },
            delayMs ?? 0,
          );
        else
          await later(
            this.ctx,
            'payment-wait',
            payment,
            Math.max(0, Date.parse(payment.refund!.deadlineAt) - this.ctx.clock().getTime()),
          );
        return;
      case 'refunded':
        log.info('refund confirmed', { paymentId: payment.id, purchaseId: payment.purchaseId });
        await this.hooks.onRefunded?.(payment.purchaseId, payment);
        return;
      default:
        if (REFUND_CARE_STATES.includes(payment.state)) {
          log.error('REFUND NEEDS A PERSON: the buyer has not been paid back', {
            paymentId: payment.id,
            purchaseId: payment.purchaseId,
            state: payment.state,
            amount: payment.amount,
            receipt: payment.receipt,
            refundId: payment.refund?.id,
            detail: payment.refund?.detail,
          });
          await this.hooks.onRefundNeedsCare?.(payment.purchaseId, payment);
        }
    }
  }

  /**
   * Tell the purchase side what the money did, while its purchase still waits (`created`). The
   * purchase as the payment's move read it (`glance`), else read here (the sweep).
   */
  private async tellPurchase(
    payment: PaymentRecord,
    glance?: PurchaseGlance | null,
    swept = false,
  ): Promise<void> {
    const topUpId = topUpIdOf(payment.purchaseId);
    // A top-up has no purchase: its float is credited instead, and it is never refunded.
    if (topUpId !== null) {
      await this.hooks.onTopUp?.(topUpId, payment);
      return;
    }
    const purchase = glance === undefined ? await this.ctx.purchases.get(payment.purchaseId) : glance;
    if (!purchase) {
      log.error('payment for a purchase that is gone', {
        paymentId: payment.id,
        purchaseId: payment.purchaseId,
      });
      return;
    }
    if (payment.state === 'successful') {
      // From the sweep, its due attempt and time as the sweep's statement read them, and a
      // confirm job whose attempts ran out while the records were away is replaced.
      if (purchase.state === 'created' && swept)
        await this.hooks.onPaid(
          purchase.id,
          payment,
          { confirmAttempts: purchase.confirmAttempts, nextAttemptAt: purchase.nextAttemptAt ?? null },
          REVIVE,
        );
      else if (purchase.state === 'created')
        await this.hooks.onPaid(purchase.id, payment, { confirmAttempts: purchase.confirmAttempts });
      // Ended while the money came (a late success): it goes back.
      else if (purchase.state === 'failed') await this.refundIfDue(purchase.id);
      return;
    }
    if (purchase.state === 'created')
      await this.hooks.onUnpaid(
        purchase.id,
        payment.state === 'unknown' ? 'unknown' : (payment.reason ?? 'other'),
        payment,
      );
  }
}
