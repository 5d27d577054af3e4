/** A unit of lifecycle work. `attempt` makes the job id unique per step, so re-enqueuing the same step is a no-op. */
export interface PurchaseJob {
  /**
   * `confirm` and `reconcile` are the lifecycle's steps; `probe` asks `retry` again before a
   * confirm (after a Redis data loss); `recheck` re-asks after a verdict that is not a fact;
   * `lost-check` comes back to a `confirming` record left by a dead worker once its confirm can
   * no longer be in flight.
   */
  kind: 'confirm' | 'reconcile' | 'probe' | 'recheck' | 'lost-check';
  purchaseId: string;
  /**
   * confirmAttempts (confirm, and lost-check: the attempt it watches), reconcileAttempts
   * (reconcile), or the round (probe, recheck).
   */
  attempt: number;
}

export type JobHandler = (job: PurchaseJob) => Promise<void>;

/** `<kind>-<id>-<n>`, e.g. `confirm-<id>-0` (BullMQ forbids `:` in custom ids). */
export function jobIdOf(job: PurchaseJob): string {
  return `${job.kind}-${job.purchaseId}-${job.attempt}`;
}

/**
 * Where lifecycle jobs wait. Both implementations de-duplicate by job id (a job already
 * waiting, delayed or running is not added twice), run delayed jobs after `delayMs`, and
 * retry a job whose handler threw (handlers are idempotent: they re-read the record).
 */
export interface JobQueue {
  /**
   * `replaceFailed`: a job with this id that failed for good is replaced instead of blocking the
   * add (the sweep's re-enqueues; a fresh step's id never failed, so the hop path skips the check).
   */
  enqueue(job: PurchaseJob, delayMs?: number, options?: { replaceFailed?: boolean }): Promise<void>;
  /** Start consuming jobs with `handler`. */
  start(handler: JobHandler): Promise<void>;
  /** Stop taking jobs and wait for running ones. */
  close(): Promise<void>;
}
