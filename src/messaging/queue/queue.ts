import { componentLogger, maskMsisdn } from '../../observability/logger';
import type { Queryable } from '../../records/database';
import type { Message, MessageRecord } from '../message';
import type { MessageStore } from '../store/store';

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
 * The sweep's rule, shared by both queues: every open message without a live job is revived
 * (counted on the record), or given up loudly after MAX_SMS_REVIVALS — but a message staged a
 * moment ago is left to its writer's `start` (`STAGED_START_GRACE_MS`).
 */
export async function sweepOpen(
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
