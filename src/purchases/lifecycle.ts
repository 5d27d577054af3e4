import {
  decide,
  nextRecheckMs,
  probeVerdict,
  type Decision,
  type LifecycleSettings,
  type PurchaseEvent,
} from '../../machines/purchase.machine';
import type { Config } from '../config';
import { componentLogger, maskMsisdn, maskToken } from '../observability/logger';
import { errorInfo } from '../vas/error-info';
import type { PurchaseService, Transaction } from '../vas/port';
import type { JobQueue, PurchaseJob } from './queue';
import { confirmRequest, retryRequest } from './request';
import {
  awaitsNotification,
  SETTLED_STATES,
  type PageOptions,
  type PurchasePatch,
  type PurchaseStore,
} from './store';
import { resultFromTransaction, type PurchaseRecord, type PurchaseState } from './types';

const log = componentLogger('purchases');

/** Why the notifier is called: the purchase settled, or someone asked for its SMS again. */
export type NotifyReason = 'settled' | 'resend';

/** The seam to the notification side: called once per settled outcome, and on "resend". */
export interface PurchaseNotifier {
  /**
   * Hand the outcome over: queue the SMS (never send inline) and resolve once durably queued.
   * Must de-duplicate by `(record.id, requestKey)`: after a crash between this call and the
   * record noting it, the same `settled:<id>` key is handed over again and queues nothing new.
   * Throws {@link PurchaseNotSettledError} for a purchase with no outcome yet.
   */
  notify(record: PurchaseRecord, reason: NotifyReason, requestKey: string): Promise<void>;
}

export interface PurchaseLifecycleOptions {
  store: PurchaseStore;
  service: PurchaseService;
  queue: JobQueue;
  notifier?: PurchaseNotifier;
  settings: LifecycleSettings;
  clock?: () => Date;
  random?: () => number;
  /** Records the sweep reads per store call; it pages until it has seen them all. */
  sweepPageSize?: number;
  /**
   * When Redis last came back with older data than it had (see `RedisDataLossWatch`), null
   * when never: a `created` record older than that may have been confirmed in the lost data.
   */
  writesLostBefore?: () => Promise<Date | null>;
  /**
   * Resolves true once the `created → confirming` write is durable (Redis `WAIT` for replicas);
   * false means it may still be lost, so the confirm is not sent. Absent: durable by the server's
   * own persistence (AOF fsync always), checked at start.
   */
  confirmWriteDurable?: () => Promise<boolean>;
}

/** The configuration the lifecycle reads. */
export type LifecycleConfig = Pick<Config, 'purchaseApi'> & {
  reconcile: Pick<Config['reconcile'], 'deadlineMs' | 'baseDelayMs'>;
};

/** Lifecycle settings from the gateway configuration, with test overrides. */
export function settingsFromConfig(
  config: LifecycleConfig,
  overrides: Partial<LifecycleSettings> = {},
): LifecycleSettings {
  return {
    confirmTimeoutMs: config.purchaseApi.confirmTimeoutMs,
    inFlightMarginMs: 30_000,
    lostConfirmMarginMs: 5_000,
    baseDelayMs: config.reconcile.baseDelayMs,
    maxDelayMs: 5 * 60_000,
    deadlineMs: config.reconcile.deadlineMs,
    maxConfirmAttempts: 5,
    recheckForMs: 24 * 3600_000,
    recheckEveryMs: 5 * 60_000,
    ...overrides,
  };
}

/** The sweep re-enqueues existing steps: a job of theirs that failed for good is replaced. */
const REVIVE = { replaceFailed: true } as const;

const SWEEP_PAGE_SIZE = 1000;

/**
 * The purchase lifecycle's worker side: runs the confirm and reconcile jobs, resumes what a
 * crash left behind, and hands settled outcomes to the notifier. It asks the machine
 * (`purchaseMachine`) what a call's answer means, writes that decision with compare-and-set,
 * and only then does what it allows. Every handler re-reads the record, so a re-delivered or
 * duplicated job does nothing new.
 */
