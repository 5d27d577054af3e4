import { decide, nextRecheckMs, type Decision, type LifecycleSettings, type PurchaseEvent } from './machine';
import { componentLogger } from '../../observability/logger';
import { errorInfo } from '../../vas/error-info';
import type { PurchaseService, Transaction } from '../../vas/port';
import { OutcomeHandOver, type PurchaseNotifier, type PurchaseSettlement } from '../hand-over';
import type { JobQueue, PurchaseJob } from '../../queue';
import { confirmRequest, retryRequest } from '../request';
import { resumeStuck, type ResumeCounts } from '../resume';
import { SETTLED_STATES, type PurchasePatch, type PurchaseStore } from '../store';
import { writeTransition, type TransitionWrite } from './transition';
import { RECHECKED_STATES, type PurchaseRecord, type PurchaseState } from '../types';

const log = componentLogger('purchases');

export interface PurchaseLifecycleOptions {
  store: PurchaseStore;
  service: PurchaseService;
  queue: JobQueue;
  notifier?: PurchaseNotifier;
  /** Called on every settled outcome before it is told (a field agent's float); see hand-over.ts. */
  settlement?: PurchaseSettlement;
  settings: LifecycleSettings;
  clock?: () => Date;
  random?: () => number;
  /** Records the sweep reads per store call; it pages until it has seen them all. */
  sweepPageSize?: number;
}

/**
 * A first success (not a corrected outcome, which clears the note): settled, written and told in
 * one commit. Other outcomes are written, then handed over (their settlement may release money).
 */
function tellsWithOutcome(decision: Decision): boolean {
  return (
    decision.to === 'succeeded' && !SETTLED_STATES.includes(decision.from) && decision.from !== 'resolved'
  );
}

const SWEEP_PAGE_SIZE = 1000;

/** The records refused a move to `succeeded`: the purchase's payment is being refunded (migration 0019). */
function isSuccessAfterRefund(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string; message?: string } | null;
  return (
    e?.code === '23514' &&
    (e.constraint === 'purchase_success_after_refund' ||
      /cannot succeed: its payment is being refunded/.test(e.message ?? ''))
  );
}

/**
 * The purchase lifecycle's worker side: runs the confirm and reconcile jobs, resumes what a
 * crash left behind, and hands settled outcomes over (settlement, then SMS: hand-over.ts). It
 * asks the machine (`purchaseMachine`) what a call's answer means, writes that decision with
 * compare-and-set, and only then does what it allows. Every handler re-reads the record, so a re-delivered or
 * duplicated job does nothing new.
 */
export class PurchaseLifecycle {
  private readonly store: PurchaseStore;
  private readonly service: PurchaseService;
  private readonly queue: JobQueue;
  private readonly outcomes: OutcomeHandOver;
  readonly settings: LifecycleSettings;
  private readonly clock: () => Date;
  private readonly random: () => number;
  private readonly sweepPageSize: number;

  constructor(options: PurchaseLifecycleOptions) {
    this.store = options.store;
    this.service = options.service;
    this.queue = options.queue;
    this.settings = options.settings;
    this.clock = options.clock ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.sweepPageSize = options.sweepPageSize ?? SWEEP_PAGE_SIZE;
    this.outcomes = new OutcomeHandOver({
      store: this.store,
      notifier: options.notifier,
      settlement: options.settlement,
      now: () => this.now(),
    });
  }

  /** The queue's handler. */
  readonly handle = async (job: PurchaseJob): Promise<void> => {
    if (job.kind === 'confirm') await this.runConfirm(job.purchaseId, job.attempt);
    else if (job.kind === 'recheck') await this.runRecheck(job.purchaseId, job.attempt);
    else if (job.kind === 'lost-check') await this.runLostCheck(job.purchaseId, job.attempt);
    else await this.runReconcile(job.purchaseId);
  };

  private now(): string {
    return this.clock().toISOString();
  }

