import { Queue, Worker, type ConnectionOptions, type KeepJobs } from 'bullmq';
import { componentLogger } from '../observability/logger';
import { reportRedisError, workerErrorListener } from '../redis/errors';
import { ReconnectWatch } from '../redis/reconnect-watch';
import {
  jobIdOf,
  type JobHandler,
  type JobQueue,
  type JobQueueOptions,
  type PurchaseJob,
  type QueuedJob,
} from './queue';

export interface BullJobQueueOptions<J = PurchaseJob> extends JobQueueOptions<J> {
  /** Redis connection for BullMQ (it opens its own connections from these options). */
  connection: ConnectionOptions;
  /** BullMQ key prefix; tests use a random one to isolate. Default `gw-bull`. */
  prefix?: string;
  /** Queue name (no `:`). Default `purchases`. */
  name?: string;
  /** BullMQ's name of each job (default: its `kind`). */
  jobName?: string;
  /**
   * Jobs run at once per worker process (default 32): the confirm starts and outcomes of jobs
   * running together share one commit (src/records/group-commit.ts), so more at once costs less.
   */
  concurrency?: number;
  /** The level of the line each failed attempt logs (default `warn`). */
  failedLevel?: 'warn' | 'error';
  /** How many failed jobs are kept for operators (default the last 1000). */
  keepFailed?: KeepJobs;
  /**
   * BullMQ's stall detection (tests shorten it): a job whose worker died is run again after
   * `lockDurationMs`, and failed after more than `maxStalledCount` stalls (default 5).
   */
  stalls?: { lockDurationMs?: number; stalledIntervalMs?: number; maxStalledCount?: number };
}

/** BullMQ name of the purchase lifecycle's queue (the default of {@link BullJobQueue}). */
export const PURCHASE_QUEUE_NAME = 'purchases';

/** Stalls (worker deaths mid-job) BullMQ tolerates before it fails a job: handlers are idempotent. */
export const MAX_STALLED_COUNT = 5;

/**
 * Jobs on BullMQ over Redis. The job id de-duplicates (`confirm-<id>-<n>` for the lifecycles);
 * completed jobs are removed (or kept `keepCompletedMs`), failed ones kept for operators.
 */
export class BullJobQueue<J = PurchaseJob> implements JobQueue<J> {
  private readonly queue: Queue;
  private worker: Worker | null = null;
  private readonly reconnects: ReconnectWatch;
  private readonly name: string;
  private readonly prefix: string;
  private readonly idOf: (job: J) => string;
  private readonly log: ReturnType<typeof componentLogger>;
  private readonly label: string;

  /** Whether its Redis clients are waiting to reconnect (Redis is away). */
  get waitingToReconnect(): boolean {
    return this.reconnects.waiting;
  }

  constructor(private readonly options: BullJobQueueOptions<J>) {
    this.name = options.name ?? PURCHASE_QUEUE_NAME;
    this.prefix = options.prefix ?? 'gw-bull';
    this.idOf = options.jobId ?? ((job) => jobIdOf(job as QueuedJob));
    this.log = componentLogger(options.component ?? 'purchase-queue');
    this.label = options.label ?? 'purchase job';
    this.reconnects = new ReconnectWatch(options.connection);
    const backoff = options.backoff
      ? { type: options.backoff.type }
      : { type: 'exponential', delay: options.retryDelayMs ?? 1000 };
    this.queue = new Queue(this.name, {
      connection: this.reconnects.connection,
      prefix: this.prefix,
      defaultJobOptions: {
        attempts: options.maxAttempts ?? 5,
        backoff,
        removeOnComplete: options.keepCompletedMs ? { age: Math.ceil(options.keepCompletedMs / 1000) } : true,
        removeOnFail: options.keepFailed ?? { count: 1000 },
      },
    });
    this.queue.on('error', reportRedisError);
  }

  async enqueue(
    job: J,
    delayMs = 0,
    options: { replaceFailed?: boolean; replace?: boolean } = {},
  ): Promise<void> {
    const jobId = this.idOf(job);
    // A job that failed for good keeps its id in the failed set, where adding the same id is a
    // no-op: its record would stay stuck even across restarts. The sweeps replace such a job.
    if (options.replaceFailed || options.replace) {
      const previous = await this.queue.getJob(jobId);
      if (previous && options.replace) await previous.remove().catch(() => undefined);
      else if (previous && (await previous.isFailed())) {
        this.log.warn(`${this.label} had failed for good; enqueued again`, { jobId });
        await previous.remove();
      }
    }
    const name = this.options.jobName ?? (job as { kind: string }).kind;
    await this.queue.add(name, job, { jobId, delay: Math.max(0, Math.round(delayMs)) });
  }

  async cancel(job: J): Promise<boolean> {
    // BullMQ leaves a locked (running) job in place and answers 0.
    return (await this.queue.remove(this.idOf(job))) === 1;
  }

  async isLive(job: J): Promise<boolean> {
    const state = await this.state(job);
    return state !== 'failed' && state !== 'completed' && state !== 'unknown';
  }

  async has(job: J): Promise<boolean> {
    return (await this.state(job)) !== 'unknown';
  }

  async start(handler: JobHandler<J>): Promise<void> {
    if (this.worker) return;
    const { stalls, backoff } = this.options;
    this.worker = new Worker(
      this.name,
      async (job) =>
        handler(job.data as J, {
          attemptsMade: job.attemptsMade,
          attempts: job.opts.attempts ?? 1,
          firstRun: job.attemptsMade === 0 && job.attemptsStarted <= 1,
        }),
      {
        connection: this.reconnects.connection,
        prefix: this.prefix,
        concurrency: this.options.concurrency ?? 32,
        // A worker killed mid-job more than once must not fail the job: handlers are idempotent.
        maxStalledCount: stalls?.maxStalledCount ?? MAX_STALLED_COUNT,
        ...(stalls?.lockDurationMs ? { lockDuration: stalls.lockDurationMs } : {}),
        ...(stalls?.stalledIntervalMs ? { stalledInterval: stalls.stalledIntervalMs } : {}),
        ...(backoff && {
          settings: {
            backoffStrategy: (attemptsMade: number, _type?: string, error?: Error) =>
              backoff.delayMs(attemptsMade, error ?? new Error('unknown')),
          },
        }),
      },
    );
    this.worker.on('failed', (job, error) =>
      this.log.log(this.options.failedLevel ?? 'warn', `${this.label} failed`, {
        jobId: job?.id,
        ...(job && this.options.describe?.(job.data as J)),
        attemptsMade: job?.attemptsMade,
        error,
      }),
    );
    this.worker.on('stalled', (jobId) =>
      this.log.warn(`${this.label} stalled: its worker stopped mid-job`, { jobId }),
    );
    this.worker.on('error', workerErrorListener(this.log, `${this.label} worker error`));
    await this.worker.waitUntilReady();
  }

  /** Resolves once its Redis connections are ready (the worker's too, once started). */
  async ready(): Promise<void> {
    await this.queue.waitUntilReady();
    await this.worker?.waitUntilReady();
  }

  async close(): Promise<void> {
    await this.reconnects.settled();
    await this.worker?.close();
    await this.queue.close();
  }

  /** For tests and operators: remove every job of this queue. */
  async obliterate(): Promise<void> {
    await this.queue.obliterate({ force: true });
  }

  private async state(job: J): Promise<string> {
    const found = await this.queue.getJob(this.idOf(job));
    return found ? found.getState() : 'unknown';
  }
}