export class PurchaseLifecycle {
  private readonly store: PurchaseStore;
  private readonly service: PurchaseService;
  private readonly queue: JobQueue;
  private readonly notifier: PurchaseNotifier | undefined;
  readonly settings: LifecycleSettings;
  private readonly clock: () => Date;
  private readonly random: () => number;
  private readonly sweepPageSize: number;
  private readonly writesLostBefore: () => Promise<Date | null>;
  private readonly confirmWriteDurable: (() => Promise<boolean>) | undefined;

  constructor(options: PurchaseLifecycleOptions) {
    this.store = options.store;
    this.service = options.service;
    this.queue = options.queue;
    this.notifier = options.notifier;
    this.settings = options.settings;
    this.clock = options.clock ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.sweepPageSize = options.sweepPageSize ?? SWEEP_PAGE_SIZE;
    this.writesLostBefore = options.writesLostBefore ?? (async () => null);
    this.confirmWriteDurable = options.confirmWriteDurable;
  }

  /** The queue's handler. */
  readonly handle = async (job: PurchaseJob): Promise<void> => {
    if (job.kind === 'confirm') await this.runConfirm(job.purchaseId, job.attempt);
    else if (job.kind === 'probe') await this.runConfirm(job.purchaseId, undefined, job.attempt);
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
  async runConfirm(id: string, attempt?: number, probeRound = 0): Promise<void> {
    const record = await this.store.get(id);
    if (!record) return;
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
      return;
    }
    const lost = await this.writesLostBefore();
    // The in-flight margin also covers clock skew between the process that created the record
    // and the one that noticed the loss.
    const createdBeforeLoss =
      lost !== null && Date.parse(record.createdAt) < lost.getTime() + this.settings.inFlightMarginMs;
    if (createdBeforeLoss && !(await this.probe(record, lost, probeRound))) return;
    const started = await this.apply(record, { type: 'CONFIRM_START', at: this.now() });
    if (!started) return; // another worker won the compare-and-set: it sends, not us
    let event: PurchaseEvent;
    if (this.confirmWriteDurable && !(await this.confirmWriteDurable().catch(() => false))) {
      // Not sent: the write that proves it was attempted could still be lost with Redis.
      event = {
        type: 'CONFIRM_ERR',
        error: {
          name: 'RedisNotDurable',
          code: 'redis_not_durable',
          message: 'replicas did not acknowledge the confirming write; confirm not sent',
          status: null,
          outcome: 'not_sent',
          retryable: true,
          retryAfterMs: null,
        },
        at: this.now(),
        random: this.random(),
      };
    } else {
      event = await this.answerOf('CONFIRM', () =>
        this.service.confirm(confirmRequest(started), {
          requestId: `confirm-${started.id}-${started.confirmAttempts}`,
        }),
      );
    }
    await this.applyOutcome(started, event);
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
   * Ask `retry` before confirming a record that may already have been confirmed: Redis lost
   * writes since it was created (`lost`), the `created → confirming` one possibly among them.
   * Without a loss the record is the proof: a confirm is only ever sent after that write.
   * True: nothing was found and nothing can still be on its way, so confirm. False: the answer was written
   * (an earlier attempt was found) or a later probe is scheduled.
   *
   * The window this leaves open — a confirm sent before the loss that has not reached the service
   * yet — is closed by the hold: `transaction_not_found` counts only once any confirm sent before
   * the loss can no longer be in flight (the loss + the confirm timeout + the in-flight margin).
   */
  private async probe(record: PurchaseRecord, lost: Date, round: number): Promise<boolean> {
    const holdUntil = new Date(
      lost.getTime() + this.settings.confirmTimeoutMs + this.settings.inFlightMarginMs,
    ).toISOString();
    let answer: { tx: Transaction } | { error: ReturnType<typeof errorInfo> };
    try {
      answer = {
        tx: await this.service.retry(retryRequest(record), { requestId: `probe-${record.id}-${round}` }),
      };
    } catch (error) {
      answer = { error: errorInfo(error) };
    }
    const at = this.now();
    const verdict = probeVerdict(answer, holdUntil, at, this.settings, round, this.random());
    log.info('purchase probed before confirm', {
      purchaseId: record.id,
      externalReference: record.externalReference,
      verdict: verdict.kind,
      ...('error' in answer ? { code: answer.error.code } : { status: answer.tx.status }),
    });
    if (verdict.kind === 'confirm') return true;
    if (verdict.kind === 'wait') {
      await this.queue.enqueue({ kind: 'probe', purchaseId: record.id, attempt: round + 1 }, verdict.delayMs);
      return false;
    }
    const event: PurchaseEvent =
      'tx' in answer
        ? { type: 'PROBE_FOUND', tx: answer.tx, at }
        : { type: 'PROBE_REFUSED', error: answer.error, at };
    log.error('EARLIER CONFIRM FOUND for a purchase Redis had as not yet confirmed: not confirming again', {
      purchaseId: record.id,
      externalReference: record.externalReference,
    });
    await this.applyOutcome(record, event);
    return false;
  }

  /**
   * Re-check a verdict that is not a fact (no charge found, needs_attention) at a low frequency:
   * a success found late corrects the outcome and the token is sent.
   */
  async runRecheck(id: string, round: number): Promise<void> {
    const record = await this.store.get(id);
    if (!record || !['failed', 'needs_attention', 'resolved'].includes(record.state)) return;
    if (nextRecheckMs(record, this.now(), this.settings, 0) === null) return;
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

  private async scheduleRecheck(record: PurchaseRecord, round: number): Promise<void> {
    const delayMs = nextRecheckMs(record, this.now(), this.settings, round);
    if (delayMs !== null)
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
   * On start: `created` → confirm; `confirming` (its worker died mid-call) → `unknown` and
   * reconcile, never confirm again — once its confirm can no longer be in flight, since another
   * live process may be the one confirming it; `unknown`/`reconciling` → reconcile; settled but not
   * handed to the notifier → hand over.
   */
  async resumeStuck(): Promise<{
    confirm: number;
    lost: number;
    deferred: number;
    reconcile: number;
    notify: number;
  }> {
    const counts = { confirm: 0, lost: 0, deferred: 0, reconcile: 0, notify: 0 };
    for await (const record of this.everyRecord((page) => this.store.listByState('created', page))) {
      await this.queue.enqueue(
        { kind: 'confirm', purchaseId: record.id, attempt: record.confirmAttempts },
        0,
        REVIVE,
      );
      counts.confirm += 1;
    }
    for await (const record of this.everyRecord((page) => this.store.listByState('confirming', page))) {
      const wait = this.lostAt(record) - this.clock().getTime();
      if (wait > 0) {
        // Another gateway process sharing this Redis may be sending it right now: come back once
        // that confirm can no longer be in flight (a job of its own, not the confirm job's id,
        // which BullMQ still holds as active until its lock runs out).
        await this.queue.enqueue(
          { kind: 'lost-check', purchaseId: record.id, attempt: record.confirmAttempts },
          wait,
          REVIVE,
        );
        counts.deferred += 1;
        continue;
      }
      await this.markLost(record, 0);
      counts.lost += 1;
    }
    for (const state of ['unknown', 'reconciling'] as const) {
      for await (const record of this.everyRecord((page) => this.store.listByState(state, page))) {
        await this.scheduleReconcile(record, undefined, REVIVE);
        counts.reconcile += 1;
      }
    }
    for await (const record of this.everyRecord((page) => this.store.listUnnotified(page))) {
      await this.handOver(record);
      counts.notify += 1;
    }
    // Quiet when there was nothing to do: the workers also sweep periodically.
    if (Object.values(counts).some((n) => n > 0)) log.info('purchases resumed', counts);
    else log.debug('purchases resumed: nothing stuck');
    return counts;
  }

  /**
   * Every record of a list, a page at a time: however many are stuck, the sweep reaches them
   * all, not only the newest — also while the ones it resumed leave the list.
   */
  private async *everyRecord(
    list: (page: PageOptions) => Promise<PurchaseRecord[]>,
  ): AsyncGenerator<PurchaseRecord> {
    for (let after: PurchaseRecord | undefined; ;) {
      const page = await list({ limit: this.sweepPageSize, after });
      if (page.length === 0) return;
      yield* page;
      after = page[page.length - 1];
    }
  }

  /** Hand a settled, not yet handed-over outcome to the notifier, then note it on the record. */
  async handOver(record: PurchaseRecord): Promise<void> {
    if (!awaitsNotification(record)) return;
    if (!this.notifier) {
      log.warn('no notifier configured; outcome not handed over', {
        purchaseId: record.id,
        state: record.state,
      });
      return;
    }
    // A corrected outcome (a success found after a failure was told) is a new message.
    const requestKey = record.notifications.some((key) => key === `settled:${record.id}`)
      ? `corrected:${record.id}`
      : `settled:${record.id}`;
    await this.notifier.notify(record, 'settled', requestKey);
    let current: PurchaseRecord | null = record;
    for (let i = 0; i < 3 && current && awaitsNotification(current); i += 1) {
      const noted = await this.store.transition(current.id, [current.state], current.state, current.version, {
        notifiedAt: this.now(),
        notifications: current.notifications.includes(requestKey)
          ? current.notifications
          : [...current.notifications, requestKey],
      });
      if (noted.ok) return;
      current = noted.conflict.current;
    }
  }

  /** `resendSms` of the desk: only outcomes the subscriber was (or will be) told about. */
  async resend(id: string, requestKey: string): Promise<void> {
    const record = await this.store.get(id);
    if (!record) throw new PurchaseNotFoundError(id);
    if (!SETTLED_STATES.includes(record.state)) throw new PurchaseNotSettledError(record.id, record.state);
    if (!this.notifier) throw new Error('no notifier configured');
    await this.notifier.notify(record, 'resend', requestKey);
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
   * When a `confirming` record's confirm can no longer be in flight: the deadline its sender
   * stored (`confirmInFlightUntil`, its own client timeout), or the start + this process's confirm
   * timeout for records written before it was stored, plus `lostConfirmMarginMs`.
   */
  private lostAt(record: PurchaseRecord): number {
    const stored = Date.parse(record.confirmInFlightUntil ?? '');
    const inFlightUntil = Number.isFinite(stored)
      ? stored
      : Date.parse(record.confirmSentAt ?? '') + this.settings.confirmTimeoutMs;
    // No start time at all (never expected in `confirming`): nothing can be in flight any more.
    return Number.isFinite(inFlightUntil) ? inFlightUntil + this.settings.lostConfirmMarginMs : 0;
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

  /** Write the outcome of a call; if the record moved meanwhile, a late success still settles it. */
  private async applyOutcome(record: PurchaseRecord, event: PurchaseEvent): Promise<void> {
    let current: PurchaseRecord | null = record;
    for (let i = 0; i < 3; i += 1) {
      if (!current) {
        // The record is gone (Redis restarted empty): a success still reaches the subscriber.
        if ('tx' in event && event.tx.status === 'SUCCESSFUL')
          await this.deliverLateSuccess(record, event.tx, 'gone');
        return;
      }
      const decision = decide(current, event, this.settings);
      if (!decision) {
        if ('tx' in event && event.tx.status === 'SUCCESSFUL') {
          await this.deliverLateSuccess(current, event.tx, current.state);
          return;
        }
        log.info('purchase outcome ignored: record moved on', {
          purchaseId: current.id,
          state: current.state,
          event: event.type,
        });
        return;
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
   * A successful answer the record can no longer take (it settled otherwise, or is gone): the
   * token was issued and is never discarded. It goes to the beneficiary as a success SMS under a
   * key of its own, and an operator is told loudly.
   */
  private async deliverLateSuccess(record: PurchaseRecord, tx: Transaction, state: string): Promise<void> {
    if (state === 'succeeded') {
      log.info('purchase success answered again; already told', { purchaseId: record.id });
      return;
    }
    log.error(
      'PURCHASE SUCCEEDED BUT ITS RECORD CANNOT TAKE IT: sending the token anyway; check the record',
      {
        purchaseId: record.id,
        state,
        externalReference: record.externalReference,
        reference: tx.reference,
        token: tx.rawToken ? maskToken(tx.rawToken) : null,
      },
    );
    if (!this.notifier) return;
    const succeeded: PurchaseRecord = {
      ...record,
      state: 'succeeded',
      result: resultFromTransaction(tx),
      failure: null,
    };
    await this.notifier.notify(succeeded, 'settled', `late:${record.id}:${tx.id ?? tx.reference ?? 'tx'}`);
  }

  /**
   * An operator's decision (`RESOLVE`, `REOPEN` of src/purchases/care), written like every other
   * one, with `patch` (the resolution) beside it, and followed up: a reopened purchase is
   * reconciled at once, never confirmed. Null when its state does not take the event or another
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

  /** Decide and write one event; null when the state does not take it or another writer won. */
  private async apply(record: PurchaseRecord, event: PurchaseEvent): Promise<PurchaseRecord | null> {
    const decision = decide(record, event, this.settings);
    if (!decision) return null;
    const result = await this.write(record, decision);
    return result.ok ? result.record : null;
  }

  private async write(
    record: PurchaseRecord,
    decision: Decision,
    extra?: PurchasePatch,
  ): Promise<{ ok: true; record: PurchaseRecord } | { ok: false; current: PurchaseRecord | null }> {
    const nextAttemptAt =
      decision.delayMs === null ? null : new Date(this.clock().getTime() + decision.delayMs).toISOString();
    const result = await this.store.transition(record.id, [record.state], decision.to, record.version, {
      ...decision.patch,
      ...extra,
      nextAttemptAt,
      // A corrected outcome (a settled or operator-resolved record re-settling) is handed over again.
      ...(SETTLED_STATES.includes(decision.from) || decision.from === 'resolved' ? { notifiedAt: null } : {}),
    });
    if (!result.ok) {
      log.info('purchase transition lost a race', {
        purchaseId: record.id,
        from: record.state,
        to: decision.to,
        reason: result.conflict.reason,
      });
      return { ok: false, current: result.conflict.current };
    }
    const written = result.record;
    log.info('purchase transition', {
      purchaseId: written.id,
      from: decision.from,
      to: written.state,
      version: written.version,
      externalReference: written.externalReference,
      beneficiary: maskMsisdn(written.intent.beneficiaryMsisdn),
      ...(written.lastError && decision.from !== written.state ? { code: written.lastError.code } : {}),
      ...(decision.delayMs !== null ? { nextInMs: decision.delayMs } : {}),
    });
    return { ok: true, record: written };
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
    }
  }
}

/** `get`/`resendSms` named a purchase that does not exist. */
export class PurchaseNotFoundError extends Error {
  constructor(readonly purchaseId: string) {
    super(`purchase ${purchaseId} not found`);
    this.name = 'PurchaseNotFoundError';
  }
}

/** `resendSms` or `notify` for a purchase whose outcome is not known yet (nothing to send). */
export class PurchaseNotSettledError extends Error {
  constructor(
    readonly purchaseId: string,
    readonly state: PurchaseState,
  ) {
    super(`purchase ${purchaseId} is ${state}: it has no outcome SMS yet`);
    this.name = 'PurchaseNotSettledError';
  }
}