  /**
   * Confirm at most once per `created` state: the CAS to `confirming` comes first. `attempt` is
   * the job's (`confirmAttempts` when it was scheduled); a job of an earlier attempt is stale (a
   * duplicate enqueued from an old read) and must neither mark a live confirm lost nor skip the
   * wait (backoff, Retry-After) before the attempt that is due.
   */
  async runConfirm(id: string, attempt?: number): Promise<void> {
    // The read and the compare-and-set to `confirming` are one transaction (one commit), which is
    // committed in the system of record before the confirm is sent: that commit is what makes a
    // second confirm for this intent impossible. Anything else the record calls for runs after.
    const { record, started } = await this.store.withRecord(id, async (read, tx) => {
      const due = read?.state === 'created' && (attempt === undefined || attempt === read.confirmAttempts);
      if (!read || !due) return { record: read, started: null };
      const decision = decide(read, { type: 'CONFIRM_START', at: this.now() }, this.settings);
      const written = decision ? await this.write(read, decision, undefined, tx) : null;
      return { record: read, started: written?.ok ? written.record : null };
    });
    if (!record) return;
    if (started) {
      const event = await this.answerOf('CONFIRM', () =>
        this.service.confirm(confirmRequest(started), {
          requestId: `confirm-${started.id}-${started.confirmAttempts}`,
        }),
      );
      await this.applyOutcome(started, event);
      return;
    }
    if (record.state === 'confirming') {
      if (attempt !== undefined && attempt !== record.confirmAttempts - 1) {
        log.info('stale confirm job ignored: another attempt is confirming', {
          purchaseId: record.id,
          jobAttempt: attempt,
          confirmAttempts: record.confirmAttempts,
        });
        return;
      }
      // The job that sent this confirm runs again: its worker is gone (stalled job, or a retry after a crash).
      await this.markLost(record);
      return;
    }
    if (record.state !== 'created') {
      await this.handOver(record);
      return;
    }
    if (attempt !== undefined && attempt !== record.confirmAttempts) {
      // Make sure the due attempt is queued (a no-op when it is), at its time, then leave it to that job.
      const due = record.nextAttemptAt ? Date.parse(record.nextAttemptAt) - this.clock().getTime() : 0;
      await this.queue.enqueue(
        { kind: 'confirm', purchaseId: record.id, attempt: record.confirmAttempts },
        Math.max(0, due),
      );
    }
    // Otherwise another worker won the compare-and-set: it sends, not us.
  }

  /** One confirm or retry call as the machine's event: its answer, or its error as plain data. */
  private async answerOf(
    kind: 'CONFIRM' | 'RETRY',
    call: () => Promise<Transaction>,
  ): Promise<PurchaseEvent> {
    try {
      const tx = await call();
      return { type: `${kind}_OK`, tx, at: this.now(), random: this.random() };
    } catch (error) {
      return { type: `${kind}_ERR`, error: errorInfo(error), at: this.now(), random: this.random() };
    }
  }

  /**
   * Re-check a verdict that is not a fact (no charge found, needs_attention) at a low frequency:
   * a success found late corrects the outcome and the token is sent.
   */
  async runRecheck(id: string, round: number): Promise<void> {
    const record = await this.store.get(id);
    if (!record || !RECHECKED_STATES.includes(record.state)) return;
    if (nextRecheckMs(record, this.now(), this.settings, 0) === null) return;
    // One chain per verdict: a round other than the one noted due is a stale copy (a sweep's revival
    // raced the chain's own next step) and asks nothing.
    if (round !== (record.recheckRound ?? 0)) return;
    try {
      const tx = await this.service.retry(retryRequest(record), {
        requestId: `recheck-${record.id}-${round}`,
      });
      if (tx.status === 'SUCCESSFUL') {
        log.error('PURCHASE FOUND SUCCESSFUL AFTER ITS VERDICT: correcting it and sending the token', {
          purchaseId: record.id,
          state: record.state,
          externalReference: record.externalReference,
        });
        await this.applyOutcome(record, { type: 'RECHECK_OK', tx, at: this.now() });
        return;
      }
    } catch {
      // Not found, refused, unreachable: the verdict stands until the next re-check.
    }
    await this.scheduleRecheck(record, round + 1);
  }

