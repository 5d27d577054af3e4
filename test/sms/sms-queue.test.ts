import { messageId, type Message } from '../../src/messaging/message';
import { MemoryOutboxStore, OutboxSender } from '../../src/messaging/outbox/driver';
import { bullJobId } from '../../src/messaging/queue/bullmq';
import { DeliveryReports } from '../../src/messaging/queue/deliveries';
import { attemptDelivery } from '../../src/messaging/queue/deliver';
import {
  DEFAULT_SMS_RETRY_POLICY,
  smsRetryDelay,
  type SmsRetryPolicy,
} from '../../src/messaging/queue/retry';
import type { OutboundSms, SendOutcome, SmsSender } from '../../src/messaging/sender';
import { SqlMessageStore } from '../../src/messaging/store/sql';
import type { Database } from '../../src/records/database';
import { testPglite } from '../support/database';

const NOW = new Date('2025-03-01T10:00:00.000Z');

function notification(purchaseId = 'p-1', key = 'settled'): Message {
  return {
    id: messageId(purchaseId, key, '26771234567'),
    kind: 'purchase-outcome',
    purchaseId,
    to: '26771234567',
    message: 'Token: 1111',
  };
}

describe('message ids', () => {
  it('are their parts (e.g. <purchaseId>:<requestKey>:<recipient>), each encoded', () => {
    expect(messageId('p-1', 'settled', '26771234567')).toBe('p-1:settled:26771234567');
    expect(messageId('p:2', 'admin-a:b|c', '26771234567')).toBe('p%3A2:admin-a%3Ab%7Cc:26771234567');
    // An SMS-MO reply's id, as it was when replies rode on a made-up purchase id.
    expect(messageId('mo:w1', 'reply', '26771234567')).toBe('mo%3Aw1:reply:26771234567');
  });

  it('map one-to-one onto BullMQ job ids without ":"', () => {
    expect(bullJobId('p-1:settled:26771234567')).toBe('p-1|settled|26771234567');
    expect(bullJobId(messageId('p:2', 'a', '1'))).not.toContain(':');
  });
});

describe('smsRetryDelay', () => {
  const policy: SmsRetryPolicy = {
    attempts: 10,
    baseDelayMs: 1000,
    maxDelayMs: 8000,
    maxRetryAfterMs: 60000,
  };
  test.each([
    // retry, random, retryAfterMs, expected
    [1, 0, undefined, 500],
    [1, 1, undefined, 1000],
    [2, 0.5, undefined, 1500],
    [4, 1, undefined, 8000],
    [9, 1, undefined, 8000],
    [50, 0, undefined, 4000],
    [1, 0, 30000, 30000],
    [1, 0, 3_600_000, 60000],
    [4, 1, 100, 8000],
  ])('retry %i with random %f and Retry-After %p → %i ms', (retry, random, after, expected) => {
    expect(smsRetryDelay(retry, policy, after, () => random)).toBe(expected);
  });

  it('defaults to a horizon of hours', () => {
    let total = 0;
    for (let retry = 1; retry < DEFAULT_SMS_RETRY_POLICY.attempts; retry++) {
      total += smsRetryDelay(retry, DEFAULT_SMS_RETRY_POLICY, undefined, () => 0);
    }
    expect(total).toBeGreaterThan(4 * 3600 * 1000);
  });
});

let db: Database;
let closeDb: () => Promise<void>;
beforeAll(async () => {
  ({ db, cleanup: closeDb } = await testPglite());
});
afterAll(() => closeDb());

/** A driver that throws, to check the "never throws" promise is not trusted blindly. */
class ThrowingSender implements SmsSender {
  readonly name = 'throwing';
  async send(_sms: OutboundSms): Promise<SendOutcome> {
    throw new Error('socket hang up');
  }
}

