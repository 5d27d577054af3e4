import { componentLogger, maskMsisdn } from '../../observability/logger';
import type { Queryable } from '../../records/database';
import { UnknownTokenKeyError } from '../../records/sealing';
import { JobFailedForGood, type JobQueueOptions, type JobRun } from '../../queue';
import { FINAL_MESSAGE_STATUSES, type Message, type MessageRecord } from '../message';
import type { SmsSender } from '../sender';
import type { MessageStore } from '../store/store';
import { attemptDelivery } from './deliver';
import { smsRetryDelay, type SmsRetryPolicy } from './retry';

const log = componentLogger('sms-queue');

/**
 * The durable queue of outgoing SMS. `enqueue` only records and schedules — it never sends
 * inline — and is a no-op for an id it has seen (returns false). A worker sends each message
 * through the `SmsSender`, retrying transient failures with backoff.
 */
export interface SmsQueue {
  /** Where the messages and their delivery status are kept. */
  readonly store: MessageStore;
  enqueue(message: Message): Promise<boolean>;
  /**
   * `enqueue` in two halves, for a message that commits with other rows: `stage` writes its record
   * on `tx` (false: the id exists, nothing written), and `start` — once `tx` committed — schedules
   * its sending. The record is written claimed for its first attempt (`sending`), which `start`'s
   * job then makes without a claim of its own: a crash before it sends leaves a `sending` message,
   * which the sweep revives like one cut mid-send (sent again with the same id).
   */
  stage(message: Message, tx: Queryable): Promise<boolean>;
  start(message: Message): Promise<void>;
  /** The message and its delivery status, or null. */
  get(id: string): Promise<MessageRecord | null>;
  /**
   * Re-queue messages that are not final and have no live job (a worker killed twice mid-send
   * makes BullMQ fail its job as stalled); returns how many were revived.
   */
  sweep(): Promise<number>;
  /** Send a message again that a delivery report re-opened (status `queued`), after `delayMs`. */
  redeliver(message: Message, delayMs: number): Promise<void>;
  /** Stop workers and timers (pending messages stay queued where the queue is durable). */
  close(): Promise<void>;
}

/** Revivals a message gets before it is given up as `undelivered` (a poison message). */
export const MAX_SMS_REVIVALS = 5;

/** The sweep reads at most this many open messages per run. */
const SWEEP_LIMIT = 500;

/**
 * How long a message staged claimed and not touched since (`SmsQueue.stage`) is left to the writer
 * about to `start` it. Revived sooner, another instance could send it and see its job removed
 * before that start adds a job whose first attempt sends without reading: a second copy.
 */
export const STAGED_START_GRACE_MS = 10_000;

function awaitsItsStart(record: MessageRecord, now: Date, graceMs: number): boolean {
  return (
    record.status === 'sending' &&
    record.attempts === 1 &&
    record.updatedAt === record.createdAt &&
    now.getTime() - Date.parse(record.createdAt) < graceMs
  );
}

/**
 * The sweep's rule: every open message without a live job is revived (counted on the record),
 * or given up loudly after MAX_SMS_REVIVALS — but a message staged a moment ago is left to its
 * writer's `start` (`STAGED_START_GRACE_MS`).
 */
async function sweepOpen(
  store: MessageStore,
  hasLiveJob: (record: MessageRecord) => boolean | Promise<boolean>,
  revive: (record: MessageRecord) => Promise<void>,
  now: () => Date,
  stagedGraceMs = STAGED_START_GRACE_MS,
): Promise<number> {
  let revived = 0;
  for (const record of await store.listOpen(SWEEP_LIMIT)) {
    if (awaitsItsStart(record, now(), stagedGraceMs)) continue;
    if (await hasLiveJob(record)) continue;
    const fields = {
      smsId: record.id,
      kind: record.kind,
      purchaseId: record.purchaseId,
      to: maskMsisdn(record.to),
    };
    const revivals = (record.revivals ?? 0) + 1;
    if (revivals > MAX_SMS_REVIVALS) {
      await store.update(record.id, { status: 'undelivered', lastError: 'its job kept dying' }, now());
      log.error('SMS NOTIFICATION UNDELIVERED: its job died on every revival; resend after checking', fields);
      continue;
    }
    await store.update(record.id, { revivals }, now());
    log.error('SMS NOTIFICATION HAD NO LIVE JOB (a worker died mid-send): queued again', {
      ...fields,
      status: record.status,
      revivals,
    });
    await revive(record);
    revived += 1;
  }
  return revived;
}

/**
 * A job's data: the message (its text sealed: `DurableSmsQueue.jobOf`), and whether its record was
 * staged claimed for the first attempt.
 */
export type SmsJob = Message & { claimed?: true };

/** Thrown by the delivery for a transient failure: the queue retries it with the SMS backoff. */
class SmsRetryLater extends Error {
  constructor(
    reason: string,
    readonly retryAfterMs?: number,
  ) {
    super(reason);
    this.name = 'SmsRetryLater';
  }
}