  /**
   * The next round of a verdict's re-checks: noted on the record first (the sweep resumes the
   * chain from there if its job is lost or fails for good), then queued.
   */
  private async scheduleRecheck(record: PurchaseRecord, round: number): Promise<void> {
    const delayMs = nextRecheckMs(record, this.now(), this.settings, round);
    if (delayMs === null) return;
    await this.store.noteRecheck(record.id, round, new Date(this.clock().getTime() + delayMs).toISOString());
    await this.queue.enqueue({ kind: 'recheck', purchaseId: record.id, attempt: round }, delayMs);
  }

  /** Ask `retry` for an `unknown`/`reconciling` record; never confirms. */
  async runReconcile(id: string): Promise<void> {
    let record = await this.store.get(id);
    if (!record) return;
    if (record.state === 'unknown') {
      record = await this.apply(record, { type: 'RECONCILE_START', at: this.now() });
      if (!record) return;
    }
    if (record.state !== 'reconciling') {
      await this.handOver(record);
      return;
    }
    const asked = record;
    const event = await this.answerOf('RETRY', () =>
      this.service.retry(retryRequest(asked), {
        requestId: `reconcile-${asked.id}-${asked.reconcileAttempts}`,
      }),
    );
    await this.applyOutcome(record, event);
  }

  /**
   * On start and by the sweep: what a crash left half-done queued again (resume.ts); a
   * `confirming` record is lost only once its confirm can no longer be in flight.
   */
  resumeStuck(): Promise<ResumeCounts> {
    return resumeStuck({
      store: this.store,
      queue: this.queue,
      settings: this.settings,
      clock: this.clock,
      sweepPageSize: this.sweepPageSize,
      markLost: (record, delayMs) => this.markLost(record, delayMs),
      scheduleReconcile: (record, delayMs, options) => this.scheduleReconcile(record, delayMs, options),
      handOver: (record) => this.handOver(record),
    });
  }

  /** Settle a settled outcome not yet handed over, hand it to the notifier, note it (hand-over.ts). */
  handOver(record: PurchaseRecord): Promise<void> {
    return this.outcomes.handOver(record);
  }

  /** `resendSms` of the desk: only outcomes the subscriber was (or will be) told about. */
  resend(id: string, requestKey: string, recipients?: readonly string[]): Promise<void> {
    return this.outcomes.resend(id, requestKey, recipients);
  }

  /**
   * `confirming` with nobody answering for it → `unknown`, reconciled after `delayMs` (the base
   * delay when its confirm may still be in flight; at once when it can no longer be).
   */
  private async markLost(record: PurchaseRecord, delayMs = this.settings.baseDelayMs): Promise<void> {
    const lost = await this.apply(record, { type: 'CONFIRM_LOST', at: this.now() });
    if (lost) await this.followUp(lost, delayMs);
  }

  /**
   * The `lost-check` job: a `confirming` record found without a worker (at start, by the sweep)
   * whose confirm `attempt` can no longer be in flight is lost; reconcile it now rather than at
   * the next sweep. The job's delay was computed to land past that point (the margin covers the
   * clocks of the process that scheduled it and this one). A record that moved on (its worker was
   * alive after all) is left alone.
   */
  async runLostCheck(id: string, attempt: number): Promise<void> {
    const record = await this.store.get(id);
    if (!record || record.state !== 'confirming' || record.confirmAttempts !== attempt) return;
    log.warn('confirm left by a dead worker: reconciling', {
      purchaseId: record.id,
      externalReference: record.externalReference,
      confirmSentAt: record.confirmSentAt,
    });
    await this.markLost(record, 0);
  }

