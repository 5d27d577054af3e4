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
 * What a lifecycle's job is: a kind, the purchase it is about and its step number. The purchase
 * lifecycle's jobs are {@link PurchaseJob}; the payment lifecycle queues its own kinds on a queue
 * of its own (src/payments/queue.ts). Other users (the SMS queues) queue jobs of any shape and
 * name their ids themselves ({@link JobQueueOptions.jobId}).
 */
export interface QueuedJob {
  kind: string;
  purchaseId: string;
  attempt: number;
}

/** What a handler is told of the run it is called for. */
export interface JobRun {
  /** Attempts of this job that ended before this one (0 on the first). */
  attemptsMade: number;
  /** Attempts the job has in all, this one included. */
  attempts: number;
  /** Its first run: neither a retry nor a run again after its worker died mid-job (a BullMQ stall). */
  firstRun: boolean;
}

export type JobHandler<J = PurchaseJob> = (job: J, run: JobRun) => Promise<void>;

/** `<kind>-<id>-<n>`, e.g. `confirm-<id>-0` (BullMQ forbids `:` in custom ids). */
export function jobIdOf(job: QueuedJob): string {
  return `${job.kind}-${job.purchaseId}-${job.attempt}`;
}

/**
 * Thrown by a handler for a job that must not be retried: it fails at once (BullMQ keeps it in
 * its failed set). BullMQ knows it by its name, so a job queued by a build before is treated alike.
 */
export class JobFailedForGood extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UnrecoverableError';
  }
}

/** How a queue is told apart from the others in logs, and what it may log of a job. */
export interface JobQueueOptions<J> {
  /** Handler failures retried this many times in all (default 5), with doubling delays from retryDelayMs. */
  maxAttempts?: number;
  retryDelayMs?: number;
  /**
   * A backoff of its own instead of doubling from `retryDelayMs`: its name (BullMQ keeps it with
   * each job, so jobs queued before a deploy keep it) and the wait before retry `retry` (1 after
   * the first failure), which may read the error that ended the attempt.
   */
  backoff?: { type: string; delayMs(retry: number, error: Error): number };
  /** The job's id, its de-duplication key (default {@link jobIdOf}). */
  jobId?: (job: J) => string;
  /**
   * How long a completed job's id is kept, during which the same id is not added again
   * (default: not kept). A handler that must run once per id for longer keeps it that long.
   */
  keepCompletedMs?: number;
  /** Logger component (default `purchase-queue`) and what a job is called in its lines (`purchase job`). */
  component?: string;
  label?: string;
  /** What to log of a job besides its id; never the job itself where it holds texts or tokens. */
  describe?: (job: J) => Record<string, unknown>;
}

/**
 * Where jobs wait. Both implementations de-duplicate by job id (a job already waiting, delayed
 * or running — or completed and kept — is not added twice), run delayed jobs after `delayMs`,
 * and retry a job whose handler threw (handlers are idempotent: they re-read the record).
 */
export interface JobQueue<J = PurchaseJob> {
  /**
   * `replaceFailed`: a job with this id that failed for good is replaced instead of blocking the
   * add (the sweep's re-enqueues; a fresh step's id never failed, so the hop path skips the check).
   * `replace`: any job with this id not running now is replaced (a new delay, a job revived).
   */
  enqueue(job: J, delayMs?: number, options?: { replaceFailed?: boolean; replace?: boolean }): Promise<void>;
  /**
   * Drop a job still waiting for its time (one made moot, e.g. a status poll once a callback told
   * the outcome). A job already running is left alone. Whether one was dropped (a queue without it: never).
   */
  cancel?(job: J): Promise<boolean>;
  /** Whether a job with this id is waiting, delayed or running (not failed, not completed). */
  isLive?(job: J): Promise<boolean>;
  /** Whether a job with this id is known in any state, a completed one kept (`keepCompletedMs`) or a failed one included. */
  has?(job: J): Promise<boolean>;
  /** Start consuming jobs with `handler`. */
  start(handler: JobHandler<J>): Promise<void>;
  /** Stop taking jobs and wait for running ones. */
  close(): Promise<void>;
}
