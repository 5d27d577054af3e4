import { SqlFloatStore } from '../../src/agents/ledger/sql';
import { ledgerDiscrepancies } from '../../src/agents/ledger/sql';
import type { Database } from '../../src/records/database';
import { testDatabase, testPglite } from '../support/database';
import { floatStoreContract } from './float.contract';
import { WIDE_LIMITS } from './helpers';

const AT = new Date('2026-11-23T08:00:00.000Z');
const DAY = '2026-11-23';
const AGENTS = ['26771000001', '26771000002', '26771000003'];

describe.each([
  ['postgres', () => testDatabase('float')],
  ['pglite', () => testPglite()],
] as const)('sql float store on %s', (kind, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ db, cleanup } = await open());
  });
  afterAll(() => cleanup());
  afterEach(() => db.query('TRUNCATE float_accounts, float_entries, float_idempotency_keys, float_holds'));

  floatStoreContract(kind, async () => new SqlFloatStore(db));

  /** Top-ups, holds, settles and releases on three agents, all at once. */
  async function busyDay(store: SqlFloatStore): Promise<void> {
    await Promise.all(
      AGENTS.map((msisdn) =>
        store.credit(msisdn, { kind: 'credit', amountMinor: 20_000, reference: 'OPEN', at: AT }),
      ),
    );
    const sale = (msisdn: string, i: number) =>
      store.reserve(msisdn, {
        purchaseKey: `sale-${i}`,
        amountMinor: 1_000 + i,
        funding: 'float',
        limits: WIDE_LIMITS,
        day: DAY,
        at: AT,
      });
    await Promise.all(
      AGENTS.flatMap((msisdn) => [
        ...Array.from({ length: 30 }, (_, i) => sale(msisdn, i)),
        ...Array.from({ length: 5 }, (_, i) =>
          store.credit(msisdn, { kind: 'credit', amountMinor: 500, reference: `TOP-${i}`, at: AT }),
        ),
      ]),
    );
    await Promise.all(
      AGENTS.flatMap((msisdn) =>
        Array.from({ length: 30 }, (_, i) => {
          const key = `sale-${i}`;
          if (i % 3 === 0) return [store.settle(msisdn, key, AT), store.release(msisdn, key, AT)];
          if (i % 3 === 1) return [store.release(msisdn, key, AT), store.release(msisdn, key, AT)];
          // Left held, with a correction and a repeated top-up racing them.
          return [
            store.credit(msisdn, {
              kind: 'adjustment',
              amountMinor: -1,
              reference: `ADJ-${i}`,
              note: 'fee',
              at: AT,
            }),
            store.credit(msisdn, { kind: 'credit', amountMinor: 500, reference: 'TOP-0', at: AT }),
          ];
        }).flat(),
      ),
    );
  }

  it('adds up after a busy day: every balance is the sum of its entries, every held amount its open holds', async () => {
    const store = new SqlFloatStore(db);
    await busyDay(store);
    expect(await ledgerDiscrepancies(db)).toEqual([]);
    for (const msisdn of AGENTS) {
      const balance = await store.balance(msisdn);
      const entries = await store.entries(msisdn);
      expect(entries.reduce((sum, e) => sum + e.deltaMinor, 0)).toBe(balance.availableMinor);
      expect(entries).toHaveLength(balance.entries);
      expect(balance.heldMinor).toBeGreaterThan(0);
    }
  });

  it('finds an account a bad UPDATE moved away from its entries', async () => {
    const store = new SqlFloatStore(db);
    await busyDay(store);
    await db.query('UPDATE float_accounts SET balance_minor = balance_minor + 1 WHERE msisdn = $1', [
      AGENTS[1],
    ]);
    const found = await ledgerDiscrepancies(db);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ msisdn: AGENTS[1], entriesFound: found[0].entries });
    expect(found[0].balanceMinor - found[0].entriesSumMinor).toBe(1);

    await db.query('UPDATE float_accounts SET held_minor = held_minor - 1 WHERE msisdn = $1', [AGENTS[2]]);
    expect((await ledgerDiscrepancies(db)).map((d) => d.msisdn)).toEqual([AGENTS[1], AGENTS[2]]);
  });

  it("counts the day's limits exactly when a new agent's first sales arrive at once", async () => {
    const store = new SqlFloatStore(db);
    const limits = { maxSaleMinor: 5_000, maxDayValueMinor: 1_000_000, maxDayCount: 10 };
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        store.reserve('26779999999', {
          purchaseKey: `a-${i}`,
          amountMinor: 100,
          funding: 'account',
          limits,
          day: DAY,
          at: AT,
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'reserved')).toHaveLength(10);
    expect(results.filter((r) => r.status === 'over_limit')).toHaveLength(15);
    expect(await store.dayUsage('26779999999', DAY)).toEqual({ valueMinor: 1_000, count: 10 });
  });

  it('keeps amounts exact near the largest accepted amount', async () => {
    const store = new SqlFloatStore(db);
    const big = 1_000_000_000_000;
    for (const reference of ['A', 'B', 'C'])
      await store.credit(AGENTS[0], { kind: 'credit', amountMinor: big + 1, reference, at: AT });
    expect(
      await store.reserve(AGENTS[0], {
        purchaseKey: 'p',
        amountMinor: big - 1,
        funding: 'float',
        limits: { maxSaleMinor: big, maxDayValueMinor: 10 * big, maxDayCount: 1 },
        day: DAY,
        at: AT,
      }),
    ).toMatchObject({ status: 'reserved', entry: { balanceMinor: 2 * big + 4, heldMinor: big - 1 } });
    expect(await store.balance(AGENTS[0])).toEqual({
      availableMinor: 2 * big + 4,
      heldMinor: big - 1,
      entries: 4,
    });
  });

  it('the database itself refuses a negative balance, a reference applied twice, and rewriting an entry', async () => {
    const store = new SqlFloatStore(db);
    const msisdn = AGENTS[0];
    await store.credit(msisdn, { kind: 'credit', amountMinor: 100, reference: 'BANK-1', at: AT });
    await store.reserve(msisdn, {
      purchaseKey: 'p',
      amountMinor: 40,
      funding: 'float',
      limits: WIDE_LIMITS,
      day: DAY,
      at: AT,
    });
    await expect(
      db.query('UPDATE float_accounts SET balance_minor = balance_minor - 61 WHERE msisdn = $1', [msisdn]),
    ).rejects.toThrow(/check constraint/);
    // Straight into the table, past the functions: the same reference, the same purchase's reserve.
    const insert = (seq: number, kind: string, column: 'reference' | 'purchase_key', value: string) =>
      db.query(
        `INSERT INTO float_entries (msisdn, seq, at, kind, amount_minor, delta_minor, balance_minor, held_minor, ${column})
         VALUES ($1, $2, now(), $3, 40, $4, 100, 0, $5)`,
        [msisdn, seq, kind, kind === 'reserve' ? -40 : 40, value],
      );
    await expect(insert(3, 'credit', 'reference', 'BANK-1')).rejects.toThrow(/unique/);
    await expect(insert(3, 'reserve', 'purchase_key', 'p')).rejects.toThrow(/unique/);
    await expect(db.query("UPDATE float_entries SET note = 'x'")).rejects.toThrow(/append-only/);
    await expect(db.query('DELETE FROM float_entries')).rejects.toThrow(/append-only/);
    expect(await ledgerDiscrepancies(db)).toEqual([]);
  });
});