describe('attemptDelivery', () => {
  let store: SqlMessageStore;
  let outbox: MemoryOutboxStore;
  let sender: OutboxSender;
  beforeEach(async () => {
    await db.query('TRUNCATE sms_messages, sms_provider_messages');
    store = new SqlMessageStore(db);
    outbox = new MemoryOutboxStore();
    sender = new OutboxSender(outbox);
    await store.create(notification(), NOW);
  });

  it('does not send again a notification the store knows was sent (a job re-run after a crash)', async () => {
    await store.update(notification().id, { status: 'sent', attempts: 1 }, NOW);
    const result = await attemptDelivery(notification(), { sender, store, lastAttempt: false });
    expect(result).toEqual({ kind: 'done', status: 'already-final' });
    expect(await outbox.list()).toEqual([]);
  });

  it('sends again, with the same id, one that was being sent when its worker died (the documented window)', async () => {
    await store.update(notification().id, { status: 'sending', attempts: 1 }, NOW);
    const result = await attemptDelivery(notification(), { sender, store, lastAttempt: false });
    expect(result).toEqual({ kind: 'done', status: 'sent' });
    expect((await outbox.list()).map((e) => e.id)).toEqual([notification().id]);
    expect(await store.get(notification().id)).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('turns a throwing driver into a retry, and gives up on the last attempt', async () => {
    const throwing = new ThrowingSender();
    expect(await attemptDelivery(notification(), { sender: throwing, store, lastAttempt: false })).toEqual({
      kind: 'retry',
      reason: 'driver threw: socket hang up',
    });
    expect(await store.get(notification().id)).toMatchObject({ status: 'queued', attempts: 1 });
    expect(await attemptDelivery(notification(), { sender: throwing, store, lastAttempt: true })).toEqual({
      kind: 'done',
      status: 'undelivered',
    });
    expect(await store.get(notification().id)).toMatchObject({
      status: 'undelivered',
      attempts: 2,
      lastError: 'driver threw: socket hang up',
    });
  });
});

describe('a message without a purchase (an SMS-MO reply)', () => {
  beforeEach(() => db.query('TRUNCATE sms_messages, sms_provider_messages'));

  const reply: Message = {
    id: messageId('mo:w1', 'reply', '26771234567'),
    kind: 'sms-reply',
    to: '26771234567',
    message: 'Send BUY <meter> <amount>',
  };

  it('reaches the driver with no purchase id', async () => {
    const store = new SqlMessageStore(db);
    const outbox = new MemoryOutboxStore();
    await store.create(reply, NOW);
    expect(
      await attemptDelivery(reply, { sender: new OutboxSender(outbox), store, lastAttempt: false }),
    ).toEqual({
      kind: 'done',
      status: 'sent',
    });
    expect(await outbox.list()).toEqual([expect.objectContaining({ id: reply.id, purchaseId: null })]);
  });

  it('is only noted when a delivery report says it failed; a purchase outcome or a receipt is sent again', async () => {
    const store = new SqlMessageStore(db);
    const redelivered: string[] = [];
    const reports = new DeliveryReports(
      store,
      { redeliver: async (message) => void redelivered.push(message.id) },
      DEFAULT_SMS_RETRY_POLICY,
    );
    const outcome = notification();
    const receipt: Message = {
      ...notification('p-1', 'receipt:k'),
      kind: 'agent-receipt',
      to: '26770000001',
    };
    for (const [i, message] of [reply, outcome, receipt].entries()) {
      await store.create(message, NOW);
      await store.update(message.id, { status: 'sent', attempts: 1 }, NOW);
      await store.linkProviderMessage(`m-${i}`, message.id);
    }
    const failed = (providerMessageId: string) => ({
      provider: 'africastalking',
      providerMessageId,
      state: 'failed' as const,
      providerStatus: 'Failed',
      failureReason: 'DeliveryFailure',
    });
    expect(await reports.record(failed('m-0'))).toBe('recorded');
    expect(await reports.record(failed('m-1'))).toBe('retrying');
    expect(await reports.record(failed('m-2'))).toBe('retrying');
    expect(redelivered).toEqual([outcome.id, receipt.id]);
    expect(await store.get(reply.id)).toMatchObject({ status: 'sent', delivery: { state: 'failed' } });
  });
});
