import { componentLogger } from '../observability/logger';
import { jobIdOf, type JobHandler, type JobQueue, type PurchaseJob, type QueuedJob } from './queue';

const log = componentLogger('purchase-queue');

export interface InProcessQueueOptions {
  /** Handler failures retried this many times (default 5), with doubling delays from retryDelayMs. */
  maxAttempts?: number;
  retryDelayMs?: number;
}

/** The embedded mode's queue: timers in this process, same de-duplication and retries as BullMQ. */
export class InProcessJobQueue<J extends QueuedJob = PurchaseJob> implements JobQueue<J> {
  private handler: JobHandler<J> | null = null;
  private closed = false;
  /** Job ids waiting or running, with their timer when waiting. */
  private readonly jobs = new Map<string, NodeJS.Timeout | 'running' | 'held'>();
  private readonly held: { job: J; delayMs: number }[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;

  constructor(options: InProcessQueueOptions = {}) {
    this.maxAttempts = options.maxAttempts ?? 5;
    this.retryDelayMs = options.retryDelayMs ?? 1000;
  }

  async enqueue(job: J, delayMs = 0): Promise<void> {
    if (this.closed) return;
    const id = jobIdOf(job);
    if (this.jobs.has(id)) return;
    if (!this.handler) {
      // Not started yet: keep it until start(), as BullMQ keeps jobs in Redis.
      this.jobs.set(id, 'held');
      this.held.push({ job, delayMs });
      return;
    }
    this.schedule(job, delayMs, 1);
  }

  async cancel(job: J): Promise<boolean> {
    const id = jobIdOf(job);
    const entry = this.jobs.get(id);
    if (entry === undefined || entry === 'running') return false;
    if (entry === 'held')
      this.held.splice(
        this.held.findIndex((h) => jobIdOf(h.job) === id),
        1,
      );
    else clearTimeout(entry);
    this.jobs.delete(id);
    return true;
  }

  async start(handler: JobHandler<J>): Promise<void> {
    this.handler = handler;
    for (const { job, delayMs } of this.held.splice(0)) {
      this.jobs.delete(jobIdOf(job));
      this.schedule(job, delayMs, 1);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.jobs.values()) if (typeof entry === 'object') clearTimeout(entry);
    this.jobs.clear();
    await Promise.allSettled([...this.running]);
  }

  private schedule(job: J, delayMs: number, attempt: number): void {
    const id = jobIdOf(job);
    const timer = setTimeout(() => this.run(job, attempt), Math.max(0, delayMs));
    timer.unref?.();
    this.jobs.set(id, timer);
  }

  private run(job: J, attempt: number): void {
    if (this.closed || !this.handler) return;
    const id = jobIdOf(job);
    this.jobs.set(id, 'running');
    const done = this.handler(job)
      .then(() => {
        this.jobs.delete(id);
      })
      .catch((error: unknown) => {
        this.jobs.delete(id);
        if (this.closed) return;
        if (attempt >= this.maxAttempts) {
          log.error('purchase job failed for good', { jobId: id, attempt, error });
          return;
        }
        log.warn('purchase job failed; retrying', { jobId: id, attempt, error });
        this.schedule(job, this.retryDelayMs * 2 ** (attempt - 1), attempt + 1);
      })
      .finally(() => this.running.delete(done));
    this.running.add(done);
  }
}
