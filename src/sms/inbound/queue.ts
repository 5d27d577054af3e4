import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import { componentLogger } from '../../observability/logger';
import { reportRedisError, workerErrorListener } from '../../redis/errors';
import { ReconnectWatch } from '../../redis/reconnect-watch';
import { keyPart } from '../../redis/keys';
import type { InboundSms } from './types';

const log = componentLogger('sms-inbound-queue');

/** One inbound message to process, under its de-duplication key. */
export interface InboundJob {
  key: string;
  sms: InboundSms;
  /** The sender+text marker of a message without an id, cleared once it is answered. */
  marker?: { msisdn: string; digest: string };
}

export type InboundHandler = (job: InboundJob) => Promise<void>;

/**
 * Inbound messages are acknowledged at once and processed here: the provider never waits for a
 * quote call, and a failed run is retried (every step is idempotent per message key).
 */
export interface InboundSmsQueue {
  enqueue(job: InboundJob): Promise<void>;
  start(handler: InboundHandler): Promise<void>;
  close(): Promise<void>;
}

/**
 * Attempts per message; the conversation is idempotent per key, so a retry never answers twice.
 * Enough, at waits doubling from 1 s to at most 5 s, to outlast a PostgreSQL failover or restart
 * (about 5 minutes): the provider was answered 200 and never sends the message again, so a job
 * that gave up in the outage would be a buyer's message lost.
 */
const ATTEMPTS = 60;
const RETRY_DELAY_MS = 1000;
const MAX_RETRY_DELAY_MS = 5000;

/** The wait before attempt `attempt + 1`: doubling from `base`, at most {@link MAX_RETRY_DELAY_MS}. */
export function inboundRetryDelayMs(attempt: number, base = RETRY_DELAY_MS): number {
  return Math.min(base * 2 ** Math.min(attempt - 1, 20), Math.max(base, MAX_RETRY_DELAY_MS));
}

/** The embedded mode's queue: runs each job soon after it is added, retrying with backoff. */
export class InProcessInboundQueue implements InboundSmsQueue {
  private handler: InboundHandler | null = null;
  private readonly waiting: InboundJob[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly retryDelayMs = RETRY_DELAY_MS) {}

  async enqueue(job: InboundJob): Promise<void> {
    if (this.closed) throw new Error('inbound sms queue is closed');
    if (this.handler) this.run(job, 1);
    else this.waiting.push(job);
  }

  async start(handler: InboundHandler): Promise<void> {
    this.handler = handler;
    for (const job of this.waiting.splice(0)) this.run(job, 1);
  }

  private run(job: InboundJob, attempt: number): void {
    const handler = this.handler!;
    const done: Promise<void> = handler(job)
      .catch((error: unknown) => {
        if (attempt >= ATTEMPTS || this.closed) {
          log.error('inbound sms could not be processed: given up', { smsKey: job.key, attempt, error });
          return;
        }
        log.warn('inbound sms processing failed: retrying', { smsKey: job.key, attempt, error });
        const timer = setTimeout(
          () => {
            this.timers.delete(timer);
            this.run(job, attempt + 1);
          },
          inboundRetryDelayMs(attempt, this.retryDelayMs),
        );
        this.timers.add(timer);
      })
      .finally(() => this.running.delete(done));
    this.running.add(done);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    await Promise.all([...this.running]);
  }
}

export interface BullmqInboundQueueOptions {
  connection: ConnectionOptions;
  prefix: string;
  concurrency?: number;
}

/** BullMQ name of the inbound SMS queue (the queue watch reads its backlog). */
export const INBOUND_SMS_QUEUE_NAME = 'sms-inbound';

/**
 * BullMQ refuses `:` in custom job ids, and an id that is not well-formed UTF-16 is stored under
 * another key than the worker looks for; `keyPart` avoids both and keeps distinct messages apart.
 */
const jobIdOf = (key: string): string => keyPart(key);

/** Inbound messages on BullMQ: processed by whichever process runs workers. */
export class BullmqInboundQueue implements InboundSmsQueue {
  private readonly queue: Queue;
  private worker: Worker | null = null;
  private readonly reconnects: ReconnectWatch;

  constructor(private readonly options: BullmqInboundQueueOptions) {
    this.reconnects = new ReconnectWatch(options.connection);
    this.queue = new Queue(INBOUND_SMS_QUEUE_NAME, {
      connection: this.reconnects.connection,
      prefix: options.prefix,
      defaultJobOptions: {
        attempts: ATTEMPTS,
        backoff: { type: 'capped' },
        removeOnComplete: { age: 3600 },
        removeOnFail: { count: 1000 },
      },
    });
    this.queue.on('error', reportRedisError);
  }

  async enqueue(job: InboundJob): Promise<void> {
    await this.queue.add('inbound', job, { jobId: jobIdOf(job.key) });
  }

  async start(handler: InboundHandler): Promise<void> {
    if (this.worker) return;
    this.worker = new Worker(INBOUND_SMS_QUEUE_NAME, async (job) => handler(job.data as InboundJob), {
      connection: this.reconnects.connection,
      prefix: this.options.prefix,
      concurrency: this.options.concurrency ?? 8,
      maxStalledCount: 5,
      settings: { backoffStrategy: (attemptsMade: number) => inboundRetryDelayMs(attemptsMade) },
    });
    this.worker.on('failed', (job, error) =>
      log.warn('inbound sms job failed', { jobId: job?.id, attemptsMade: job?.attemptsMade, error }),
    );
    this.worker.on('error', workerErrorListener(log, 'inbound sms worker error'));
    await this.worker.waitUntilReady();
  }

  async close(): Promise<void> {
    await this.reconnects.settled();
    await this.worker?.close();
    await this.queue.close();
  }
}