  private async scheduleReconcile(
    record: PurchaseRecord,
    delayMs?: number,
    options?: { replaceFailed?: boolean },
  ): Promise<void> {
    const due = record.nextAttemptAt ? Date.parse(record.nextAttemptAt) - this.clock().getTime() : 0;
    await this.queue.enqueue(
      { kind: 'reconcile', purchaseId: record.id, attempt: record.reconcileAttempts },
      Math.max(0, delayMs ?? due),
      options,
    );
  }

  /**
   * Write the outcome of a call; if the record moved meanwhile, a late success still settles it.
   * A success the records refuse because the purchase's refund started first is a late success.
   */
  private async applyOutcome(record: PurchaseRecord, event: PurchaseEvent): Promise<void> {
    try {
      await this.writeOutcome(record, event);
    } catch (error) {
      if (!isSuccessAfterRefund(error) || !('tx' in event)) throw error;
      const current = (await this.store.get(record.id)) ?? record;
      await this.lateSuccess(current, event.tx, 'refund started');
    }
  }

  private async writeOutcome(record: PurchaseRecord, event: PurchaseEvent): Promise<void> {
    let current: PurchaseRecord | null = record;
    for (let i = 0; i < 3; i += 1) {
      if (!current) {
        // The record is gone (purged, or deleted by hand): a success still reaches the subscriber.
        if ('tx' in event && event.tx.status === 'SUCCESSFUL')
          await this.outcomes.lateSuccess(record, event.tx, 'gone');
        return;
      }
      const decision = decide(current, event, this.settings);
      if (!decision) {
        if ('tx' in event && event.tx.status === 'SUCCESSFUL') {
          await this.lateSuccess(current, event.tx, current.state);
          return;
        }
        log.info('purchase outcome ignored: record moved on', {
          purchaseId: current.id,
          state: current.state,
          event: event.type,
        });
        return;
      }
      if (tellsWithOutcome(decision)) {
        const told = await this.writeTold(current, decision, event);
        if (told === null) {
          current = await this.store.get(current.id);
          continue;
        }
        if (told !== 'unavailable') {
          await this.followUp(told, decision.delayMs);
          return;
        }
      }
      const result = await this.write(current, decision);
      if (result.ok) {
        await this.followUp(result.record, decision.delayMs);
        return;
      }
      current = result.current;
    }
  }

  /**
   * A success the record cannot take (settled otherwise, or its refund started first: `why`). Noted
   * on the record first — from then on the records refuse a refund of its payment — then its token
   * is settled and sent (never lost), then a failed purchase goes to the care queue with both facts
   * (`needs_attention`): the buyer paid and holds a token, and may also have been paid back.
   */
  private async lateSuccess(record: PurchaseRecord, tx: Transaction, why: string): Promise<void> {
    if (record.state === 'succeeded') {
      await this.outcomes.lateSuccess(record, tx, record.state);
      return;
    }
    await this.store.noteLateSuccess(record.id, {
      at: this.now(),
      reference: tx.reference ?? null,
      transactionId: tx.id ?? null,
    });
    await this.outcomes.lateSuccess(record, tx, why);
    if (record.state === 'failed')
      await this.paymentOutcome(record.id, {
        type: 'REFUND_STUCK',
        detail:
          `the service issued a token after the purchase ${why === 'refund started' ? 'was being refunded' : 'had failed'} ` +
          `(transaction ${tx.id ?? tx.reference ?? 'unknown'}): the token was sent to the buyer; ` +
          (why === 'refund started'
            ? 'the refund of the payment had started first: settle the sale with the buyer'
            : 'no refund can start now: the payment stays collected for the sale'),
        at: this.now(),
      });
  }

  /**
   * A success written with its settlement before it and its SMS and the note that it was told in
   * the same commit (hand-over.ts `writeTold`): decided again on the record as locked.
   */
  private writeTold(
    current: PurchaseRecord,
    decision: Decision,
    event: PurchaseEvent,
  ): Promise<PurchaseRecord | null | 'unavailable'> {
    const expected: PurchaseRecord = { ...current, ...decision.patch, state: decision.to };
    return this.outcomes.writeTold(expected, async (read, told, tx) => {
      const again = read && decide(read, event, this.settings);
      if (!read || !again || !tellsWithOutcome(again) || again.to !== decision.to) return null;
      const result = await this.write(read, again, told, tx);
      return result.ok ? result.record : null;
    });
  }

