import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import { componentLogger } from '../observability/logger';
import { reportRedisError, workerErrorListener } from '../redis/errors';
import { jobIdOf, type JobHandler, type JobQueue, type PurchaseJob, type QueuedJob } from './queue';
import { ReconnectWatch } from '../redis/reconnect-watch';

const log = componentLogger('purchase-queue');

export interface BullJobQueueOptions {
  /** Redis connection for BullMQ (it opens its own connections from these options). */
  connection: ConnectionOptions;
  /** BullMQ key prefix; tests use a random one to isolate. Default `gw-bull`. */
  prefix?: string;
  /** Queue name (no `:`). Default `purchases`. */
  name?: string;
  /** Jobs run at once per worker process. */
  concurrency?: number;
  /** Handler failures retried this many times with exponential backoff (default 5). */
  maxAttempts?: number;
  retryDelayMs?: number;
}

/**
 * Lifecycle jobs on BullMQ. The job id (`confirm-<id>-<n>`) de-duplicates; finished jobs are
 * removed so a later step with the same id could be added, though steps never reuse ids.
 */
/** BullMQ name of the purchase lifecycle's queue (the default of {@link BullJobQueue}). */
export const PURCHASE_QUEUE_NAME = 'purchases';

export class BullJobQueue<J extends QueuedJob = PurchaseJob> implements JobQueue<J> {
  private readonly queue: Queue;
  private worker: Worker | null = null;
  private readonly reconnects: ReconnectWatch;

  /** Whether its Redis clients are waiting to reconnect (Redis is away). */
  get waitingToReconnect(): boolean {
    return this.reconnects.waiting;
  }

  constructor(private readonly options: BullJobQueueOptions) {
    this.reconnects = new ReconnectWatch(options.connection);
    this.queue = new Queue(options.name ?? PURCHASE_QUEUE_NAME, {
      connection: this.reconnects.connection,
      prefix: options.prefix ?? 'gw-bull',
      defaultJobOptions: {
        attempts: options.maxAttempts ?? 5,
        backoff: { type: 'exponential', delay: options.retryDelayMs ?? 1000 },
        removeOnComplete: true,
        removeOnFail: { count: 1000 },
      },
    });
    this.queue.on('error', reportRedisError);
  }

  async enqueue(job: J, delayMs = 0, options: { replaceFailed?: boolean } = {}): Promise<void> {
    const jobId = jobIdOf(job);
    // A job that failed for good keeps its id in the failed set, where adding the same id is a
    // no-op: the purchase would stay stuck even across restarts. The sweep replaces such a job.
    if (options.replaceFailed) {
      const previous = await this.queue.getJob(jobId);
      if (previous && (await previous.isFailed())) {
        log.warn('purchase job had failed for good; enqueued again', { jobId });
        await previous.remove();
      }
    }
    await this.queue.add(job.kind, job, { jobId, delay: Math.max(0, Math.round(delayMs)) });
  }

  async cancel(job: J): Promise<boolean> {
    // BullMQ leaves a locked (running) job in place and answers 0.
    return (await this.queue.remove(jobIdOf(job))) === 1;
  }

  async start(handler: JobHandler<J>): Promise<void> {
    if (this.worker) return;
    this.worker = new Worker(this.options.name ?? 'purchases', async (job) => handler(job.data as J), {
      connection: this.reconnects.connection,
      prefix: this.options.prefix ?? 'gw-bull',
      concurrency: this.options.concurrency ?? 8,
      // A worker killed mid-job more than once must not fail the job: handlers are idempotent.
      maxStalledCount: 5,
    });
    this.worker.on('failed', (job, error) =>
      log.warn('purchase job failed', { jobId: job?.id, attemptsMade: job?.attemptsMade, error }),
    );
    this.worker.on('error', workerErrorListener(log, 'purchase worker error'));
    await this.worker.waitUntilReady();
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
}
