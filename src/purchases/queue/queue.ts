/** A unit of lifecycle work. `attempt` makes the job id unique per step, so re-enqueuing the same step is a no-op. */
export interface PurchaseJob {
  kind: 'confirm' | 'reconcile';
  purchaseId: string;
  /** confirmAttempts (confirm) or reconcileAttempts (reconcile) of the record when scheduled. */
  attempt: number;
}

export type JobHandler = (job: PurchaseJob) => Promise<void>;

/** `confirm-<id>-<n>` / `reconcile-<id>-<n>` (BullMQ forbids `:` in custom ids). */
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
