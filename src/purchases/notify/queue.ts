import type { SmsSender } from '../../channels/sms/outbound/sender';
import { componentLogger, maskMsisdn } from '../../observability/logger';
import { attemptDelivery } from './deliver';
import { DEFAULT_SMS_RETRY_POLICY, smsRetryDelay, type SmsRetryPolicy } from './retry';
import { MemoryNotificationStore, type NotificationStore } from './store';
import type { NotificationRecord, SmsNotification } from './types';
import { FINAL_NOTIFICATION_STATUSES } from './types';

const log = componentLogger('sms-queue');

/**
 * The durable queue of outcome SMS. `enqueue` only records and schedules — it never sends
 * inline — and is a no-op for an id it has seen (returns false). A worker sends each
 * notification through the `SmsSender`, retrying transient failures with backoff.
 */
export interface SmsJobQueue {
  enqueue(notification: SmsNotification): Promise<boolean>;
  /** The notification and its delivery status, or null. */
  get(id: string): Promise<NotificationRecord | null>;
  listByPurchase(purchaseId: string): Promise<NotificationRecord[]>;
  /**
   * Re-queue notifications that are not final and have no live job (a worker killed twice
   * mid-send makes BullMQ fail its job as stalled); returns how many were revived.
   */
  sweep(): Promise<number>;
  /** Send a notification again that a delivery report re-opened (status `queued`), after `delayMs`. */
  redeliver(notification: SmsNotification, delayMs: number): Promise<void>;
  /** Stop workers and timers (pending messages stay queued where the queue is durable). */
  close(): Promise<void>;
}

/** Revivals a notification gets before it is given up as `undelivered` (a poison message). */
export const MAX_SMS_REVIVALS = 5;

/** The sweep reads at most this many open notifications per run. */
const SWEEP_LIMIT = 500;

/**
 * The sweep's rule, shared by both queues: every open notification without a live job is
 * revived (counted on the record), or given up loudly after MAX_SMS_REVIVALS.
 */
export async function sweepOpen(
  store: NotificationStore,
  hasLiveJob: (record: NotificationRecord) => boolean | Promise<boolean>,
  revive: (record: NotificationRecord) => Promise<void>,
  now: () => Date,
): Promise<number> {
  let revived = 0;
  for (const record of await store.listOpen(SWEEP_LIMIT)) {
    if (await hasLiveJob(record)) continue;
    const fields = { smsId: record.id, purchaseId: record.purchaseId, to: maskMsisdn(record.to) };
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

export interface InProcessSmsQueueOptions {
  sender: SmsSender;
  store?: NotificationStore;
  policy?: SmsRetryPolicy;
  random?: () => number;
  now?: () => Date;
}

/**
 * The embedded mode's queue: same rules as the BullMQ one (de-duplication by id, backoff,
 * give up on `rejected`, never re-send a `sent` one) with timers instead of Redis. Not
 * durable across restarts — the embedded mode keeps everything in memory anyway.
 */
export class InProcessSmsQueue implements SmsJobQueue {
  readonly store: NotificationStore;
  private readonly policy: SmsRetryPolicy;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Map<string, Promise<void>>();
  private closed = false;

  constructor(private readonly options: InProcessSmsQueueOptions) {
    this.store = options.store ?? new MemoryNotificationStore();
    this.policy = options.policy ?? DEFAULT_SMS_RETRY_POLICY;
  }

  async enqueue(notification: SmsNotification): Promise<boolean> {
    if (this.closed) throw new Error('sms queue is closed');
    const created = await this.store.create(notification, this.now());
    if (!created) {
      log.info('sms notification already queued, not queued again', {
        smsId: notification.id,
        to: maskMsisdn(notification.to),
      });
      return false;
    }
    this.schedule(notification, 0, 0);
    return true;
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
      (record) => this.timers.has(record.id) || this.running.has(record.id),
      async (record) => this.schedule(record, 0, 0),
      () => this.now(),
    );
  }

  async redeliver(notification: SmsNotification, delayMs: number): Promise<void> {
    if (!this.timers.has(notification.id) && !this.running.has(notification.id))
      this.schedule(notification, 0, delayMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.all(this.running.values());
  }

  private now(): Date {
    return (this.options.now ?? (() => new Date()))();
  }

  /** `attemptsMade` counts finished attempts, as BullMQ's does. */
  private schedule(notification: SmsNotification, attemptsMade: number, delayMs: number): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(notification.id);
      const run = this.run(notification, attemptsMade).finally(() => this.running.delete(notification.id));
      this.running.set(notification.id, run);
    }, delayMs);
    // Like the lifecycle's in-process queue: a pending retry alone does not keep the process up.
    timer.unref?.();
    this.timers.set(notification.id, timer);
  }

  private async run(notification: SmsNotification, attemptsMade: number): Promise<void> {
    try {
      const result = await attemptDelivery(notification, {
        sender: this.options.sender,
        store: this.store,
        lastAttempt: attemptsMade + 1 >= this.policy.attempts,
        now: this.options.now,
      });
      if (result.kind === 'retry') {
        const delay = smsRetryDelay(attemptsMade + 1, this.policy, result.retryAfterMs, this.options.random);
        this.schedule(notification, attemptsMade + 1, delay);
      }
    } catch (err) {
      // The store failed around the attempt: try again later rather than lose the message.
      const record = await this.store.get(notification.id).catch(() => null);
      if (record && FINAL_NOTIFICATION_STATUSES.includes(record.status)) return;
      if (attemptsMade + 1 >= this.policy.attempts) {
        log.error('SMS NOTIFICATION UNDELIVERED: its store kept failing over every retry', {
          smsId: notification.id,
          error: (err as Error).message,
        });
        return;
      }
      log.warn('sms notification attempt failed, will retry', {
        smsId: notification.id,
        error: (err as Error).message,
      });
      const delay = smsRetryDelay(attemptsMade + 1, this.policy, undefined, this.options.random);
      this.schedule(notification, attemptsMade + 1, delay);
    }
  }
}
