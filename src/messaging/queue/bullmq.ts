import type { ConnectionOptions } from 'bullmq';
import { BullJobQueue, MAX_STALLED_COUNT } from '../../queue';
import { DEFAULT_SMS_RETRY_POLICY } from './retry';
import { DurableSmsQueue, smsJobOptions, type SmsJob, type SmsQueueOptions } from './queue';

/** Named when it carried outcome SMS only; kept, so jobs queued before a deploy are still worked. */
export const SMS_QUEUE_NAME = 'sms-notify';

/** Stalls (worker deaths mid-job) BullMQ tolerates before it fails an SMS job. */
export const SMS_MAX_STALLED_COUNT = MAX_STALLED_COUNT;

/**
 * BullMQ rejects custom ids containing `:` (except a legacy 3-part form): use `|`, which the
 * URI-encoded parts of a message id (`messageId`) never contain, so the mapping is one-to-one.
 */
export function bullJobId(messageId: string): string {
  return messageId.replace(/:/g, '|');
}

export interface BullmqSmsQueueOptions extends SmsQueueOptions {
  /** Connection options for BullMQ (a worker needs its own blocking connection). */
  connection: ConnectionOptions;
  /** BullMQ key prefix (default `gw-bull`, as the lifecycle queue); tests use a random one. */
  prefix?: string;
  concurrency?: number;
  /**
   * BullMQ's stall detection (tests shorten it): a job whose worker died is retried after
   * `lockDurationMs`, and failed after more than `maxStalledCount` stalls (then the sweep revives it).
   */
  stalls?: { lockDurationMs?: number; stalledIntervalMs?: number; maxStalledCount?: number };
}

/**
 * Outgoing SMS on BullMQ over Redis (queue `sms-notify`), worked in this process when it is
 * given a `sender`. A job is removed once it completed (sent, or given up and recorded); failed
 * jobs are kept 30 days for operators.
 */
export class BullmqSmsQueue extends DurableSmsQueue {
  private readonly bull: BullJobQueue<SmsJob>;

  constructor(options: BullmqSmsQueueOptions) {
    const bull = new BullJobQueue<SmsJob>({
      ...smsJobOptions(options.policy ?? DEFAULT_SMS_RETRY_POLICY, options.random),
      connection: options.connection,
      prefix: options.prefix ?? 'gw-bull',
      name: SMS_QUEUE_NAME,
      jobName: 'send',
      jobId: (job) => bullJobId(job.id),
      concurrency: options.concurrency ?? 5,
      keepFailed: { age: 30 * 24 * 3600 },
      failedLevel: 'error',
      stalls: { maxStalledCount: SMS_MAX_STALLED_COUNT, ...options.stalls },
    });
    super(bull, options);
    this.bull = bull;
  }

  /** Resolves once its connections (and the worker's, when it sends) are ready. */
  async ready(): Promise<void> {
    await this.started;
    await this.bull.ready();
  }

  /** Remove every job and key of this queue (tests with a random prefix). */
  async obliterate(): Promise<void> {
    await this.bull.obliterate();
  }
}