/** The transport of the messages' jobs (src/queue): BullMQ, or timers in this process. */
export interface SmsJobs {
  enqueue(
    job: SmsJob,
    delayMs?: number,
    options?: { replaceFailed?: boolean; replace?: boolean },
  ): Promise<void>;
  isLive(job: SmsJob): Promise<boolean>;
  start(handler: (job: SmsJob, run: JobRun) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/**
 * What the SMS queue asks of its transport, whichever it is: a job per message id, the SMS retry
 * policy (its backoff stays named `sms` in BullMQ, honouring a provider's `Retry-After`), and
 * logs that name the message and its masked number, never its text (it holds tokens).
 */
export function smsJobOptions(policy: SmsRetryPolicy, random?: () => number): JobQueueOptions<SmsJob> {
  return {
    maxAttempts: policy.attempts,
    backoff: {
      type: 'sms',
      delayMs: (retry, error) =>
        smsRetryDelay(retry, policy, error instanceof SmsRetryLater ? error.retryAfterMs : undefined, random),
    },
    component: 'sms-queue',
    label: 'sms job',
    describe: (job) => ({ smsId: job.id, to: maskMsisdn(job.to) }),
  };
}

export interface SmsQueueOptions {
  /** Where the messages are kept (the system of record); the transport holds only their jobs. */
  store: MessageStore;
  /** When given, this process sends the messages; otherwise it only enqueues. */
  sender?: SmsSender;
  policy?: SmsRetryPolicy;
  random?: () => number;
  now?: () => Date;
  /** See `STAGED_START_GRACE_MS` (tests shorten it). */
  stagedGraceMs?: number;
}

/**
 * Outgoing SMS on a job transport. The job id is the message id, so an enqueue while the job
 * exists is a no-op; the message record (created first, once per id) makes a repeat a no-op
 * after the job is gone too. Each job is one delivery attempt (`attemptDelivery`): a transient
 * failure is retried with the SMS backoff, a `rejected` or `undelivered` message fails its job
 * for good (BullMQ keeps it for operators; the record says why).
 */
export class DurableSmsQueue implements SmsQueue {
  readonly store: MessageStore;
  /** The worker's start (none without a sender). */
  protected readonly started: Promise<void> | undefined;
  private closed = false;

  /** `refuseWhenClosed`: adds after `close` throw (the in-process queue, whose timers went with it). */
  constructor(
    private readonly jobs: SmsJobs,
    private readonly options: SmsQueueOptions,
    private readonly refuseWhenClosed = false,
  ) {
    this.store = options.store;
    const sender = options.sender;
    if (sender) {
      this.started = jobs.start((job, run) => this.deliver(job, run, sender));
      // Its failure is the caller's to see through `ready`; not an unhandled rejection meanwhile.
      this.started.catch(() => undefined);
    }
  }

  async enqueue(sms: Message): Promise<boolean> {
    this.refuseIfClosed();
    const created = await this.store.create(sms, this.now());
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
    await this.jobs.enqueue(this.jobOf(sms), 0, { replaceFailed: !created });
    return created;
  }

  stage(sms: Message, tx: Queryable): Promise<boolean> {
    this.refuseIfClosed();
    return this.store.create(sms, this.now(), tx, true);
  }

  async start(sms: Message): Promise<void> {
    await this.jobs.enqueue(this.jobOf(sms, true));
  }

  async redeliver(sms: Message, delayMs: number): Promise<void> {
    await this.jobs.enqueue(this.jobOf(sms), delayMs, { replace: true });
  }

  get(id: string): Promise<MessageRecord | null> {
    return this.store.get(id);
  }

  sweep(): Promise<number> {
    return sweepOpen(
      this.store,
      (record) => this.jobs.isLive(record),
      (record) => this.jobs.enqueue(this.jobOf(record), 0, { replace: true }),
      () => this.now(),
      this.options.stagedGraceMs,
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.jobs.close();
  }

  private refuseIfClosed(): void {
    if (this.closed && this.refuseWhenClosed) throw new Error('sms queue is closed');
  }

  private now(): Date {
    return (this.options.now ?? (() => new Date()))();
  }

  /**
   * The job of a message: only the message goes (a record carries more), its text sealed as in the
   * records — the transport (Redis) keeps it until it is sent, and a failed job for 30 days.
   */
  private jobOf(sms: Message, claimed = false): SmsJob {
    const { id, kind, purchaseId, to, from, message } = sms;
    return {
      id,
      kind,
      purchaseId,
      to,
      from,
      message: this.store.sealer.seal(message),
      ...(claimed && { claimed }),
    };
  }

  /**
   * A job's message with its text open. A job queued before job texts were sealed carries it
   * clear; one sealed under a key this process no longer has (dropped while the job waited) is
   * sent with the text its record keeps, which the workers' sweep seals again under the current key.
   */
  private async messageOf(job: SmsJob): Promise<SmsJob> {
    try {
      return { ...job, message: this.store.sealer.open(job.message) };
    } catch (error) {
      if (!(error instanceof UnknownTokenKeyError)) throw error;
      const record = await this.store.get(job.id);
      if (!record) throw error;
      return { ...job, message: record.message };
    }
  }

  private async deliver(job: SmsJob, run: JobRun, sender: SmsSender): Promise<void> {
    const result = await attemptDelivery(await this.messageOf(job), {
      sender,
      store: this.store,
      lastAttempt: run.attemptsMade + 1 >= run.attempts,
      // The staged claim covers the job's first start only: a retry, or a run after a stall (its
      // worker died, maybe mid-send), claims again and so says so.
      claimed: job.claimed === true && run.firstRun,
      ...(this.options.now && { now: this.options.now }),
    });
    if (result.kind === 'retry') throw new SmsRetryLater(result.reason, result.retryAfterMs);
    if (result.status === 'rejected' || result.status === 'undelivered')
      throw new JobFailedForGood(`sms ${result.status}`);
  }
}
