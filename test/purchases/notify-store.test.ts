import { Redis } from 'ioredis';
import { MemoryOutboxStore, OutboxSender } from '../../src/channels/sms/outbound/outbox/driver';
import type { OutboundSms, SendOutcome, SmsSender } from '../../src/channels/sms/outbound/sender';
import { attemptDelivery } from '../../src/purchases/notify/deliver';
import {
  DEFAULT_SMS_RETRY_POLICY,
  smsRetryDelay,
  type SmsRetryPolicy,
} from '../../src/purchases/notify/retry';
import {
  MemoryNotificationStore,
  RedisNotificationStore,
  type NotificationStore,
} from '../../src/purchases/notify/store';
import { notificationId, purchaseIdOf, type SmsNotification } from '../../src/purchases/notify/types';
import { bullJobId } from '../../src/purchases/notify/bullmq-queue';
import { deleteKeysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';

const NOW = new Date('2025-03-01T10:00:00.000Z');
const LATER = new Date('2025-03-01T10:05:00.000Z');

function notification(purchaseId = 'p-1', key = 'settled'): SmsNotification {
  return {
    id: notificationId(purchaseId, key, '26771234567'),
    purchaseId,
    to: '26771234567',
    message: 'Token: 1111',
  };
}

describe('notification ids', () => {
  it('are <purchaseId>:<requestKey>:<recipient> with each part encoded', () => {
    expect(notificationId('p-1', 'settled', '26771234567')).toBe('p-1:settled:26771234567');
    const odd = notificationId('p:2', 'admin-a:b|c', '26771234567');
    expect(odd).toBe('p%3A2:admin-a%3Ab%7Cc:26771234567');
    expect(purchaseIdOf(odd)).toBe('p:2');
  });

  it('map one-to-one onto BullMQ job ids without ":"', () => {
    expect(bullJobId('p-1:settled:26771234567')).toBe('p-1|settled|26771234567');
    expect(bullJobId(notificationId('p:2', 'a', '1'))).not.toContain(':');
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

const redis = new Redis(TEST_REDIS_URL);
const prefixes: string[] = [];
afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysUnder(redis, prefix);
  redis.disconnect();
});

describe.each([
  ['memory', (): NotificationStore => new MemoryNotificationStore()],
  [
    'redis',
    (): NotificationStore => {
      const prefix = testPrefix('purchases');
      prefixes.push(prefix);
      return new RedisNotificationStore(redis, { prefix });
    },
  ],
])('%s notification store', (_name, makeStore) => {
  let store: NotificationStore;
  beforeEach(() => {
    store = makeStore();
  });

  it('creates once and starts queued', async () => {
    expect(await store.create(notification(), NOW)).toBe(true);
    expect(await store.create({ ...notification(), message: 'other' }, LATER)).toBe(false);
    expect(await store.get(notification().id)).toEqual({
      ...notification(),
      status: 'queued',
      attempts: 0,
      lastError: null,
      providerMessageId: null,
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
      sentAt: null,
    });
  });

  it('updates until final, then never again', async () => {
    await store.create(notification(), NOW);
    await store.update(notification().id, { status: 'sending', attempts: 1 }, NOW);
    const sent = await store.update(
      notification().id,
      { status: 'sent', providerMessageId: 'm-1', sentAt: LATER.toISOString() },
      LATER,
    );
    expect(sent).toMatchObject({
      status: 'sent',
      attempts: 1,
      providerMessageId: 'm-1',
      updatedAt: LATER.toISOString(),
    });
    const stale = await store.update(notification().id, { status: 'queued', lastError: 'late' }, LATER);
    expect(stale).toMatchObject({ status: 'sent', lastError: null });
    expect(await store.update('p-x:k:1', { status: 'sent' }, NOW)).toBeNull();
  });

  it("lists the open notifications (the sweep's work) until they reach a final status", async () => {
    await store.create(notification('p-1', 'a'), NOW);
    await store.create(notification('p-2', 'b'), LATER);
    await store.update(notification('p-1', 'a').id, { status: 'sending', attempts: 1 }, NOW);
    expect((await store.listOpen(10)).map((r) => [r.id, r.status])).toEqual([
      [notification('p-1', 'a').id, 'sending'],
      [notification('p-2', 'b').id, 'queued'],
    ]);
    await store.update(notification('p-1', 'a').id, { status: 'sent' }, LATER);
    await store.update(notification('p-2', 'b').id, { revivals: 1 }, LATER);
    expect(await store.listOpen(10)).toEqual([expect.objectContaining({ status: 'queued', revivals: 1 })]);
    expect(await store.listOpen(0)).toEqual([]);
  });

  it('lists the notifications of one purchase', async () => {
    await store.create(notification('p-1', 'a'), NOW);
    await store.create(notification('p-1', 'b'), LATER);
    await store.create(notification('p-2', 'a'), NOW);
    expect((await store.listByPurchase('p-1')).map((n) => n.id)).toEqual([
      notification('p-1', 'a').id,
      notification('p-1', 'b').id,
    ]);
    expect(await store.listByPurchase('p-3')).toEqual([]);
  });
});

/** A driver that throws, to check the "never throws" promise is not trusted blindly. */
class ThrowingSender implements SmsSender {
  readonly name = 'throwing';
  async send(_sms: OutboundSms): Promise<SendOutcome> {
    throw new Error('socket hang up');
  }
}

describe('attemptDelivery', () => {
  let store: MemoryNotificationStore;
  let outbox: MemoryOutboxStore;
  let sender: OutboxSender;
  beforeEach(async () => {
    store = new MemoryNotificationStore();
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
