import { Queue, UnrecoverableError, Worker, type ConnectionOptions, type Job } from 'bullmq';
import type { Queryable } from '../../records/database';
import type { SmsSender } from '../sender';
import { componentLogger, maskMsisdn } from '../../observability/logger';
import { reportRedisError, workerErrorListener } from '../../redis/errors';
import { ReconnectWatch } from '../../redis/reconnect-watch';
import { FINAL_MESSAGE_STATUSES, type Message, type MessageRecord } from '../message';
import type { MessageStore } from '../store/store';
import { attemptDelivery } from './deliver';
import { sweepOpen, type SmsQueue } from './queue';
import { DEFAULT_SMS_RETRY_POLICY, smsRetryDelay, type SmsRetryPolicy } from './retry';

const log = componentLogger('sms-queue');

/** Named when it carried outcome SMS only; kept, so jobs queued before a deploy are still worked. */
export const SMS_QUEUE_NAME = 'sms-notify';
const JOB_NAME = 'send';

/** A job's data: the message, and whether its record was staged claimed for the first attempt. */
type SmsJob = Message & { claimed?: true };
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
 * URI-encoded parts of a message id (`messageId`) never contain, so the mapping is one-to-one.
 */
export function bullJobId(messageId: string): string {
  return messageId.replace(/:/g, '|');
}

export interface BullmqSmsQueueOptions {
  /** Connection options for BullMQ (a worker needs its own blocking connection). */
  connection: ConnectionOptions;
  /** BullMQ key prefix (default `gw-bull`, as the lifecycle queue); tests use a random one. */
  prefix?: string;
  /** When given, this process runs a worker that sends; otherwise it only enqueues. */
  sender?: SmsSender;
  policy?: SmsRetryPolicy;
  concurrency?: number;
  /** Where the messages are kept (the system of record); the queue holds only their jobs. */
  store: MessageStore;
  random?: () => number;
  /** See `STAGED_START_GRACE_MS` (tests shorten it). */
  stagedGraceMs?: number;
  /**
   * BullMQ's stall detection (tests shorten it): a job whose worker died is retried after
   * `lockDurationMs`, and failed after more than `maxStalledCount` stalls (then the sweep revives it).
   */
  stalls?: { lockDurationMs?: number; stalledIntervalMs?: number; maxStalledCount?: number };
}

/** Stalls (worker deaths mid-job) BullMQ tolerates before it fails an SMS job. */
export const SMS_MAX_STALLED_COUNT = 5;

/**
 * Outgoing SMS on BullMQ over Redis. The job id is the message id, so an enqueue while the job
 * exists is a no-op; the message record (created first, once per id) makes a repeat a no-op
 * after the job is gone too. A job is removed only once it completed (sent, or
 * given up and recorded); failed jobs are kept for operators.
 */
export class BullmqSmsQueue implements SmsQueue {
  readonly store: MessageStore;
  private readonly queue: Queue;
  private readonly worker: Worker | undefined;
  private readonly policy: SmsRetryPolicy;
  private readonly reconnects: ReconnectWatch;
  private readonly stagedGraceMs: number | undefined;

  constructor(options: BullmqSmsQueueOptions) {
    const prefix = options.prefix ?? 'gw-bull';
    this.policy = options.policy ?? DEFAULT_SMS_RETRY_POLICY;
    this.store = options.store;
    this.stagedGraceMs = options.stagedGraceMs;
    this.reconnects = new ReconnectWatch(options.connection);
    this.queue = new Queue(SMS_QUEUE_NAME, { connection: this.reconnects.connection, prefix });
    this.queue.on('error', reportRedisError);
    if (options.sender) {
      const sender = options.sender;
      this.worker = new Worker(SMS_QUEUE_NAME, (job: Job<SmsJob>) => this.process(job, sender), {
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

  async enqueue(sms: Message): Promise<boolean> {
    const created = await this.store.create(sms, new Date());
    if (!created) {
      const record = await this.store.get(sms.id);
      if (record && FINAL_MESSAGE_STATUSES.includes(record.status)) {
        log.info('sms notification already handled, not queued again', {
          smsId: sms.id,
          to: maskMsisdn(sms.to),
          status: record.status,
        });
        return false;
      }
    }
    // Added even when the record existed but is not final: a crash between the record and the
    // job would otherwise strand it. While the job exists, the same job id makes this a no-op —
    // except in the failed set, where it would strand it too: such a job is replaced.
    if (!created) {
      const previous = await this.queue.getJob(bullJobId(sms.id));
      if (previous && (await previous.isFailed())) await previous.remove();
    }
    await this.add(sms);
    return created;
  }

  stage(sms: Message, tx: Queryable): Promise<boolean> {
    return this.store.create(sms, new Date(), tx, true);
  }

  async start(sms: Message): Promise<void> {
    await this.add(sms, 0, true);
  }

  async redeliver(sms: Message, delayMs: number): Promise<void> {
    const previous = await this.queue.getJob(bullJobId(sms.id));
    if (previous) await previous.remove().catch(() => undefined);
    await this.add(sms, delayMs);
  }

  /** `claimed`: its record was staged claimed for the first attempt (`stage`). */
  private async add(sms: Message, delayMs = 0, claimed = false): Promise<void> {
    const { id, kind, purchaseId, to, from, message } = sms;
    const data: SmsJob = { id, kind, purchaseId, to, from, message, ...(claimed && { claimed }) };
    await this.queue.add(JOB_NAME, data, {
      jobId: bullJobId(id),
      delay: delayMs,
      attempts: this.policy.attempts,
      backoff: { type: BACKOFF_TYPE },
      removeOnComplete: true,
      removeOnFail: { age: 30 * 24 * 3600 },
    });
  }

  get(id: string): Promise<MessageRecord | null> {
    return this.store.get(id);
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
      this.stagedGraceMs,
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

  private async process(job: Job<SmsJob>, sender: SmsSender): Promise<void> {
    const attempts = job.opts.attempts ?? 1;
    const result = await attemptDelivery(job.data, {
      sender,
      store: this.store,
      lastAttempt: job.attemptsMade + 1 >= attempts,
      // The staged claim covers the job's first start only: a retry, or a run after a stall (its
      // worker died, maybe mid-send), claims again and so says so.
      claimed: job.data.claimed === true && job.attemptsMade === 0 && job.attemptsStarted <= 1,
    });
    if (result.kind === 'retry') throw new SmsRetryLater(result.reason, result.retryAfterMs);
    if (result.status === 'rejected' || result.status === 'undelivered') {
      // Kept in the failed set for operators; the record says why.
      throw new UnrecoverableError(`sms ${result.status}`);
    }
  }
}
