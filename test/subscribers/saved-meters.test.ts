import { MAX_SAVED_METERS, METERED_PRODUCTS, SqlSavedMeters } from '../../src/subscribers/saved-meters';
import { SqlPurchaseStore } from '../../src/purchases/store/sql';
import type { PurchaseRecord } from '../../src/purchases/types';
import { intent, record } from '../purchases/fixtures';
import type { Queryable } from '../../src/records/database';
import { testDatabase, type TestDatabase } from '../support/database';

/** Saved meters (issue 31 §1) on PostgreSQL: five newest per number and product, kept on success. */

let t: TestDatabase;
let meters: SqlSavedMeters;
beforeAll(async () => {
  t = await testDatabase('saved_meters');
  meters = new SqlSavedMeters(t.db);
});
afterAll(() => t.cleanup());

let n = 0;
const phone = () => `2677100${String((n += 1)).padStart(4, '0')}`;
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString();

it('keeps the five newest identifiers per number and product, newest first, with their names', async () => {
  const msisdn = phone();
  for (let i = 1; i <= 7; i += 1)
    await meters.remember(msisdn, 'ELECTRICITY', `0100000000${i}`, `OWNER ${i}`, at(i));
  await meters.remember(msisdn, 'WATER', '5550001', 'WATER ONE', at(1));

  const elec = await meters.list(msisdn, 'ELECTRICITY');
  expect(elec.map((m) => m.identifier)).toEqual([
    '01000000007',
    '01000000006',
    '01000000005',
    '01000000004',
    '01000000003',
  ]);
  expect(elec).toHaveLength(MAX_SAVED_METERS);
  expect(elec[0]).toEqual({
    productType: 'ELECTRICITY',
    identifier: '01000000007',
    name: 'OWNER 7',
    lastBoughtAt: at(7),
  });
  // The oldest beyond five are gone from the records, not only hidden.
  const rows = await t.db.query('SELECT 1 FROM saved_meters WHERE msisdn = $1 AND product_type = $2', [
    msisdn,
    'ELECTRICITY',
  ]);
  expect(rows.rows).toHaveLength(5);
  // Per product: water has its own list, untouched by electricity's.
  expect((await meters.list(msisdn, 'WATER')).map((m) => m.identifier)).toEqual(['5550001']);
  expect((await meters.lastFor(msisdn, 'ELECTRICITY'))?.identifier).toBe('01000000007');
  expect(await meters.lastFor(msisdn, 'AIRTIME')).toBeNull();
  // Another number sees none of them.
  expect(await meters.list(phone(), 'ELECTRICITY')).toEqual([]);
});

it('buying again for a saved meter moves it first; an older purchase remembered again moves nothing', async () => {
  const msisdn = phone();
  await meters.remember(msisdn, 'ELECTRICITY', 'A1', 'ANNA', at(1));
  await meters.remember(msisdn, 'ELECTRICITY', 'B2', 'BEN', at(2));
  await meters.remember(msisdn, 'ELECTRICITY', 'A1', 'ANNA K', at(3));
  expect((await meters.list(msisdn, 'ELECTRICITY')).map((m) => [m.identifier, m.name])).toEqual([
    ['A1', 'ANNA K'],
    ['B2', 'BEN'],
  ]);
  // The sweep handing an old purchase over again: B2 stays second, its name unchanged.
  await meters.remember(msisdn, 'ELECTRICITY', 'B2', 'OLD NAME', at(0));
  expect((await meters.list(msisdn, 'ELECTRICITY')).map((m) => [m.identifier, m.name])).toEqual([
    ['A1', 'ANNA K'],
    ['B2', 'BEN'],
  ]);
});

it('removes one saved meter', async () => {
  const msisdn = phone();
  await meters.remember(msisdn, 'WATER', 'W1', null, at(1));
  await meters.remember(msisdn, 'WATER', 'W2', null, at(2));
  expect(await meters.remove(msisdn, 'WATER', 'W2')).toBe(true);
  expect(await meters.remove(msisdn, 'WATER', 'W2')).toBe(false);
  expect((await meters.list(msisdn, 'WATER')).map((m) => m.identifier)).toEqual(['W1']);
});

it('lists several products in one statement, and answers what is left after a removal', async () => {
  const msisdn = phone();
  for (let i = 1; i <= 3; i += 1) await meters.remember(msisdn, 'WATER', `W${i}`, `W OWNER ${i}`, at(i));
  await meters.remember(msisdn, 'ELECTRICITY', 'E1', 'KABELO M', at(5));
  await meters.remember(msisdn, 'AIRTIME', '26771000001', null, at(6));
  const both = await meters.listOf(msisdn, METERED_PRODUCTS);
  // Electricity's then water's, each newest first; airtime's numbers are not meters.
  expect(both.map((m) => `${m.productType}:${m.identifier}:${m.name}`)).toEqual([
    'ELECTRICITY:E1:KABELO M',
    'WATER:W3:W OWNER 3',
    'WATER:W2:W OWNER 2',
    'WATER:W1:W OWNER 1',
  ]);
  const left = await meters.removeAndList(msisdn, 'WATER', 'W2', METERED_PRODUCTS);
  expect(left.map((m) => m.identifier)).toEqual(['E1', 'W3', 'W1']);
  expect(await meters.listOf(msisdn, METERED_PRODUCTS)).toEqual(left);
  // Removing one no longer saved changes nothing and still answers the list.
  expect(await meters.removeAndList(msisdn, 'WATER', 'W2', METERED_PRODUCTS)).toEqual(left);
});

