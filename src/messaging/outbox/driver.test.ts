import express from 'express';
import { Redis } from 'ioredis';
import request from 'supertest';
import { deleteKeysUnder, testPrefix, testRedis } from '../../../test/support/redis';
import { MemoryOutboxStore, OutboxSender, RedisOutboxStore, outboxRouter, type OutboxStore } from './driver';

const { redis, cleanup } = testRedis('outbox');
const prefixes: string[] = [];

afterAll(async () => {
  for (const prefix of prefixes) await deleteKeysUnder(redis, prefix);
  await cleanup();
});

type StoreFactory = (cap?: number) => OutboxStore;
const stores: [string, StoreFactory][] = [
  ['memory', (cap) => new MemoryOutboxStore(cap)],
  [
    'redis',
    (cap) => {
      const prefix = testPrefix('outbox');
      prefixes.push(prefix);
      return new RedisOutboxStore(redis, { prefix, cap });
    },
  ],
];

let clock = Date.parse('2025-01-02T03:04:05.000Z');
const now = () => new Date((clock += 1000));

describe.each(stores)('outbox driver on the %s store', (_name, makeStore) => {
  it('stores an entry with parts, encoding, createdAt and purchaseId', async () => {
    const store = makeStore();
    const sender = new OutboxSender(store, () => new Date('2025-01-02T03:04:05.000Z'));
    const outcome = await sender.send({
      id: 'n1',
      to: '26771234567',
      message: 'Token 1234 5678',
      purchaseId: 'p1',
    });
    expect(outcome).toEqual({ status: 'sent', providerMessageIds: ['outbox:n1'] });
    expect(await store.list()).toEqual([
      {
        id: 'n1',
        to: '26771234567',
        from: null,
        message: 'Token 1234 5678',
        parts: 1,
        encoding: 'GSM-7',
        createdAt: '2025-01-02T03:04:05.000Z',
        purchaseId: 'p1',
      },
    ]);
  });

  test.each([
    ['long GSM-7', 'a'.repeat(161), 2, 'GSM-7'],
    ['UCS-2', 'Привет', 1, 'UCS-2'],
    ['long UCS-2', 'ж'.repeat(71), 2, 'UCS-2'],
  ])('%s message is measured', async (_label, message, parts, encoding) => {
    const store = makeStore();
    await new OutboxSender(store, now).send({ id: 'm', to: '26771234567', from: 'POWER', message });
    expect(await store.list()).toMatchObject([{ parts, encoding, from: 'POWER' }]);
  });

  it('stores the same id once', async () => {
    const store = makeStore();
    const sender = new OutboxSender(store, now);
    const sms = { id: 'dup', to: '26771234567', message: 'once' };
    expect((await sender.send(sms)).status).toBe('sent');
    expect((await sender.send({ ...sms, message: 'twice' })).status).toBe('sent');
    expect((await store.list()).map((e) => e.message)).toEqual(['once']);
  });

  it('lists newest first, filters by recipient and limits', async () => {
    const store = makeStore();
    const sender = new OutboxSender(store, now);
    for (const [id, to] of [
      ['a', '26771111111'],
      ['b', '26772222222'],
      ['c', '26771111111'],
      ['d', '26771111111'],
    ]) {
      await sender.send({ id, to, message: `msg ${id}` });
    }
    expect((await store.list()).map((e) => e.id)).toEqual(['d', 'c', 'b', 'a']);
    expect((await store.list({ to: '26771111111' })).map((e) => e.id)).toEqual(['d', 'c', 'a']);
    expect((await store.list({ to: '26771111111', limit: 2 })).map((e) => e.id)).toEqual(['d', 'c']);
    expect(await store.list({ to: '26779999999' })).toEqual([]);
  });

  it('caps the number of entries kept', async () => {
    const store = makeStore(3);
    const sender = new OutboxSender(store, now);
    for (const id of ['1', '2', '3', '4', '5']) await sender.send({ id, to: '26771111111', message: id });
    expect((await store.list({ limit: 10 })).map((e) => e.id)).toEqual(['5', '4', '3']);
    expect((await store.list({ to: '26771111111', limit: 10 })).map((e) => e.id)).toEqual(['5', '4', '3']);
  });

  describe('GET /dev/sms', () => {
    const store = makeStore();
    const app = express().use(outboxRouter(store));

    beforeAll(async () => {
      const sender = new OutboxSender(store, now);
      await sender.send({ id: 'x1', to: '26771111111', message: 'first' });
      await sender.send({ id: 'x2', to: '26772222222', message: 'second', purchaseId: 'p2' });
      await sender.send({ id: 'x3', to: '26771111111', message: 'third' });
    });

    test.each([
      ['all, newest first', '/dev/sms', 200, ['x3', 'x2', 'x1']],
      ['filtered by recipient', '/dev/sms?to=26771111111', 200, ['x3', 'x1']],
      ['limited', '/dev/sms?limit=1', 200, ['x3']],
      ['unknown recipient', '/dev/sms?to=26779999999', 200, []],
    ])('%s', async (_label, url, status, ids) => {
      const res = await request(app).get(url);
      expect(res.status).toBe(status);
      expect(res.body.messages.map((m: { id: string }) => m.id)).toEqual(ids);
    });

    test.each([
      ['to with +', '/dev/sms?to=%2B26771111111', /to must be an E\.164 number/],
      ['to with letters', '/dev/sms?to=abc', /to must be an E\.164 number/],
      ['to repeated', '/dev/sms?to=1&to=2', /to must be an E\.164 number/],
      ['limit zero', '/dev/sms?limit=0', /limit must be a whole number/],
      ['limit not a number', '/dev/sms?limit=ten', /limit must be a whole number/],
    ])('%s → 400', async (_label, url, message) => {
      const res = await request(app).get(url);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(message);
    });

    it('returns every field of an entry', async () => {
      const res = await request(app).get('/dev/sms?to=26772222222');
      expect(res.body.messages[0]).toEqual({
        id: 'x2',
        to: '26772222222',
        from: null,
        message: 'second',
        parts: 1,
        encoding: 'GSM-7',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        purchaseId: 'p2',
      });
    });
  });
});

describe('outbox driver with a failing store', () => {
  it('answers retry, never throws', async () => {
    const broken: OutboxStore = {
      add: () => Promise.reject(new Error('connection refused')),
      list: () => Promise.resolve([]),
    };
    const outcome = await new OutboxSender(broken).send({ id: 'z', to: '26771234567', message: 'hi' });
    expect(outcome).toEqual({ status: 'retry', reason: 'outbox store failed: connection refused' });
  });
});

describe('GET /dev/sms with its Redis down', () => {
  const down = new Redis({
    host: '127.0.0.1',
    port: 1,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
  });
  afterAll(() => down.disconnect());

  it('answers 503 JSON, never an error page with a stack trace', async () => {
    const app = express().use(outboxRouter(new RedisOutboxStore(down, { prefix: 'unused' })));
    const res = await request(app).get('/dev/sms?to=26771234567').expect(503);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual({ error: 'the outbox store is unavailable; try again' });
  });
});