  /**
   * An operator's decision (`RESOLVE`, `REOPEN` of src/purchases/care), written like every other
   * one, with `patch` (the resolution) beside it, and followed up: a reopened purchase is
   * reconciled at once, never confirmed; a resolved one is given to the settlement (an agent's
   * float hold spent or given back, as the resolution's outcome says). Null when its state does not take the event or another
   * writer won: the caller re-reads and says why.
   */
  async operatorDecision(
    record: PurchaseRecord,
    event: Extract<PurchaseEvent, { type: 'RESOLVE' | 'REOPEN' }>,
    patch?: PurchasePatch,
  ): Promise<PurchaseRecord | null> {
    const decision = decide(record, event, this.settings);
    if (!decision) return null;
    const result = await this.write(record, decision, patch);
    if (!result.ok) return null;
    await this.followUp(result.record, decision.delayMs);
    return result.record;
  }

  /**
   * What the buyer's payment did, told by the payment lifecycle (src/payments): `PAYMENT_FAILED`
   * ends a `created` purchase unpaid, `REFUND_STUCK` puts a failed one in the care queue. Written
   * and followed up (settlement, SMS) like any other decision. A state that does not take the
   * event is left as it is, so a hook told twice changes nothing. Null when there is no purchase.
   */
  async paymentOutcome(
    id: string,
    event: Extract<PurchaseEvent, { type: 'PAYMENT_FAILED' | 'REFUND_STUCK' }>,
  ): Promise<PurchaseRecord | null> {
    for (let i = 0; i < 3; i += 1) {
      const record = await this.store.get(id);
      if (!record) return null;
      const decision = decide(record, event, this.settings);
      if (!decision) return record;
      const result = await this.write(record, decision);
      if (result.ok) {
        await this.followUp(result.record, decision.delayMs);
        return result.record;
      }
    }
    return this.store.get(id);
  }

  /** Decide and write one event; null when the state does not take it or another writer won. */
  private async apply(record: PurchaseRecord, event: PurchaseEvent): Promise<PurchaseRecord | null> {
    const decision = decide(record, event, this.settings);
    if (!decision) return null;
    const result = await this.write(record, decision);
    return result.ok ? result.record : null;
  }

  private write(
    record: PurchaseRecord,
    decision: Decision,
    extra?: PurchasePatch,
    writer: Pick<PurchaseStore, 'transition'> = this.store,
  ): Promise<TransitionWrite> {
    // A new verdict to re-check starts its chain at round 0 (a reopened purchase may carry the
    // round an earlier chain reached).
    const { recheckUntil } = decision.patch;
    const fresh =
      recheckUntil && recheckUntil !== record.recheckUntil ? { recheckRound: 0, recheckAt: null } : undefined;
    return writeTransition(record, decision, fresh ? { ...fresh, ...extra } : extra, writer, this.clock);
  }

  /** What a written state calls for next. */
  private async followUp(record: PurchaseRecord, delayMs: number | null): Promise<void> {
    const state: PurchaseState = record.state;
    if (state === 'created') {
      await this.queue.enqueue(
        { kind: 'confirm', purchaseId: record.id, attempt: record.confirmAttempts },
        delayMs ?? 0,
      );
    } else if (state === 'unknown' || state === 'reconciling') {
      await this.scheduleReconcile(record, delayMs ?? 0);
    } else if (SETTLED_STATES.includes(state)) {
      await this.handOver(record);
      if (record.recheckUntil) await this.scheduleRecheck(record, 0);
    } else if (state === 'resolved') {
      // Told already (as needs_attention); what the operator found settles the money beside it.
      await this.outcomes.settle(record);
    }
  }
}