it('stays at five when a number settles many purchases at once', async () => {
  const msisdn = phone();
  await Promise.all(
    Array.from({ length: 12 }, (_, i) => meters.remember(msisdn, 'ELECTRICITY', `M${i}`, null, at(i))),
  );
  const rows = await t.db.query('SELECT 1 FROM saved_meters WHERE msisdn = $1', [msisdn]);
  expect(rows.rows).toHaveLength(5);
});

describe('the settlement hook', () => {
  const store = () => new SqlPurchaseStore({ db: t.db });

  async function settled(state: 'succeeded' | 'failed', overrides = {}): Promise<PurchaseRecord> {
    const r = record({ intent: intent(overrides) });
    await store().create(r);
    const moved = await store().transition(r.id, ['created'], state, r.version, { settledAt: r.createdAt });
    if (!moved.ok) throw new Error('not moved');
    return moved.record;
  }

  it('remembers a succeeded purchase for its payer (a gift too), not a failed one nor an agent sale', async () => {
    const payer = phone();
    const ok = await settled('succeeded', {
      requesterMsisdn: payer,
      beneficiaryMsisdn: phone(),
      subscriberIdentifier: '04123456789',
      subscriberDetails: 'KABELO M',
    });
    await meters.settled(ok);
    await meters.settled(ok); // the sweep runs it again after a crash: nothing changes
    await meters.settled(
      await settled('failed', { requesterMsisdn: payer, subscriberIdentifier: '09999999999' }),
    );
    const agent = phone();
    await meters.settled(
      await settled('succeeded', {
        requesterMsisdn: agent,
        beneficiaryMsisdn: phone(),
        agent: { msisdn: agent },
        subscriberIdentifier: '07777777777',
      }),
    );
    expect(await meters.list(payer, 'ELECTRICITY')).toEqual([
      { productType: 'ELECTRICITY', identifier: '04123456789', name: 'KABELO M', lastBoughtAt: ok.createdAt },
    ]);
    expect(await meters.list(agent, 'ELECTRICITY')).toEqual([]);
  });
});

describe("on the success's own transaction (settledOn, issue 29)", () => {
  const success = (msisdn: string, identifier: string, name: string | null = null): PurchaseRecord => ({
    ...record({
      intent: intent({
        requesterMsisdn: msisdn,
        subscriberIdentifier: identifier,
        subscriberDetails: name ?? undefined,
      }),
    }),
    state: 'succeeded',
  });

  it('commits with that transaction or not at all: a crash before its commit, then the re-run saves it', async () => {
    const msisdn = phone();
    const ok = success(msisdn, '04000000001', 'ANNA');
    await expect(
      t.db.transaction(async (tx) => {
        await meters.settledOn(ok, tx);
        throw new Error('the process died before the outcome committed');
      }),
    ).rejects.toThrow('died');
    expect(await meters.list(msisdn, 'ELECTRICITY')).toEqual([]);
    // The job runs again: the outcome and its meter commit together, and once more changes nothing.
    await t.db.transaction((tx) => meters.settledOn(ok, tx));
    await t.db.transaction((tx) => meters.settledOn(ok, tx));
    expect((await meters.list(msisdn, 'ELECTRICITY')).map((m) => [m.identifier, m.name])).toEqual([
      ['04000000001', 'ANNA'],
    ]);
  });

  it('a meter that cannot be saved leaves the rest of the transaction to commit', async () => {
    const msisdn = phone();
    const other = phone();
    // PostgreSQL refuses a NUL in text: the meter's statement fails inside the transaction.
    await t.db.transaction(async (tx) => {
      await meters.settledOn(success(msisdn, 'BAD\u0000METER'), tx);
      await rememberAlongside(tx, other);
    });
    expect(await meters.list(msisdn, 'ELECTRICITY')).toEqual([]);
    expect((await meters.list(other, 'WATER')).map((m) => m.identifier)).toEqual(['W-ALONGSIDE']);
  });

  async function rememberAlongside(tx: Queryable, msisdn: string): Promise<void> {
    await tx.query(
      `INSERT INTO saved_meters (msisdn, product_type, identifier, name, last_bought_at)
       VALUES ($1, 'WATER', 'W-ALONGSIDE', NULL, now())`,
      [msisdn],
    );
  }
});

it('runs on the embedded database (PGlite) too', async () => {
  const { testPglite } = await import('../support/database');
  const embedded = await testPglite();
  try {
    const local = new SqlSavedMeters(embedded.db);
    for (let i = 0; i < 6; i += 1) await local.remember('26770000001', 'WATER', `W${i}`, null, at(i));
    expect((await local.list('26770000001', 'WATER')).map((m) => m.identifier)).toEqual([
      'W5',
      'W4',
      'W3',
      'W2',
      'W1',
    ]);
    await local.remember('26770000001', 'ELECTRICITY', 'E1', null, at(9));
    const left = await local.removeAndList('26770000001', 'WATER', 'W3', METERED_PRODUCTS);
    expect(left.map((m) => m.identifier)).toEqual(['E1', 'W5', 'W4', 'W2', 'W1']);
  } finally {
    await embedded.cleanup();
  }
});
