import { loadConfig } from '../../src/config';
import { openPostgres, type Database } from '../../src/records/database';
import { Spend, SqlSpendStore, type SpendStore } from '../../src/spend';
import { testDatabase, testPglite, type TestDatabase } from '../support/database';

/**
 * The daily limits as a channel calls them (`reserveDaily` / `release`), on the SQL store over a
 * real PostgreSQL (a schema of its own) and on the embedded PGlite: the same answers from both.
 */

const BWP = (minor: number) => ({ currency: 'BWP', minor });
const MSISDN = '26771234567';
/** 22:30 UTC on the 23rd is 00:30 on the 24th in Gaborone (UTC+2): the local day is what counts. */
const JUST_AFTER_MIDNIGHT = new Date('2026-11-23T22:30:00Z');
const DAY = '2026-11-24';

const rules = {
  ...loadConfig({}).spend,
  daily: { maxValueMinor: 10_000, maxCount: 3 },
  timeZone: 'Africa/Gaborone',
};

let postgres: TestDatabase;
let pglite: { db: Database; cleanup(): Promise<void> };
beforeAll(async () => {
  postgres = await testDatabase('spend_daily');
  pglite = await testPglite();
});
afterAll(async () => {
  await postgres.cleanup();
  await pglite.cleanup();
});
// Each test starts from an empty day.
afterEach(async () => {
  for (const db of [postgres.db, pglite.db]) await db.query('TRUNCATE spend_days, blocklist CASCADE');
});

const stores: Array<[string, () => SpendStore]> = [
  ['postgres', () => new SqlSpendStore(postgres.db)],
  ['pglite', () => new SqlSpendStore(pglite.db)],
];

describe.each(stores)('reserveDaily and release (sql store on %s)', (_name, makeStore) => {
  it('counts value and count, refuses past either, and names the limit and the local reset day', async () => {
    const spend = new Spend(makeStore(), rules, () => JUST_AFTER_MIDNIGHT);
    expect(await spend.reserveDaily(MSISDN, BWP(6_000), 'a')).toBeNull();
    expect(await spend.reserveDaily(MSISDN, BWP(5_000), 'b')).toEqual({
      code: 'spend_daily_value',
      limit: BWP(10_000),
      // The local day is the 24th (UTC still says the 23rd): the limit resets on the 25th.
      resetsOn: '2026-11-25',
    });
    expect(await spend.reserveDaily(MSISDN, BWP(1_000), 'c')).toBeNull();
    expect(await spend.reserveDaily(MSISDN, BWP(1_000), 'd')).toBeNull();
    expect(await spend.reserveDaily(MSISDN, BWP(1_000), 'e')).toEqual({
      code: 'spend_daily_count',
      count: 3,
      resetsOn: '2026-11-25',
    });
  });

  it('counts a retried key once, and gives back a released one once', async () => {
    const store = makeStore();
    const spend = new Spend(store, rules, () => JUST_AFTER_MIDNIGHT);
    expect(await spend.reserveDaily(MSISDN, BWP(9_000), 'k1')).toBeNull();
    expect(await spend.reserveDaily(MSISDN, BWP(9_000), 'k1')).toBeNull();
    expect(await store.usage(MSISDN, DAY)).toEqual({ valueMinor: 9_000, count: 1 });

    expect(await spend.release(MSISDN, 'k1', JUST_AFTER_MIDNIGHT)).toBe(true);
    expect(await spend.release(MSISDN, 'k1', JUST_AFTER_MIDNIGHT)).toBe(false);
    expect(await spend.release(MSISDN, 'never', JUST_AFTER_MIDNIGHT)).toBe(false);
    expect(await store.usage(MSISDN, DAY)).toEqual({ valueMinor: 0, count: 0 });
    // A re-delivered reserve of the released key does not count it again.
    expect(await spend.reserveDaily(MSISDN, BWP(9_000), 'k1')).toBeNull();
    expect(await store.usage(MSISDN, DAY)).toEqual({ valueMinor: 0, count: 0 });
    // The room given back is usable by another purchase.
    expect(await spend.reserveDaily(MSISDN, BWP(10_000), 'k2')).toBeNull();
  });

  it('starts afresh on the next local day', async () => {
    let now = JUST_AFTER_MIDNIGHT;
    const spend = new Spend(makeStore(), rules, () => now);
    expect(await spend.reserveDaily(MSISDN, BWP(10_000), 'x')).toBeNull();
    expect(await spend.reserveDaily(MSISDN, BWP(1), 'y')).not.toBeNull();
    now = new Date('2026-11-24T22:00:01Z'); // 00:00:01 on the 25th in Gaborone
    expect(await spend.reserveDaily(MSISDN, BWP(1), 'y')).toBeNull();
  });
});

it('two gateways on one database never count past the limit together', async () => {
  // Two pools: two gateway processes sharing the records.
  const second = await openPostgres({ url: postgres.url, schema: postgres.schema, max: 4 });
  try {
    const wide = { ...rules, daily: { maxValueMinor: 10_000, maxCount: 1000 } };
    const a = new Spend(new SqlSpendStore(postgres.db), wide, () => JUST_AFTER_MIDNIGHT);
    const b = new Spend(new SqlSpendStore(second), wide, () => JUST_AFTER_MIDNIGHT);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).reserveDaily(MSISDN, BWP(700), `k${i}`)),
    );
    // 14 × 7.00 = 98.00 fits under 100.00; the 15th would not.
    expect(results.filter((r) => r === null)).toHaveLength(14);
    expect(await a.store.usage(MSISDN, DAY)).toEqual({
      valueMinor: 9_800,
      count: 14,
    });
  } finally {
    await second.close();
  }
});
