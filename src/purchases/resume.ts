/**
 * The sweep of the purchase lifecycle (at start and every sweepEveryMs): what a crash or a Redis
 * blip left half-done, queued again. Apart from the job handlers (lifecycle.ts) because it only
 * finds and re-enqueues; the steps it takes (lost, reconcile, hand over) stay the lifecycle's.
 */
import type { LifecycleSettings } from './lifecycle/machine';
import { componentLogger } from '../observability/logger';
import type { JobQueue } from '../queue';
import { everyRecord, type PageOptions, type PurchaseStore } from './store';
import type { PurchaseRecord } from './types';

const log = componentLogger('purchases');

/** The sweep re-enqueues existing steps: a job of theirs that failed for good is replaced. */
const REVIVE = { replaceFailed: true } as const;

export interface ResumeCounts {
  confirm: number;
  awaitingPayment: number;
  lost: number;
  deferred: number;
  reconcile: number;
  notify: number;
  recheck: number;
}

/** What the sweep reads and the lifecycle's steps it takes. */
export interface ResumeSteps {
  store: PurchaseStore;
  queue: JobQueue;
  settings: LifecycleSettings;
  clock: () => Date;
  sweepPageSize: number;
  markLost(record: PurchaseRecord, delayMs: number): Promise<void>;
  scheduleReconcile(
    record: PurchaseRecord,
    delayMs?: number,
    options?: { replaceFailed?: boolean },
  ): Promise<void>;
  handOver(record: PurchaseRecord): Promise<void>;
}

/**
 * On start: `created` → confirm; `confirming` (its worker died mid-call) → `unknown` and
 * reconcile, never confirm again — once its confirm can no longer be in flight, since another
 * live process may be the one confirming it; `unknown`/`reconciling` → reconcile; settled but not
 * handed over (settlement and SMS) → hand over; a verdict still re-checked → its next re-check.
 */
export async function resumeStuck(steps: ResumeSteps): Promise<ResumeCounts> {
  const { store, queue, clock } = steps;
  const counts = {
    confirm: 0,
    awaitingPayment: 0,
    lost: 0,
    deferred: 0,
    reconcile: 0,
    notify: 0,
    recheck: 0,
  };
  const every = (list: (page: PageOptions) => Promise<PurchaseRecord[]>) =>
    everyRecord(list, steps.sweepPageSize);
  for await (const record of every((page) => store.listByState('created', page))) {
    // Waits for the buyer's payment: the payment lifecycle's own sweep says when it is paid.
    if (record.intent.paymentRequired) {
      counts.awaitingPayment += 1;
      continue;
    }
    await queue.enqueue(
      { kind: 'confirm', purchaseId: record.id, attempt: record.confirmAttempts },
      0,
      REVIVE,
    );
    counts.confirm += 1;
  }
  for await (const record of every((page) => store.listByState('confirming', page))) {
    const wait = lostAt(record, steps.settings) - clock().getTime();
    if (wait > 0) {
      // Another gateway process sharing this Redis may be sending it right now: come back once
      // that confirm can no longer be in flight (a job of its own, not the confirm job's id,
      // which BullMQ still holds as active until its lock runs out).
      await queue.enqueue(
        { kind: 'lost-check', purchaseId: record.id, attempt: record.confirmAttempts },
        wait,
        REVIVE,
      );
      counts.deferred += 1;
      continue;
    }
    await steps.markLost(record, 0);
    counts.lost += 1;
  }
  for (const state of ['unknown', 'reconciling'] as const) {
    for await (const record of every((page) => store.listByState(state, page))) {
      await steps.scheduleReconcile(record, undefined, REVIVE);
      counts.reconcile += 1;
    }
  }
  for await (const record of every((page) => store.listUnnotified(page))) {
    await steps.handOver(record);
    counts.notify += 1;
  }
  // A verdict that is not a fact keeps its one chain of re-checks, resumed at the round and time
  // it noted: a chain whose job was lost with Redis, or failed for good while the records were
  // away, would otherwise never ask again (and a "no charge found" refund would go out unchecked).
  for await (const record of every((page) => store.listRechecking(page))) {
    const due = Date.parse(record.recheckAt ?? '') - clock().getTime();
    await queue.enqueue(
      { kind: 'recheck', purchaseId: record.id, attempt: record.recheckRound ?? 0 },
      Number.isFinite(due) ? Math.max(0, due) : 0,
      REVIVE,
    );
    counts.recheck += 1;
  }
  // Quiet when there was nothing to do: the workers also sweep periodically.
  if (Object.entries(counts).some(([kind, n]) => n > 0 && kind !== 'awaitingPayment' && kind !== 'recheck'))
    log.info('purchases resumed', counts);
  else log.debug('purchases resumed: nothing stuck');
  return counts;
}

/**
 * When a `confirming` record's confirm can no longer be in flight: the deadline its sender
 * stored (`confirmInFlightUntil`, its own client timeout), or the start + this process's confirm
 * timeout for records written before it was stored, plus `lostConfirmMarginMs`.
 */
export function lostAt(record: PurchaseRecord, settings: LifecycleSettings): number {
  const stored = Date.parse(record.confirmInFlightUntil ?? '');
  const inFlightUntil = Number.isFinite(stored)
    ? stored
    : Date.parse(record.confirmSentAt ?? '') + settings.confirmTimeoutMs;
  // No start time at all (never expected in `confirming`): nothing can be in flight any more.
  return Number.isFinite(inFlightUntil) ? inFlightUntil + settings.lostConfirmMarginMs : 0;
}
