import type { ConnectionOptions } from 'bullmq';
import {
  BullJobQueue,
  InProcessJobQueue,
  type JobHandler,
  type JobQueue,
  type JobQueueOptions,
} from '../../queue';
import { keyPart } from '../../redis/keys';
import { MESSAGE_ID_MEMORY_MS } from './intake';
import type { InboundSms } from './types';

/** One inbound message to process, under its de-duplication key. */
export interface InboundJob {
  key: string;
  sms: InboundSms;
  /** The sender+text marker of a message without an id, cleared once it is answered. */
  marker?: { msisdn: string; digest: string };
}

export type InboundHandler = JobHandler<InboundJob>;

/**
 * Inbound messages are acknowledged at once and processed on a job queue (src/queue): the
 * provider never waits for a quote call, and a failed run is retried (every step is idempotent
 * per message key, which is the job's id).
 */
export type InboundSmsQueue = JobQueue<InboundJob> & { has(job: InboundJob): Promise<boolean> };

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

/** BullMQ name of the inbound SMS queue (the queue watch reads its backlog). */
export const INBOUND_SMS_QUEUE_NAME = 'sms-inbound';

function inboundJobOptions(retryDelayMs: number): JobQueueOptions<InboundJob> {
  return {
    maxAttempts: ATTEMPTS,
    // Named `capped` in BullMQ since its first deploy: jobs queued before keep their backoff.
    backoff: { type: 'capped', delayMs: (retry) => inboundRetryDelayMs(retry, retryDelayMs) },
    // BullMQ refuses `:` in custom job ids, and an id that is not well-formed UTF-16 is stored
    // under another key than the worker looks for; `keyPart` avoids both and keeps messages apart.
    jobId: (job) => keyPart(job.key),
    // A completed job's id is kept as long as the intake's marker of its message: the intake
    // reads a marker without its job as a message never queued (`SmsIntake.accept`).
    keepCompletedMs: MESSAGE_ID_MEMORY_MS,
    component: 'sms-inbound-queue',
    label: 'inbound sms job',
    // Never the message: its text is the buyer's.
    describe: (job) => ({ smsKey: job.key }),
  };
}

/**
 * The inbound queue: on BullMQ (processed by whichever process runs workers) when `bull` is
 * given, else in this process (the embedded mode; `retryDelayMs`: tests shorten the backoff).
 */
export function inboundSmsQueue(
  bull?: { connection: ConnectionOptions; prefix: string; concurrency?: number },
  retryDelayMs = RETRY_DELAY_MS,
): InboundSmsQueue {
  const options = inboundJobOptions(retryDelayMs);
  return bull
    ? new BullJobQueue<InboundJob>({ ...options, ...bull, name: INBOUND_SMS_QUEUE_NAME, jobName: 'inbound' })
    : new InProcessJobQueue<InboundJob>({ ...options, refuseWhenClosed: true });
}
