import express from 'express';
import request from 'supertest';
import { MemoryOutboxStore, OutboxSender } from '../../src/messaging/outbox/driver';
import { loadLocales } from '../../src/i18n';
import { createAdminRouter } from '../../src/purchases/admin/router';
import { createNotifier } from '../../src/purchases/notify/notifier';
import { InProcessSmsQueue } from '../../src/messaging/queue';
import type { PurchaseStore } from '../../src/purchases/store';
import { createPurchaseDesk, type RunningPurchaseDesk } from '../../src/purchases/desk';
import { InProcessJobQueue } from '../../src/queue';
import type { PurchaseRecord } from '../../src/purchases/types';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { makeService } from './harness';
import { freshMessageStore, freshPurchaseStore } from './records';
import { intent, record } from './fixtures';
import { until } from '../support/wait';

const TOKEN = 'operator-secret-token';
const locales = loadLocales();

/** The lifecycle's real desk; the sandbox behind it is never called for these seeded records. */
function realDesk(store: PurchaseStore, notifier: ReturnType<typeof createNotifier>): RunningPurchaseDesk {
  return createPurchaseDesk({
    store,
    queue: new InProcessJobQueue(),
    service: makeService(sandbox.url),
    notifier,
    config: {
      purchaseApi: { confirmTimeoutMs: 1000 } as never,
      reconcile: { baseDelayMs: 20, deadlineMs: 20_000 },
    },
  });
}

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
});
afterAll(() => sandbox.close());

let store: PurchaseStore;
let outbox: MemoryOutboxStore;
let queue: InProcessSmsQueue;
let app: express.Express;
let stuck: PurchaseRecord;
let done: PurchaseRecord;
let pending: PurchaseRecord;

beforeEach(async () => {
  store = await freshPurchaseStore();
  outbox = new MemoryOutboxStore();
  queue = new InProcessSmsQueue({ sender: new OutboxSender(outbox), store: await freshMessageStore() });
  const desk = realDesk(store, createNotifier({ queue, locales }));
  stuck = record({
    state: 'needs_attention',
    intent: intent({ beneficiaryMsisdn: '26771000001', requesterMsisdn: '26771000001' }),
  });
  done = record({
    state: 'succeeded',
    intent: intent({ beneficiaryMsisdn: '26771000002', requesterMsisdn: '26771000002' }),
    result: {
      transactionId: 9,
      reference: 'REF-9',
      rawToken: '9999 8888 7777 6666 5555',
      units: '3kWh',
      total: { currency: 'BWP', minor: 5000 },
      providerTransactionId: 'P9',
    },
  });
  pending = record({ state: 'reconciling' });
  for (const r of [stuck, done, pending]) await store.create(r);
  app = express().use(createAdminRouter({ desk, adminToken: TOKEN, notifications: queue.store }));
});

afterEach(() => queue.close());

const auth = { Authorization: `Bearer ${TOKEN}` };

