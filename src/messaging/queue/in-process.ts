import type { Queryable } from '../../records/database';
import type { SmsSender } from '../sender';
import { componentLogger, maskMsisdn } from '../../observability/logger';
import { FINAL_MESSAGE_STATUSES, type Message, type MessageRecord } from '../message';
import type { MessageStore } from '../store/store';
import { attemptDelivery } from './deliver';
import { sweepOpen, type SmsQueue } from './queue';
import { DEFAULT_SMS_RETRY_POLICY, smsRetryDelay, type SmsRetryPolicy } from './retry';

const log = componentLogger('sms-queue');

export interface InProcessSmsQueueOptions {
  sender: SmsSender;
  store: MessageStore;
  policy?: SmsRetryPolicy;
  random?: () => number;
  now?: () => Date;
  /** See `STAGED_START_GRACE_MS` (tests shorten it). */
  stagedGraceMs?: number;
}

/**
 * The embedded mode's queue: same rules as the BullMQ one (de-duplication by id, backoff,
 * give up on `rejected`, never re-send a `sent` one) with timers instead of Redis. Its timers
 * are lost with the process; the messages are not (they are in the store), and the sweep at
 * start queues the open ones again.
 */
export class InProcessSmsQueue implements SmsQueue {
  readonly store: MessageStore;
  private readonly policy: SmsRetryPolicy;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Map<string, Promise<void>>();
  private closed = false;

  constructor(private readonly options: InProcessSmsQueueOptions) {
    this.store = options.store;
    this.policy = options.policy ?? DEFAULT_SMS_RETRY_POLICY;
  }

  async enqueue(message: Message): Promise<boolean> {
    if (this.closed) throw new Error('sms queue is closed');
    const created = await this.store.create(message, this.now());
    if (!created) {
      log.info('sms notification already queued, not queued again', {
        smsId: message.id,
        to: maskMsisdn(message.to),
      });
      return false;
    }
    this.schedule(message, 0, 0);
    return true;
  }

  stage(message: Message, tx: Queryable): Promise<boolean> {
    if (this.closed) throw new Error('sms queue is closed');
    return this.store.create(message, this.now(), tx, true);
  }

  async start(message: Message): Promise<void> {
    // Staged claimed (`stage`): its first attempt claims nothing.
    if (!this.timers.has(message.id) && !this.running.has(message.id)) this.schedule(message, 0, 0, true);
  }

  get(id: string): Promise<MessageRecord | null> {
    return this.store.get(id);
  }

  sweep(): Promise<number> {
    return sweepOpen(
      this.store,
      (record) => this.timers.has(record.id) || this.running.has(record.id),
      async (record) => this.schedule(record, 0, 0),
      () => this.now(),
      this.options.stagedGraceMs,
    );
  }

  async redeliver(message: Message, delayMs: number): Promise<void> {
    if (!this.timers.has(message.id) && !this.running.has(message.id)) this.schedule(message, 0, delayMs);
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
  private schedule(message: Message, attemptsMade: number, delayMs: number, claimed = false): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(message.id);
      const run = this.run(message, attemptsMade, claimed).finally(() => this.running.delete(message.id));
      this.running.set(message.id, run);
    }, delayMs);
    // Like the lifecycle's in-process queue: a pending retry alone does not keep the process up.
    timer.unref?.();
    this.timers.set(message.id, timer);
  }

  private async run(message: Message, attemptsMade: number, claimed: boolean): Promise<void> {
    try {
      const result = await attemptDelivery(message, {
        sender: this.options.sender,
        store: this.store,
        lastAttempt: attemptsMade + 1 >= this.policy.attempts,
        claimed,
        now: this.options.now,
      });
      if (result.kind === 'retry') {
        const delay = smsRetryDelay(attemptsMade + 1, this.policy, result.retryAfterMs, this.options.random);
        this.schedule(message, attemptsMade + 1, delay);
      }
    } catch (err) {
      // The store failed around the attempt: try again later rather than lose the message.
      const record = await this.store.get(message.id).catch(() => null);
      if (record && FINAL_MESSAGE_STATUSES.includes(record.status)) return;
      if (attemptsMade + 1 >= this.policy.attempts) {
        log.error('SMS NOTIFICATION UNDELIVERED: its store kept failing over every retry', {
          smsId: message.id,
          error: (err as Error).message,
        });
        return;
      }
      log.warn('sms notification attempt failed, will retry', {
        smsId: message.id,
        error: (err as Error).message,
      });
      const delay = smsRetryDelay(attemptsMade + 1, this.policy, undefined, this.options.random);
      this.schedule(message, attemptsMade + 1, delay);
    }
  }
}
