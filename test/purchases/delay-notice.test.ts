import { MemoryOutboxStore, OutboxSender } from '../../src/messaging/outbox/driver';
import { InProcessSmsQueue } from '../../src/messaging/queue';
import { SqlMessageStore } from '../../src/messaging/store/sql';
import { loadLocales } from '../../src/i18n';
import { DelayNotices } from '../../src/purchases/notify/delay-notice';
import { SqlPurchaseStore } from '../../src/purchases/store/sql';
import type { PurchaseIntent, PurchaseRecord, PurchaseState } from '../../src/purchases/types';
import { openPostgres, type Database } from '../../src/records/database';
import { intent, record } from './fixtures';
import { testDatabase, type TestDatabase } from '../support/database';
import { until } from '../support/wait';

/**
 * "Taking longer than usual, do not pay again" (issue 31 §4): one SMS per late purchase, whatever
 * the number of instances sweeping, on PostgreSQL.
 */

const locales = loadLocales();
let t: TestDatabase;
let second: Database;
beforeAll(async () => {
  t = await testDatabase('delay_notice');
  // A second instance: a pool of its own on the same records.
  second = await openPostgres({ url: t.url, schema: t.schema, max: 4 });
});
afterAll(async () => {
  await second.close();
  await t.cleanup();
});

/** One instance's sweep with its own SMS queue (the real one, over the shared message store). */
function instance(db: Database, afterMs = 120_000) {
  const outbox = new MemoryOutboxStore();
  const queue = new InProcessSmsQueue({ sender: new OutboxSender(outbox), store: new SqlMessageStore(db) });
  return { notices: new DelayNotices({ db, queue, locales, afterMs }), outbox, queue };
}

async function purchase(
  state: PurchaseState,
  overrides: Partial<PurchaseIntent> = {},
  createdAt?: string,
): Promise<PurchaseRecord> {
  const store = new SqlPurchaseStore({ db: t.db });
  const r = record({ intent: intent(overrides), ...(createdAt && { createdAt, updatedAt: createdAt }) });
  await store.create(r);
  if (state === 'created') return r;
  const moved = await store.transition(r.id, ['created'], state, r.version, {});
  if (!moved.ok) throw new Error('not moved');
  return moved.record;
}

beforeEach(async () => {
  await t.db.query('TRUNCATE purchases, delay_notices, sms_messages CASCADE');
});

it('sends one SMS per late purchase with two instances sweeping at once, never again after', async () => {
  const late: PurchaseRecord[] = [];
  for (let i = 0; i < 12; i += 1)
    late.push(
      await purchase(i % 3 === 0 ? 'unknown' : 'confirming', { requesterMsisdn: `2677200${1000 + i}` }),
    );
  const a = instance(t.db);
  const b = instance(second);
  const [fromA, fromB] = await Promise.all([a.notices.sweep(), b.notices.sweep()]);
  expect(fromA + fromB).toBe(12);
  const sent = async () => [
    ...(await a.outbox.list({ limit: 100 })),
    ...(await b.outbox.list({ limit: 100 })),
  ];
  await until('12 notices sent', async () => (await sent()).length === 12);
  expect(new Set((await sent()).map((s) => s.purchaseId))).toEqual(new Set(late.map((r) => r.id)));
  // Sweeping again (both instances) sends nothing more.
  expect(await Promise.all([a.notices.sweep(), b.notices.sweep(), a.notices.sweep()])).toEqual([0, 0, 0]);
  const rows = await t.db.query<{ n: string }>('SELECT count(*)::text AS n FROM sms_messages');
  expect(rows.rows[0].n).toBe('12');
  await a.queue.close();
  await b.queue.close();
});

it('tells the buyer in its language: do not pay again, with the reference', async () => {
  const r = await purchase('reconciling', {
    requesterMsisdn: '26772009001',
    beneficiaryMsisdn: '26772009002',
    language: 'tn-BW',
  });
  const en = await purchase('confirming', { requesterMsisdn: '26772009003' });
  const one = instance(t.db);
  expect(await one.notices.sweep()).toBe(2);
  const [tn] = await until('the notice', () =>
    one.outbox.list({ to: '26772009001' }).then((l) => (l.length > 0 ? l : null)),
  );
  expect(tn.message).toBe(
    `Theko ya gago ya Motlakase ya BWP 100.00 ya 01234567890 (ref ${r.externalReference}) e tsaya nako e telele go feta ka tlwaelo. O se ka wa duela gape: tokene ya gago e tla latela, kgotsa madi a gago a tla busediwa.`,
  );
  const [english] = await until('the notice', () =>
    one.outbox.list({ to: '26772009003' }).then((l) => (l.length > 0 ? l : null)),
  );
  expect(english.message).toBe(
    `Your purchase of Electricity BWP 100.00 for 01234567890 (ref ${en.externalReference}) is taking longer than usual. Do not pay again: your token will follow, or your money will be returned.`,
  );
  // The payer is told, not the beneficiary.
  expect(await one.outbox.list({ to: '26772009002' })).toEqual([]);
  await one.queue.close();
});

it('leaves alone purchases with an outcome, not late yet, waiting for their payment, or claimed just now', async () => {
  await purchase('succeeded');
  await purchase('failed');
  await purchase('needs_attention');
  await purchase('confirming', {}, new Date().toISOString());
  await purchase('created', { paymentRequired: true });
  const claimed = await purchase('confirming');
  // Another instance claimed it a moment ago and is queuing its SMS.
  await t.db.query('INSERT INTO delay_notices (purchase_id, claimed_at) VALUES ($1, now())', [claimed.id]);
  const one = instance(t.db);
  expect(await one.notices.sweep()).toBe(0);
  // DELAY_NOTICE_S=0: never.
  await purchase('confirming');
  expect(await instance(t.db, 0).notices.sweep()).toBe(0);
  await one.queue.close();
});

it('takes again a claim whose sender died before queuing its SMS (still one SMS)', async () => {
  const r = await purchase('confirming');
  await t.db.query(
    "INSERT INTO delay_notices (purchase_id, claimed_at) VALUES ($1, now() - interval '2 minutes')",
    [r.id],
  );
  const one = instance(t.db);
  expect(await one.notices.sweep()).toBe(1);
  expect(await one.notices.sweep()).toBe(0);
  await until('the notice', async () => (await one.outbox.list()).length === 1);
  const row = await t.db.query<{ queued: boolean }>(
    'SELECT queued_at IS NOT NULL AS queued FROM delay_notices WHERE purchase_id = $1',
    [r.id],
  );
  expect(row.rows).toEqual([{ queued: true }]);
  await one.queue.close();
});
