import express from 'express';
import request from 'supertest';
import { Redis } from 'ioredis';
import {
  MemoryOutboxStore,
  OutboxSender,
  outboxRouter,
  RedisOutboxStore,
  type OutboxStore,
} from '../../src/messaging/outbox/driver';
import { loadLocales } from '../../src/i18n';
import { createAdminRouter } from '../../src/purchases/admin/router';
import { createPurchaseDesk, type RunningPurchaseDesk } from '../../src/purchases/desk';
import { BullmqSmsQueue, InProcessSmsQueue, type SmsQueue } from '../../src/messaging/queue';
import { createNotifier } from '../../src/purchases/notify/notifier';
import { BullJobQueue, InProcessJobQueue, type JobQueue } from '../../src/queue';
import { SETTLED_STATES, type PurchaseStore } from '../../src/purchases/store';
import type { PurchaseRecord } from '../../src/purchases/types';
import { startSandbox, TEST_METERS, type RunningSandbox } from '../../src/sandbox';
import { intent } from './fixtures';
import { makeService } from './harness';
import { freshMessageStore, freshPurchaseStore } from './records';
import { deleteKeysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';
import { until } from '../support/wait';

const locales = loadLocales();
const ADMIN = 'e2e-admin-token';

interface World {
  desk: RunningPurchaseDesk;
  store: PurchaseStore;
  sms: SmsQueue;
  app: express.Express;
  close(): Promise<void>;
}

/**
 * The lifecycle, the notifier, the SMS queue and the outbox, all real: purchases and SMS in this
 * file's PostgreSQL schema, the rest in memory or on Redis.
 */
async function world(sandbox: RunningSandbox, mode: 'in-process' | 'redis'): Promise<World> {
  const prefix = testPrefix('purchases');
  const redis = mode === 'redis' ? new Redis(TEST_REDIS_URL) : null;
  const store: PurchaseStore = await freshPurchaseStore();
  const messages = await freshMessageStore();
  let jobs: JobQueue;
  let outbox: OutboxStore;
  let sms: SmsQueue;
  if (redis) {
    jobs = new BullJobQueue({
      connection: { url: TEST_REDIS_URL },
      prefix: `${prefix}-bull`,
      retryDelayMs: 50,
    });
    outbox = new RedisOutboxStore(redis, { prefix });
    const bull = new BullmqSmsQueue({
      connection: { url: TEST_REDIS_URL, maxRetriesPerRequest: null },
      prefix: `${prefix}-sms`,
      sender: new OutboxSender(outbox),
      store: messages,
    });
    await bull.ready();
    sms = bull;
  } else {
    jobs = new InProcessJobQueue({ retryDelayMs: 50 });
    outbox = new MemoryOutboxStore();
    sms = new InProcessSmsQueue({ sender: new OutboxSender(outbox), store: messages });
  }
  const desk = createPurchaseDesk({
    store,
    queue: jobs,
    service: makeService(sandbox.url),
    notifier: createNotifier({ queue: sms, locales, senderId: 'POWER' }),
    config: {
      purchaseApi: { confirmTimeoutMs: 2000 } as never,
      reconcile: { baseDelayMs: 20, deadlineMs: 20_000 },
    },
    settings: { inFlightMarginMs: 100, maxDelayMs: 200 },
  });
  await desk.startWorker();
  const app = express()
    .use(outboxRouter(outbox))
    .use(createAdminRouter({ desk, adminToken: ADMIN, notifications: sms.store }));
  return {
    desk,
    store,
    sms,
    app,
    async close() {
      await jobs.close();
      await sms.close();
      if (jobs instanceof BullJobQueue) await jobs.obliterate().catch(() => undefined);
      if (redis) {
        await deleteKeysUnder(redis, prefix);
        await redis.quit();
      }
    },
  };
}

async function outboxFor(app: express.Express, to: string): Promise<Record<string, unknown>[]> {
  const res = await request(app).get('/dev/sms').query({ to }).expect(200);
  return res.body.messages as Record<string, unknown>[];
}

describe.each(['in-process', 'redis'] as const)('purchase → outcome SMS in the outbox (%s)', (mode) => {
  let sandbox: RunningSandbox;
  let w: World;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, silent: true });
  });
  afterAll(() => sandbox.close());
  beforeEach(async () => {
    w = await world(sandbox, mode);
  });
  afterEach(() => w.close());

  async function buy(overrides: Parameters<typeof intent>[0]): Promise<PurchaseRecord> {
    const created = await w.desk.create(intent(overrides), `e2e-${Math.random()}`);
    return until(`purchase ${created.id} to settle`, async () => {
      const r = await w.store.get(created.id);
      return r && SETTLED_STATES.includes(r.state) ? r : null;
    });
  }

  it('a token purchase: one SMS with the token, to the beneficiary', async () => {
    const done = await buy({
      subscriberIdentifier: TEST_METERS.active,
      beneficiaryMsisdn: '26771000101',
      requesterMsisdn: '26771000101',
    });
    expect(done.state).toBe('succeeded');
    const [sms] = await until('the SMS', async () => {
      const list = await outboxFor(w.app, '26771000101');
      return list.length > 0 ? list : null;
    });
    expect(sms).toMatchObject({ from: 'POWER', purchaseId: done.id, encoding: 'GSM-7', parts: 1 });
    expect(sms.message).toContain(done.result!.rawToken!);
    expect(sms.message).toContain(`Ref: ${done.result!.reference}`);
  });

  it('auto key change: three tokens, key-change first, multi-part; the payer of a gift gets a receipt without them', async () => {
    const done = await buy({
      subscriberIdentifier: TEST_METERS.autoKeyChange,
      amount: { currency: 'BWP', minor: 150000 },
      beneficiaryMsisdn: '26771000102',
      requesterMsisdn: '26772000102',
    });
    expect(done.state).toBe('succeeded');
    const [sms] = await until('the SMS to the beneficiary', async () => {
      const list = await outboxFor(w.app, '26771000102');
      return list.length > 0 ? list : null;
    });
    const text = sms.message as string;
    expect(text.indexOf('KeyChange Token1')).toBeLessThan(text.indexOf('KeyChange Token2'));
    expect(text.indexOf('KeyChange Token2')).toBeLessThan(text.indexOf('Credit Token'));
    expect(sms.parts).toBeGreaterThan(1);
    const [receipt] = await until('the payer receipt', async () => {
      const list = await outboxFor(w.app, '26772000102');
      return list.length > 0 ? list : null;
    });
    expect(receipt.message).toContain('for 267****0102: the token was sent to that number.');
    expect(receipt.message).toContain(`Ref: ${done.result!.reference}`);
    expect(receipt.message).not.toContain('Token');
  });

  it('a failed purchase says so, and "not charged" only when the record knows it', async () => {
    const done = await buy({
      subscriberIdentifier: TEST_METERS.fixedCharge,
      amount: { currency: 'BWP', minor: 50000 },
      beneficiaryMsisdn: '26771000103',
      requesterMsisdn: '26771000103',
      language: 'tn-BW',
    });
    expect(done.state).toBe('failed');
    const [sms] = await until('the SMS', async () => {
      const list = await outboxFor(w.app, '26771000103');
      return list.length > 0 ? list : null;
    });
    expect(sms.message).toContain('ga e a atlega');
    expect((sms.message as string).includes('Ga o a duelisiwa')).toBe(done.failure?.charged === false);
  });

  it('an operator re-sends the SMS through /admin/purchases: a second message with the same token', async () => {
    const done = await buy({
      subscriberIdentifier: TEST_METERS.active,
      beneficiaryMsisdn: '26771000104',
      requesterMsisdn: '26771000104',
    });
    await until('the first SMS', async () => (await outboxFor(w.app, '26771000104')).length === 1);
    await request(w.app)
      .post(`/admin/purchases/${done.id}/resend-sms`)
      .set('Authorization', `Bearer ${ADMIN}`)
      .set('Idempotency-Key', 'call-1')
      .expect(202);
    const both = await until('the second SMS', async () => {
      const list = await outboxFor(w.app, '26771000104');
      return list.length === 2 ? list : null;
    });
    expect(both[0].message).toBe(both[1].message);
    expect(both[0].id).not.toBe(both[1].id);
    // The outbox has a copy before the SMS is marked sent (the mark is written after the send).
    const statuses = await until('both SMS marked sent', async () => {
      const shown = await request(w.app)
        .get(`/admin/purchases/${done.id}`)
        .set('Authorization', `Bearer ${ADMIN}`)
        .expect(200);
      const list = (shown.body.sms as { status: string }[]).map((n) => n.status);
      return list.every((status) => status === 'sent') ? list : null;
    });
    expect(statuses).toEqual(['sent', 'sent']);
  });
});
