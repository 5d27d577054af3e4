import type { Database } from '../../src/records/database';
import { SqlSpendStore } from '../../src/spend/sql';
import { testDatabase, testPglite } from '../support/database';
import { spendStoreContract } from './store.contract';

describe.each([
  ['postgres', () => testDatabase('spend')],
  ['pglite', () => testPglite()],
] as const)('sql spend store on %s', (kind, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ db, cleanup } = await open());
  });
  afterAll(() => cleanup());
  afterEach(() => db.query('TRUNCATE spend_days, blocklist CASCADE'));

  spendStoreContract(kind, async () => new SqlSpendStore(db));

  it('keeps the day as entries its totals are the sum of, and refuses a negative total', async () => {
    const store = new SqlSpendStore(db);
    const limits = { maxValueMinor: 10_000, maxCount: 5 };
    await store.reserve('26771234567', '2026-11-24', 'a', 3_000, limits);
    await store.reserve('26771234567', '2026-11-24', 'b', 2_500, limits);
    await store.reserve('26771234567', '2026-11-24', 'c', 1_000, limits);
    await store.release('26771234567', '2026-11-24', 'b');
    const sums = await db.query<{ value: string; count: number; entries: string; kept: number }>(
      `SELECT d.value_minor::text AS value, d.count::int AS count,
              (SELECT sum(r.amount_minor)::text FROM spend_reservations r
                 LEFT JOIN spend_releases x USING (msisdn, day, purchase_key)
                WHERE r.msisdn = d.msisdn AND r.day = d.day AND x.purchase_key IS NULL) AS entries,
              (SELECT count(*)::int FROM spend_reservations r
                WHERE r.msisdn = d.msisdn AND r.day = d.day) AS kept
         FROM spend_days d WHERE d.msisdn = $1`,
      ['26771234567'],
    );
    expect(sums.rows).toEqual([{ value: '4000', count: 2, entries: '4000', kept: 3 }]);
    await expect(
      db.query('INSERT INTO spend_releases (msisdn, day, purchase_key) VALUES ($1, $2, $3)', [
        '26771234567',
        '2026-11-24',
        'b',
      ]),
    ).rejects.toThrow(/duplicate key|unique/i);
    await expect(
      db.query('UPDATE spend_days SET value_minor = value_minor - 5000 WHERE msisdn = $1', ['26771234567']),
    ).rejects.toThrow(/check constraint/i);
  });
});
