/** A unit of lifecycle work. `attempt` makes the job id unique per step, so re-enqueuing the same step is a no-op. */
export interface PurchaseJob {
  /**
   * `confirm` and `reconcile` are the lifecycle's steps; `recheck` re-asks after a verdict that
   * is not a fact;
   * `lost-check` comes back to a `confirming` record left by a dead worker once its confirm can
   * no longer be in flight.
   */
  kind: 'confirm' | 'reconcile' | 'recheck' | 'lost-check';
  purchaseId: string;
  /**
   * confirmAttempts (confirm, and lost-check: the attempt it watches), reconcileAttempts
   * (reconcile), or the round (recheck).
   */
  attempt: number;
}

/**
 * What every queued job is: a kind, the purchase it is about and its step number. The purchase
 * lifecycle's jobs are {@link PurchaseJob}; the payment lifecycle queues its own kinds on a queue
 * of its own (src/payments/queue.ts).
 */
export interface QueuedJob {
  kind: string;
  purchaseId: string;
  attempt: number;
}

export type JobHandler<J extends QueuedJob = PurchaseJob> = (job: J) => Promise<void>;

/** `<kind>-<id>-<n>`, e.g. `confirm-<id>-0` (BullMQ forbids `:` in custom ids). */
export function jobIdOf(job: QueuedJob): string {
  return `${job.kind}-${job.purchaseId}-${job.attempt}`;
}

/**
 * Where lifecycle jobs wait. Both implementations de-duplicate by job id (a job already
 * waiting, delayed or running is not added twice), run delayed jobs after `delayMs`, and
 * retry a job whose handler threw (handlers are idempotent: they re-read the record).
 */
export interface JobQueue<J extends QueuedJob = PurchaseJob> {
  /**
   * `replaceFailed`: a job with this id that failed for good is replaced instead of blocking the
   * add (the sweep's re-enqueues; a fresh step's id never failed, so the hop path skips the check).
   */
  enqueue(job: J, delayMs?: number, options?: { replaceFailed?: boolean }): Promise<void>;
  /**
   * Drop a job still waiting for its time (one made moot, e.g. a status poll once a callback told
   * the outcome). A job already running is left alone. Whether one was dropped (a queue without it: never).
   */
  cancel?(job: J): Promise<boolean>;
  /** Start consuming jobs with `handler`. */
  start(handler: JobHandler<J>): Promise<void>;
  /** Stop taking jobs and wait for running ones. */
  close(): Promise<void>;
}
