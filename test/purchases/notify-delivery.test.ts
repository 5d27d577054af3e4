import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import request from 'supertest';
import { Redis } from 'ioredis';
import { HttpSmsSender } from '../../src/messaging/http/driver';
import { MemoryOutboxStore, OutboxSender, outboxRouter } from '../../src/messaging/outbox/driver';
import type { SmsSender } from '../../src/messaging/sender';
import { loadLocales } from '../../src/i18n';
import { messageId, type MessageRecord, type MessageStatus } from '../../src/messaging/message';
import {
  BullmqSmsQueue,
  InProcessSmsQueue,
  type SmsQueue,
  type SmsRetryPolicy,
} from '../../src/messaging/queue';
import type { MessageStore } from '../../src/messaging/store/store';
import { PurchaseNotSettledError } from '../../src/purchases/hand-over';
import { createNotifier } from '../../src/purchases/notify/notifier';
import type { PurchaseRecord } from '../../src/purchases/types';
import { intent, record } from './fixtures';
import { freshMessageStore } from './records';
import { deleteKeysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';
import { until } from '../support/wait';

const locales = loadLocales();
/** Fast retries: tests wait for outcomes, never for time. */
const FAST: SmsRetryPolicy = { attempts: 20, baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 5 };

/** A provider webhook that answers 503 to the first `failures` posts, then 200 (or `finalStatus`). */
class SmsPeer {
  readonly seen: { id: string; to: string; message: string }[] = [];
  failures = 0;
  finalStatus = 200;
  url = '';
  private server: Server | undefined;

  async start(): Promise<void> {
    const app = express().use(express.json());
    app.post('/sms', (req, res) => {
      this.seen.push(req.body as { id: string; to: string; message: string });
      if (this.seen.length <= this.failures) res.status(503).set('Retry-After', '0').end();
      else res.status(this.finalStatus).json({ messageId: `peer-${this.seen.length}` });
    });
    await new Promise<void>((resolve) => {
      this.server = app.listen(0, '127.0.0.1', () => resolve());
    });
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/sms`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

async function untilStatus(queue: SmsQueue, id: string, statuses: MessageStatus[]): Promise<MessageRecord> {
  return until(`notification ${id} to be ${statuses.join('|')}`, async () => {
    const found = await queue.get(id);
    return found && statuses.includes(found.status) ? found : null;
  });
}

function succeeded(overrides: Partial<PurchaseRecord> = {}): PurchaseRecord {
  return record({
    state: 'succeeded',
    result: {
      transactionId: 1,
      reference: 'REF-1',
      rawToken: '1111 2222 3333 4444 5555',
      units: '10kWh',
      total: { currency: 'BWP', minor: 10000 },
      providerTransactionId: 'P1',
    },
    ...overrides,
  });
}

interface Harness {
  make(sender: SmsSender, policy?: SmsRetryPolicy): Promise<SmsQueue>;
  cleanup(): Promise<void>;
}

/** The test's messages: one emptied store per test (its queues share it). */
let store: Promise<MessageStore>;
beforeEach(() => {
  store = freshMessageStore();
});

const inProcess = (): Harness => {
  const queues: SmsQueue[] = [];
  return {
    async make(sender, policy = FAST) {
      const queue = new InProcessSmsQueue({ sender, policy, store: await store });
      queues.push(queue);
      return queue;
    },
    async cleanup() {
      await Promise.all(queues.map((q) => q.close()));
    },
  };
};

const bullmq = (): Harness => {
  const redis = new Redis(TEST_REDIS_URL);
  const prefix = testPrefix('purchases');
  const queues: BullmqSmsQueue[] = [];
  return {
    async make(sender, policy = FAST) {
      const queue = new BullmqSmsQueue({
        connection: { url: TEST_REDIS_URL, maxRetriesPerRequest: null },
        prefix,
        sender,
        policy,
        store: await store,
      });
      await queue.ready();
      queues.push(queue);
      return queue;
    },
    async cleanup() {
      for (const queue of queues) {
        await queue.close();
      }
      await deleteKeysUnder(redis, prefix);
      redis.disconnect();
    },
  };
};

describe.each([
  ['in-process queue', inProcess],
  ['BullMQ queue on Redis', bullmq],
])('%s', (_name, harnessOf) => {
  let harness: Harness;
  const peer = new SmsPeer();

  beforeAll(() => peer.start());
  afterAll(() => peer.stop());
  beforeEach(() => {
    harness = harnessOf();
    peer.seen.length = 0;
    peer.failures = 0;
    peer.finalStatus = 200;
  });
  afterEach(() => harness.cleanup());

  it('SMS provider down then up: delivered exactly once, every attempt with the same id', async () => {
    peer.failures = 4;
    const queue = await harness.make(new HttpSmsSender({ url: peer.url, timeoutMs: 5000 }));
    const notifier = createNotifier({ queue, locales, senderId: 'POWER' });
    const purchase = succeeded();
    await notifier.notify(purchase, 'settled', 'settled');

    const id = messageId(purchase.id, 'settled', '26771234567');
    const sent = await untilStatus(queue, id, ['sent', 'rejected', 'undelivered']);
    expect(sent).toMatchObject({
      kind: 'purchase-outcome',
      purchaseId: purchase.id,
      status: 'sent',
      attempts: 5,
      providerMessageId: 'peer-5',
      lastError: null,
    });
    expect(peer.seen).toHaveLength(5);
    expect(new Set(peer.seen.map((s) => s.id))).toEqual(new Set([id]));
    expect(peer.seen[4].message).toContain('1111 2222 3333 4444 5555');
  });

  it('a duplicate notify with the same requestKey sends one SMS; a resend with a new key sends a second', async () => {
    const queue = await harness.make(new HttpSmsSender({ url: peer.url, timeoutMs: 5000 }));
    const notifier = createNotifier({ queue, locales });
    const purchase = succeeded();
    await Promise.all([
      notifier.notify(purchase, 'settled', 'settled'),
      notifier.notify(purchase, 'settled', 'settled'),
    ]);
    const first = messageId(purchase.id, 'settled', '26771234567');
    await untilStatus(queue, first, ['sent']);
    // Again after delivery (the job is gone by now): still nothing new.
    await notifier.notify(purchase, 'settled', 'settled');
    expect(await queue.store.listByPurchase(purchase.id)).toHaveLength(1);

    await notifier.notify(purchase, 'resend', 'resend-1');
    const second = messageId(purchase.id, 'resend-1', '26771234567');
    await untilStatus(queue, second, ['sent']);
    expect(peer.seen.map((s) => s.id)).toEqual([first, second]);
  });

  it('queues one SMS for the beneficiary and one for the agent who bought it', async () => {
    const queue = await harness.make(new HttpSmsSender({ url: peer.url, timeoutMs: 5000 }));
    const purchase = succeeded({
      intent: intent({ beneficiaryMsisdn: '26771111111', requesterMsisdn: '26772222222' }),
    });
    await createNotifier({ queue, locales }).notify(purchase, 'settled', 'k');
    await untilStatus(queue, messageId(purchase.id, 'k', '26771111111'), ['sent']);
    await untilStatus(queue, messageId(purchase.id, 'k', '26772222222'), ['sent']);
    expect(peer.seen.map((s) => s.to).sort()).toEqual(['26771111111', '26772222222']);
  });

  it('a rejected message is given up at once and recorded', async () => {
    peer.finalStatus = 400;
    const queue = await harness.make(new HttpSmsSender({ url: peer.url, timeoutMs: 5000 }));
    const purchase = succeeded();
    await createNotifier({ queue, locales }).notify(purchase, 'settled', 'k');
    const rejected = await untilStatus(queue, messageId(purchase.id, 'k', '26771234567'), [
      'sent',
      'rejected',
      'undelivered',
    ]);
    expect(rejected).toMatchObject({ status: 'rejected', attempts: 1 });
    expect(rejected.lastError).toContain('HTTP 400');
    expect(peer.seen).toHaveLength(1);
  });

  it('past the retry horizon the message is recorded undelivered (for an operator to resend)', async () => {
    peer.failures = 1000;
    const queue = await harness.make(new HttpSmsSender({ url: peer.url, timeoutMs: 5000 }), {
      ...FAST,
      attempts: 3,
    });
    const purchase = succeeded();
    await createNotifier({ queue, locales }).notify(purchase, 'settled', 'k');
    const given = await untilStatus(queue, messageId(purchase.id, 'k', '26771234567'), [
      'sent',
      'rejected',
      'undelivered',
    ]);
    expect(given).toMatchObject({ status: 'undelivered', attempts: 3 });
    expect(peer.seen).toHaveLength(3);
  });

  it('outbox driver end to end: notify → GET /dev/sms shows the message with parts, encoding and purchase id', async () => {
    const outbox = new MemoryOutboxStore();
    const queue = await harness.make(new OutboxSender(outbox));
    const purchase = succeeded({
      intent: intent({ language: 'tn-BW' }),
      result: {
        transactionId: 3,
        reference: 'REF-3',
        rawToken:
          'KeyChange Token1: 1111 1111 1111 1111 1111 | KeyChange Token2: 2222 2222 2222 2222 2222 | Credit Token: 3333 3333 3333 3333 3333',
        units: '55.1kWh',
        total: { currency: 'BWP', minor: 150000 },
        providerTransactionId: 'P3',
      },
    });
    await createNotifier({ queue, locales, senderId: 'POWER' }).notify(purchase, 'settled', 'settled');
    await untilStatus(queue, messageId(purchase.id, 'settled', '26771234567'), ['sent']);

    const app = express().use(outboxRouter(outbox));
    const res = await request(app).get('/dev/sms').query({ to: '26771234567' }).expect(200);
    expect(res.body.messages).toHaveLength(1);
    const [message] = res.body.messages as Record<string, unknown>[];
    expect(message).toMatchObject({
      id: messageId(purchase.id, 'settled', '26771234567'),
      to: '26771234567',
      from: 'POWER',
      encoding: 'GSM-7',
      parts: 2,
      purchaseId: purchase.id,
    });
    expect(message.message).toContain('KeyChange Token1: 1111 1111 1111 1111 1111\nKeyChange Token2:');
    expect(message.message).toContain('Credit Token: 3333 3333 3333 3333 3333');
    expect(message.message).toContain('Palogotlhe: BWP 1500.00'); // the total paid, labelled as on the quote
  });

  it('refuses to notify a purchase that has not settled', async () => {
    const queue = await harness.make(new OutboxSender(new MemoryOutboxStore()));
    await expect(
      createNotifier({ queue, locales }).notify(record({ state: 'confirming' }), 'settled', 'k'),
    ).rejects.toBeInstanceOf(PurchaseNotSettledError);
  });
});
