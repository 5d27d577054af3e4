import { Queue, UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { SmsSender } from '../../channels/sms/outbound/sender';
import { componentLogger, maskMsisdn } from '../../observability/logger';
import { reportRedisError, workerErrorListener } from '../../redis/errors';
import { ReconnectWatch } from '../../redis/reconnect-watch';
import { attemptDelivery } from './deliver';
import { sweepOpen, type SmsJobQueue } from './queue';
import { DEFAULT_SMS_RETRY_POLICY, smsRetryDelay, type SmsRetryPolicy } from './retry';
import { RedisNotificationStore, type NotificationStore } from './store';
import type { NotificationRecord, SmsNotification } from './types';
import { FINAL_NOTIFICATION_STATUSES } from './types';

const log = componentLogger('sms-queue');

export const SMS_QUEUE_NAME = 'sms-notify';
const JOB_NAME = 'send';
const BACKOFF_TYPE = 'sms';

/** Thrown by the processor for a transient failure: BullMQ retries it with our backoff. */
class SmsRetryLater extends Error {
  constructor(
    reason: string,
    readonly retryAfterMs?: number,
  ) {
    super(reason);
    this.name = 'SmsRetryLater';
  }
}

/**
 * BullMQ rejects custom ids containing `:` (except a legacy 3-part form): use `|`, which the
 * URI-encoded components of a notification id never contain, so the mapping is one-to-one.
 */
export function bullJobId(notificationId: string): string {
  return notificationId.replace(/:/g, '|');
}

export interface BullmqSmsQueueOptions {
  /** Connection for the queue and the notification store (commands). */
  redis: Redis;
  /** Connection options for BullMQ (a worker needs its own blocking connection). */
  connection: ConnectionOptions;
  /** BullMQ key prefix (default `gw-bull`, as the lifecycle queue); tests use a random one. */
  prefix?: string;
  /** The configured `REDIS_PREFIX` of the notification records (`<keyPrefix>:sms:`, beside the outbox); default `gw`. */
  keyPrefix?: string;
  /** When given, this process runs a worker that sends; otherwise it only enqueues. */
  sender?: SmsSender;
  policy?: SmsRetryPolicy;
  concurrency?: number;
  store?: NotificationStore;
  random?: () => number;
  /**
   * BullMQ's stall detection (tests shorten it): a job whose worker died is retried after
   * `lockDurationMs`, and failed after more than `maxStalledCount` stalls (then the sweep revives it).
   */
  stalls?: { lockDurationMs?: number; stalledIntervalMs?: number; maxStalledCount?: number };
}

/** Stalls (worker deaths mid-job) BullMQ tolerates before it fails an SMS job. */
export const SMS_MAX_STALLED_COUNT = 5;

/**
 * Outcome SMS on BullMQ over Redis. The job id is the notification id, so an enqueue while the
 * job exists is a no-op; the notification record in Redis (created first, `SET NX`) makes a
 * repeat a no-op after the job is gone too. A job is removed only once it completed (sent, or
 * given up and recorded); failed jobs are kept for operators.
 */
export class BullmqSmsQueue implements SmsJobQueue {
  readonly store: NotificationStore;
  private readonly queue: Queue;
  private readonly worker: Worker | undefined;
  private readonly policy: SmsRetryPolicy;
  private readonly reconnects: ReconnectWatch;

  constructor(options: BullmqSmsQueueOptions) {
    const prefix = options.prefix ?? 'gw-bull';
    this.policy = options.policy ?? DEFAULT_SMS_RETRY_POLICY;
    this.store =
      options.store ?? new RedisNotificationStore(options.redis, { prefix: options.keyPrefix ?? 'gw' });
    this.reconnects = new ReconnectWatch(options.connection);
    this.queue = new Queue(SMS_QUEUE_NAME, { connection: this.reconnects.connection, prefix });
    this.queue.on('error', reportRedisError);
    if (options.sender) {
      const sender = options.sender;
      this.worker = new Worker(SMS_QUEUE_NAME, (job: Job<SmsNotification>) => this.process(job, sender), {
        connection: this.reconnects.connection,
        prefix,
        concurrency: options.concurrency ?? 5,
        maxStalledCount: options.stalls?.maxStalledCount ?? SMS_MAX_STALLED_COUNT,
        ...(options.stalls?.lockDurationMs ? { lockDuration: options.stalls.lockDurationMs } : {}),
        ...(options.stalls?.stalledIntervalMs ? { stalledInterval: options.stalls.stalledIntervalMs } : {}),
        settings: {
          backoffStrategy: (attemptsMade: number, _type?: string, err?: Error) =>
            smsRetryDelay(
              attemptsMade,
              this.policy,
              err instanceof SmsRetryLater ? err.retryAfterMs : undefined,
              options.random,
            ),
        },
      });
      this.worker.on('error', workerErrorListener(log, 'sms worker error'));
      // Never the message: it holds tokens.
      this.worker.on('failed', (job, error) =>
        log.error('sms job failed', {
          smsId: job?.data.id,
          to: job ? maskMsisdn(job.data.to) : undefined,
          attemptsMade: job?.attemptsMade,
          reason: error.message,
        }),
      );
      this.worker.on('stalled', (jobId) =>
        log.warn('sms job stalled: its worker stopped mid-send', { jobId }),
      );
    }
  }

  async enqueue(notification: SmsNotification): Promise<boolean> {
    const created = await this.store.create(notification, new Date());
    if (!created) {
      const record = await this.store.get(notification.id);
      if (record && FINAL_NOTIFICATION_STATUSES.includes(record.status)) {
        log.info('sms notification already handled, not queued again', {
          smsId: notification.id,
          to: maskMsisdn(notification.to),
          status: record.status,
        });
        return false;
      }
    }
    // Added even when the record existed but is not final: a crash between the record and the
    // job would otherwise strand it. While the job exists, the same job id makes this a no-op —
    // except in the failed set, where it would strand it too: such a job is replaced.
    if (!created) {
      const previous = await this.queue.getJob(bullJobId(notification.id));
      if (previous && (await previous.isFailed())) await previous.remove();
    }
    await this.add(notification);
    return created;
  }

  async redeliver(notification: SmsNotification, delayMs: number): Promise<void> {
    const previous = await this.queue.getJob(bullJobId(notification.id));
    if (previous) await previous.remove().catch(() => undefined);
    await this.add(notification, delayMs);
  }

  private async add(notification: SmsNotification, delayMs = 0): Promise<void> {
    const { id, purchaseId, to, from, message } = notification;
    await this.queue.add(
      JOB_NAME,
      { id, purchaseId, to, from, message },
      {
        jobId: bullJobId(id),
        delay: delayMs,
        attempts: this.policy.attempts,
        backoff: { type: BACKOFF_TYPE },
        removeOnComplete: true,
        removeOnFail: { age: 30 * 24 * 3600 },
      },
    );
  }

  get(id: string): Promise<NotificationRecord | null> {
    return this.store.get(id);
  }

  listByPurchase(purchaseId: string): Promise<NotificationRecord[]> {
    return this.store.listByPurchase(purchaseId);
  }

  sweep(): Promise<number> {
    return sweepOpen(
      this.store,
      async (record) => {
        const job = await this.queue.getJob(bullJobId(record.id));
        if (!job) return false;
        const state = await job.getState();
        return state !== 'failed' && state !== 'completed' && state !== 'unknown';
      },
      async (record) => {
        const job = await this.queue.getJob(bullJobId(record.id));
        if (job) await job.remove();
        await this.add(record);
      },
      () => new Date(),
    );
  }

  /** Resolves once the worker is connected (no-op without a worker). */
  async ready(): Promise<void> {
    await this.queue.waitUntilReady();
    if (this.worker) await this.worker.waitUntilReady();
  }

  async close(): Promise<void> {
    await this.reconnects.settled();
    if (this.worker) await this.worker.close();
    await this.queue.close();
  }

  /** Remove every job and key of this queue (tests with a random prefix). */
  async obliterate(): Promise<void> {
    await this.queue.obliterate({ force: true });
  }

  private async process(job: Job<SmsNotification>, sender: SmsSender): Promise<void> {
    const attempts = job.opts.attempts ?? 1;
    const result = await attemptDelivery(job.data, {
      sender,
      store: this.store,
      lastAttempt: job.attemptsMade + 1 >= attempts,
    });
    if (result.kind === 'retry') throw new SmsRetryLater(result.reason, result.retryAfterMs);
    if (result.status === 'rejected' || result.status === 'undelivered') {
      // Kept in the failed set for operators; the record says why.
      throw new UnrecoverableError(`sms ${result.status}`);
    }
  }
}