describe('admin router: access', () => {
  it('is not mounted at all without ADMIN_TOKEN (404)', async () => {
    const bare = express().use(
      createAdminRouter({ desk: realDesk(store, createNotifier({ queue, locales })), adminToken: undefined }),
    );
    await request(bare).get('/admin/purchases?state=needs_attention').set(auth).expect(404);
    await request(bare).post(`/admin/purchases/${done.id}/resend-sms`).set(auth).expect(404);
  });

  test.each([
    ['no header', {}],
    ['wrong token', { Authorization: 'Bearer nope' }],
    ['token prefix only', { Authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
    ['not a bearer', { Authorization: `Basic ${TOKEN}` }],
    ['empty bearer', { Authorization: 'Bearer ' }],
  ])('refuses %s with 401 JSON', async (_label, headers) => {
    const res = await request(app)
      .get('/admin/purchases?state=needs_attention')
      .set(headers as Record<string, string>)
      .expect(401);
    expect(res.body.error).toBe('unauthorized');
    expect(res.headers['www-authenticate']).toContain('Bearer');
  });
});

describe('admin router: purchases', () => {
  it('lists by state with full MSISDNs', async () => {
    const res = await request(app).get('/admin/purchases?state=needs_attention').set(auth).expect(200);
    expect(res.body).toMatchObject({ state: 'needs_attention', count: 1 });
    expect(res.body.purchases[0]).toMatchObject({
      id: stuck.id,
      state: 'needs_attention',
      intent: { beneficiaryMsisdn: '26771000001' },
    });
  });

  it('honours limit', async () => {
    for (let i = 0; i < 3; i++) await store.create(record({ state: 'failed' }));
    const res = await request(app).get('/admin/purchases?state=failed&limit=2').set(auth).expect(200);
    expect(res.body.count).toBe(2);
  });

  test.each([
    ['missing state', '/admin/purchases', 'invalid_state'],
    ['unknown state', '/admin/purchases?state=stuck', 'invalid_state'],
    ['limit 0', '/admin/purchases?state=failed&limit=0', 'invalid_limit'],
    ['limit not a number', '/admin/purchases?state=failed&limit=ten', 'invalid_limit'],
    ['limit too big', '/admin/purchases?state=failed&limit=100000', 'invalid_limit'],
  ])('%s → 400', async (_label, path, error) => {
    const res = await request(app).get(path).set(auth).expect(400);
    expect(res.body.error).toBe(error);
    if (error === 'invalid_state') expect(res.body.validStates).toContain('needs_attention');
  });

  it('shows one purchase with its SMS', async () => {
    const res = await request(app).get(`/admin/purchases/${done.id}`).set(auth).expect(200);
    expect(res.body.purchase).toMatchObject({ id: done.id, state: 'succeeded' });
    expect(res.body.sms).toEqual([]);
  });

  it('answers 404 JSON for an unknown purchase', async () => {
    const res = await request(app).get('/admin/purchases/nope').set(auth).expect(404);
    expect(res.body.error).toBe('not_found');
    await request(app).post('/admin/purchases/nope/resend-sms').set(auth).expect(404);
  });
});

describe('admin router: resend', () => {
  it('re-sends the SMS of a settled purchase; the same Idempotency-Key twice sends once', async () => {
    const first = await request(app)
      .post(`/admin/purchases/${done.id}/resend-sms`)
      .set(auth)
      .set('Idempotency-Key', 'ticket-42')
      .expect(202);
    expect(first.body).toEqual({ queued: true, purchaseId: done.id, requestKey: 'admin-ticket-42' });
    await request(app)
      .post(`/admin/purchases/${done.id}/resend-sms`)
      .set(auth)
      .set('Idempotency-Key', 'ticket-42')
      .expect(202);
    await until('the SMS sent', async () =>
      (await queue.store.listByPurchase(done.id)).every((n) => n.status === 'sent'),
    );

    const messages = await outbox.list({ to: '26771000002' });
    expect(messages).toHaveLength(1);
    expect(messages[0].message).toContain('9999 8888 7777 6666 5555');

    // No key: a fresh one each time, so each ask is a new SMS.
    await request(app).post(`/admin/purchases/${done.id}/resend-sms`).set(auth).expect(202);
    await until(
      'both SMS in the outbox',
      async () => (await outbox.list({ to: '26771000002' })).length === 2,
    );

    const shown = await request(app).get(`/admin/purchases/${done.id}`).set(auth).expect(200);
    expect(shown.body.sms).toHaveLength(2);
    expect(shown.body.sms[0]).toMatchObject({ to: '26771000002', purchaseId: done.id });
  });

  it('takes the request key from a JSON body too', async () => {
    const res = await request(app)
      .post(`/admin/purchases/${stuck.id}/resend-sms`)
      .set(auth)
      .send({ requestKey: 'call-7' })
      .expect(202);
    expect(res.body.requestKey).toBe('admin-call-7');
  });

  it('answers 409 for a purchase that has not settled yet', async () => {
    const res = await request(app).post(`/admin/purchases/${pending.id}/resend-sms`).set(auth).expect(409);
    expect(res.body).toMatchObject({ error: 'not_settled', state: 'reconciling' });
    expect(await queue.store.listByPurchase(pending.id)).toEqual([]);
  });

  test.each([
    ['malformed JSON', '{"requestKey":', 'bad_request'],
    ['non-string key', '{"requestKey": 5}', 'invalid_request_key'],
    ['empty key', '{"requestKey": " "}', 'invalid_request_key'],
  ])('%s → 400', async (_label, body, error) => {
    const res = await request(app)
      .post(`/admin/purchases/${done.id}/resend-sms`)
      .set(auth)
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(400);
    expect(res.body.error).toBe(error);
  });
});

describe('admin router: malformed requests are the client’s mistake, named, and change nothing', () => {
  it('a body over 16kb → 413 naming the size, nothing queued', async () => {
    const res = await request(app)
      .post(`/admin/purchases/${done.id}/resend-sms`)
      .set(auth)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ requestKey: 'k', pad: 'x'.repeat(20_000) }))
      .expect(413);
    expect(res.body).toEqual({ error: 'bad_request', message: 'request body is larger than 16kb' });
    expect(await queue.store.listByPurchase(done.id)).toEqual([]);
  });

  it('a JSON body in an unsupported charset → 415, not 500', async () => {
    const res = await request(app)
      .post(`/admin/purchases/${done.id}/resend-sms`)
      .set(auth)
      .set('Content-Type', 'application/json; charset=latin9')
      .send('{}')
      .expect(415);
    expect(res.body.error).toBe('bad_request');
    expect(await queue.store.listByPurchase(done.id)).toEqual([]);
  });

  it('an id that is not valid percent-encoding → 400 JSON without a stack', async () => {
    const res = await request(app).get('/admin/purchases/%E0%A4%A').set(auth).expect(400);
    expect(res.body).toEqual({ error: 'bad_request', message: 'malformed request (path or body)' });
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.js|URIError/);
  });

  it('an unknown id with odd characters → 404 JSON', async () => {
    const res = await request(app).get('/admin/purchases/..%2F..%2Fetc').set(auth).expect(404);
    expect(res.body.error).toBe('not_found');
  });
});
