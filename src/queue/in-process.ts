import { componentLogger } from '../observability/logger';
import {
  jobIdOf,
  type JobHandler,
  type JobQueue,
  type JobQueueOptions,
  type PurchaseJob,
  type QueuedJob,
} from './queue';

export interface InProcessQueueOptions<J = PurchaseJob> extends JobQueueOptions<J> {
  /**
   * A job added once the queue is closed is refused (the add throws) instead of dropped. Dropping
   * suits a lifecycle, whose sweep finds the record again; a caller that answered its client once
   * the job was added (inbound SMS) must know it was not.
   */
  refuseWhenClosed?: boolean;
}

type Entry<J> =
  | { state: 'held'; job: J; delayMs: number }
  | { state: 'waiting'; timer: NodeJS.Timeout }
  | { state: 'running' }
  | { state: 'kept'; until: number };

/** Completed ids kept past this many entries are pruned of the expired ones. */
const PRUNE_ABOVE = 10_000;

/**
 * The embedded mode's queue: timers in this process, with the same de-duplication by id, retries
 * and backoff as the BullMQ one. Its jobs die with the process; every user keeps what a job is
 * about in a store its sweep or its client's retry reads again.
 */
export class InProcessJobQueue<J = PurchaseJob> implements JobQueue<J> {
  private handler: JobHandler<J> | null = null;
  private closed = false;
  /** By job id: held until start(), waiting for its time, running, or completed and kept. */
  private readonly jobs = new Map<string, Entry<J>>();
  private readonly running = new Set<Promise<void>>();
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly idOf: (job: J) => string;
  private readonly log: ReturnType<typeof componentLogger>;
  private readonly label: string;

  constructor(private readonly options: InProcessQueueOptions<J> = {}) {
    this.maxAttempts = options.maxAttempts ?? 5;
    this.retryDelayMs = options.retryDelayMs ?? 1000;
    this.idOf = options.jobId ?? ((job) => jobIdOf(job as QueuedJob));
    this.log = componentLogger(options.component ?? 'purchase-queue');
    this.label = options.label ?? 'purchase job';
  }

  async enqueue(job: J, delayMs = 0, options: { replace?: boolean } = {}): Promise<void> {
    if (this.closed) {
      if (this.options.refuseWhenClosed) throw new Error(`${this.label} queue is closed`);
      return;
    }
    const id = this.idOf(job);
    const entry = this.jobs.get(id);
    if (entry) {
      const expired = entry.state === 'kept' && entry.until <= Date.now();
      if (!expired && !(options.replace && entry.state !== 'running')) return;
      this.drop(id, entry);
    }
    if (!this.handler) {
      // Not started yet: keep it until start(), as BullMQ keeps jobs in Redis.
      this.jobs.set(id, { state: 'held', job, delayMs });
      return;
    }
    this.schedule(job, delayMs, 1);
  }

  async cancel(job: J): Promise<boolean> {
    const id = this.idOf(job);
    const entry = this.jobs.get(id);
    if (entry?.state !== 'held' && entry?.state !== 'waiting') return false;
    this.drop(id, entry);
    return true;
  }

  async isLive(job: J): Promise<boolean> {
    const entry = this.jobs.get(this.idOf(job));
    return entry !== undefined && entry.state !== 'kept';
  }

  async has(job: J): Promise<boolean> {
    const entry = this.jobs.get(this.idOf(job));
    return entry !== undefined && (entry.state !== 'kept' || entry.until > Date.now());
  }

  async start(handler: JobHandler<J>): Promise<void> {
    this.handler = handler;
    for (const entry of [...this.jobs.values()])
      if (entry.state === 'held') this.schedule(entry.job, entry.delayMs, 1);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.jobs.values()) if (entry.state === 'waiting') clearTimeout(entry.timer);
    this.jobs.clear();
    await Promise.allSettled([...this.running]);
  }

  private drop(id: string, entry: Entry<J>): void {
    if (entry.state === 'waiting') clearTimeout(entry.timer);
    this.jobs.delete(id);
  }

  private schedule(job: J, delayMs: number, attempt: number): void {
    const timer = setTimeout(() => this.run(job, attempt), Math.max(0, delayMs));
    // A pending retry alone does not keep the process up.
    timer.unref?.();
    this.jobs.set(this.idOf(job), { state: 'waiting', timer });
  }

  private run(job: J, attempt: number): void {
    if (this.closed || !this.handler) return;
    const id = this.idOf(job);
    this.jobs.set(id, { state: 'running' });
    const run = { attemptsMade: attempt - 1, attempts: this.maxAttempts, firstRun: attempt === 1 };
    const done = this.handler(job, run)
      .then(() => this.completed(id))
      .catch((error: unknown) => {
        this.jobs.delete(id);
        if (this.closed) return;
        const fields = { jobId: id, ...this.options.describe?.(job), attempt, error };
        if (attempt >= this.maxAttempts || (error as Error)?.name === 'UnrecoverableError') {
          this.log.error(`${this.label} failed for good`, fields);
          return;
        }
        this.log.warn(`${this.label} failed; retrying`, fields);
        this.schedule(job, this.retryDelay(attempt, error as Error), attempt + 1);
      })
      .finally(() => this.running.delete(done));
    this.running.add(done);
  }

  private completed(id: string): void {
    const keepMs = this.options.keepCompletedMs;
    if (!keepMs) {
      this.jobs.delete(id);
      return;
    }
    this.jobs.set(id, { state: 'kept', until: Date.now() + keepMs });
    if (this.jobs.size > PRUNE_ABOVE)
      for (const [key, entry] of this.jobs)
        if (entry.state === 'kept' && entry.until <= Date.now()) this.jobs.delete(key);
  }

  private retryDelay(attempt: number, error: Error): number {
    return this.options.backoff
      ? this.options.backoff.delayMs(attempt, error)
      : this.retryDelayMs * 2 ** (attempt - 1);
  }
}
