import { LATE_SETTLE_NOTE, type FloatStore, type ReserveWrite } from '../../src/agents/ledger';
import { WIDE_LIMITS } from './helpers';

const AGENT = '26771234567';
const AT = new Date('2026-11-23T08:00:00.000Z');
const DAY = '2026-11-23';

function reserveWrite(
  purchaseKey: string,
  amountMinor: number,
  over: Partial<ReserveWrite> = {},
): ReserveWrite {
  return { purchaseKey, amountMinor, funding: 'float', limits: WIDE_LIMITS, day: DAY, at: AT, ...over };
}

/** One behaviour for every FloatStore: run by float.sql.test.ts on PostgreSQL and PGlite. */
export function floatStoreContract(name: string, makeStore: () => Promise<FloatStore>): void {
  describe(`${name} float store contract`, () => {
    let store: FloatStore;
    beforeEach(async () => {
      store = await makeStore();
    });

    const credit = (amountMinor: number, reference: string, idempotencyKey?: string) =>
      store.credit(AGENT, {
        kind: 'credit',
        amountMinor,
        reference,
        ...(idempotencyKey && { idempotencyKey }),
        at: AT,
      });

    /** Σ deltaMinor over every entry: what the balance must be. */
    async function derived(): Promise<number> {
      return (await store.entries(AGENT)).reduce((sum, e) => sum + e.deltaMinor, 0);
    }

    it('starts empty', async () => {
      expect(await store.balance(AGENT)).toEqual({ availableMinor: 0, heldMinor: 0, entries: 0 });
      expect(await store.entries(AGENT)).toEqual([]);
      expect(await store.dayUsage(AGENT, DAY)).toEqual({ valueMinor: 0, count: 0 });
      expect(await store.reservation(AGENT, 'p')).toBeNull();
    });

    it('credits once per reference and per idempotency key', async () => {
      const first = await credit(50_000, 'BANK-1', 'k-1');
      const entry = {
        seq: 1,
        at: AT.toISOString(),
        kind: 'credit',
        amountMinor: 50_000,
        deltaMinor: 50_000,
        balanceMinor: 50_000,
        heldMinor: 0,
        reference: 'BANK-1',
      };
      expect(first).toEqual({ status: 'credited', entry });
      expect(await credit(50_000, 'BANK-1', 'k-1')).toEqual({ status: 'duplicate', entry });
      expect(await credit(50_000, 'BANK-1')).toEqual({ status: 'duplicate', entry });
      expect(await credit(50_000, 'BANK-1', 'k-2')).toEqual({ status: 'duplicate', entry });
      expect(await credit(60_000, 'BANK-1')).toEqual({ status: 'conflict', field: 'reference' });
      expect(await credit(50_000, 'BANK-2', 'k-1')).toEqual({ status: 'conflict', field: 'idempotencyKey' });
      expect(await store.balance(AGENT)).toEqual({ availableMinor: 50_000, heldMinor: 0, entries: 1 });
      // k-2 now names the first credit too.
      expect(await credit(50_000, 'BANK-1', 'k-2')).toEqual({ status: 'duplicate', entry });
    });

    it('adjusts either way, never below zero, with the note kept', async () => {
      await credit(10_000, 'BANK-1');
      const down = await store.credit(AGENT, {
        kind: 'adjustment',
        amountMinor: -2_550,
        reference: 'ADJ-1',
        note: 'counted twice',
        at: AT,
      });
      expect(down).toEqual({
        status: 'credited',
        entry: expect.objectContaining({
          kind: 'adjustment',
          amountMinor: -2_550,
          deltaMinor: -2_550,
          balanceMinor: 7_450,
          note: 'counted twice',
        }),
      });
      expect(
        await store.credit(AGENT, { kind: 'adjustment', amountMinor: -7_451, reference: 'ADJ-2', at: AT }),
      ).toEqual({
        status: 'insufficient',
        availableMinor: 7_450,
      });
      expect((await store.balance(AGENT)).availableMinor).toBe(7_450);
      expect(await derived()).toBe(7_450);
    });

    it('reserves, settles and releases once per purchase key', async () => {
      await credit(10_000, 'BANK-1');
      const reserved = await store.reserve(AGENT, reserveWrite('p-1', 3_000));
      expect(reserved).toEqual({
        status: 'reserved',
        reservation: { purchaseKey: 'p-1', amountMinor: 3_000, state: 'held', day: DAY, funding: 'float' },
        entry: {
          seq: 2,
          at: AT.toISOString(),
          kind: 'reserve',
          amountMinor: 3_000,
          deltaMinor: -3_000,
          balanceMinor: 7_000,
          heldMinor: 3_000,
          purchaseKey: 'p-1',
        },
      });
      expect(await store.reserve(AGENT, reserveWrite('p-1', 3_000))).toMatchObject({ status: 'duplicate' });
      expect(await store.reserve(AGENT, reserveWrite('p-1', 3_001))).toMatchObject({
        status: 'conflict',
        reservation: { amountMinor: 3_000 },
      });
      expect(await store.balance(AGENT)).toEqual({ availableMinor: 7_000, heldMinor: 3_000, entries: 2 });

      const settled = await store.settle(AGENT, 'p-1', AT);
      expect(settled).toMatchObject({
        status: 'settled',
        reservation: { state: 'settled' },
        entry: {
          seq: 3,
          kind: 'settle',
          amountMinor: 3_000,
          deltaMinor: 0,
          balanceMinor: 7_000,
          heldMinor: 0,
        },
      });
      expect(await store.settle(AGENT, 'p-1', AT)).toMatchObject({
        status: 'already',
        reservation: { state: 'settled' },
      });
      expect(await store.release(AGENT, 'p-1', AT)).toMatchObject({
        status: 'already',
        reservation: { state: 'settled' },
      });

      await store.reserve(AGENT, reserveWrite('p-2', 2_000));
      expect(await store.release(AGENT, 'p-2', AT)).toMatchObject({
        status: 'released',
        entry: { kind: 'release', amountMinor: 2_000, deltaMinor: 2_000, balanceMinor: 7_000, heldMinor: 0 },
      });
      expect(await store.release(AGENT, 'p-2', AT)).toMatchObject({
        status: 'already',
        reservation: { state: 'released' },
      });
      expect(await store.settle(AGENT, 'nope', AT)).toEqual({ status: 'not_found' });
      expect(await store.release(AGENT, 'nope', AT)).toEqual({ status: 'not_found' });

      expect(await store.balance(AGENT)).toEqual({ availableMinor: 7_000, heldMinor: 0, entries: 5 });
      expect(await derived()).toBe(7_000);
      expect((await store.entries(AGENT, { offset: 1, limit: 2 })).map((e) => e.seq)).toEqual([2, 3]);
      // The sold one counts against the day; the released one does not.
      expect(await store.dayUsage(AGENT, DAY)).toEqual({ valueMinor: 3_000, count: 1 });
    });

    it('a success found after the release takes the amount again, once, only if the float covers it', async () => {
      await credit(5_000, 'BANK-1');
      await store.reserve(AGENT, reserveWrite('late', 2_000));
      await store.reserve(AGENT, reserveWrite('short', 2_500));
      await store.release(AGENT, 'late', AT);
      await store.release(AGENT, 'short', AT);
      expect(await store.dayUsage(AGENT, DAY)).toEqual({ valueMinor: 0, count: 0 });

      expect(await store.settle(AGENT, 'late', AT)).toMatchObject({
        status: 'settled',
        reservation: { state: 'settled', amountMinor: 2_000 },
        entry: {
          seq: 6,
          kind: 'settle',
          deltaMinor: -2_000,
          balanceMinor: 3_000,
          heldMinor: 0,
          note: LATE_SETTLE_NOTE,
        },
      });
      expect(await store.settle(AGENT, 'late', AT)).toMatchObject({ status: 'already' });
      expect(await store.dayUsage(AGENT, DAY)).toEqual({ valueMinor: 2_000, count: 1 });

      // The float spent meanwhile: nothing written, never below zero; an operator decides.
      await store.reserve(AGENT, reserveWrite('other', 1_000));
      expect(await store.settle(AGENT, 'short', AT)).toEqual({
        status: 'uncovered',
        reservation: {
          purchaseKey: 'short',
          amountMinor: 2_500,
          state: 'released',
          day: DAY,
          funding: 'float',
        },
        availableMinor: 2_000,
      });
      expect(await store.balance(AGENT)).toEqual({ availableMinor: 2_000, heldMinor: 1_000, entries: 7 });
      expect(await derived()).toBe(2_000);
    });

    it('refuses a reservation the float does not cover, writing nothing', async () => {
      await credit(1_000, 'BANK-1');
      expect(await store.reserve(AGENT, reserveWrite('p-1', 1_001))).toEqual({
        status: 'insufficient',
        availableMinor: 1_000,
      });
      expect(await store.reserve(AGENT, reserveWrite('p-2', 1_000))).toMatchObject({ status: 'reserved' });
      expect(await store.balance(AGENT)).toEqual({ availableMinor: 0, heldMinor: 1_000, entries: 2 });
      expect(await store.dayUsage(AGENT, DAY)).toEqual({ valueMinor: 1_000, count: 1 });
      expect(await store.reservation(AGENT, 'p-1')).toBeNull();
    });

    it('checks the limits atomically with the reservation, naming the limit', async () => {
      await credit(1_000_000, 'BANK-1');
      const limits = { maxSaleMinor: 5_000, maxDayValueMinor: 9_000, maxDayCount: 3 };
      const reserve = (key: string, amount: number, day = DAY) =>
        store.reserve(AGENT, reserveWrite(key, amount, { limits, day }));
      expect(await reserve('p-0', 5_001)).toEqual({
        status: 'over_limit',
        limit: 'max_sale',
        limitValue: 5_000,
        used: 0,
      });
      expect(await reserve('p-1', 5_000)).toMatchObject({ status: 'reserved' });
      expect(await reserve('p-2', 4_001)).toEqual({
        status: 'over_limit',
        limit: 'day_value',
        limitValue: 9_000,
        used: 5_000,
      });
      expect(await reserve('p-2', 2_000)).toMatchObject({ status: 'reserved' });
      expect(await reserve('p-3', 1_000)).toMatchObject({ status: 'reserved' });
      expect(await reserve('p-4', 100)).toEqual({
        status: 'over_limit',
        limit: 'day_count',
        limitValue: 3,
        used: 3,
      });
      // A failed sale gives its share of the day back.
      await store.release(AGENT, 'p-3', AT);
      expect(await reserve('p-4', 100)).toMatchObject({ status: 'reserved' });
      // The next day starts from nothing.
      expect(await reserve('p-5', 5_000, '2026-11-24')).toMatchObject({
        status: 'reserved',
        reservation: { day: '2026-11-24' },
      });
      expect(await store.dayUsage(AGENT, DAY)).toEqual({ valueMinor: 7_100, count: 3 });
      expect(await store.dayUsage(AGENT, '2026-11-24')).toEqual({ valueMinor: 5_000, count: 1 });
    });

    it('for an account-funded agent counts the limits only: no float, no entries', async () => {
      const limits = { maxSaleMinor: 5_000, maxDayValueMinor: 9_000, maxDayCount: 3 };
      const write = (key: string, amount: number) =>
        reserveWrite(key, amount, { funding: 'account', limits });
      expect(await store.reserve(AGENT, write('a-1', 5_000))).toEqual({
        status: 'reserved',
        reservation: { purchaseKey: 'a-1', amountMinor: 5_000, state: 'held', day: DAY, funding: 'account' },
        entry: null,
      });
      expect(await store.reserve(AGENT, write('a-2', 4_001))).toMatchObject({
        status: 'over_limit',
        limit: 'day_value',
      });
      expect(await store.release(AGENT, 'a-1', AT)).toMatchObject({ status: 'released', entry: null });
      expect(await store.reserve(AGENT, write('a-2', 4_001))).toMatchObject({ status: 'reserved' });
      expect(await store.settle(AGENT, 'a-2', AT)).toMatchObject({ status: 'settled', entry: null });
      expect(await store.balance(AGENT)).toEqual({ availableMinor: 0, heldMinor: 0, entries: 0 });
    });

    it('100 concurrent sales against a float covering 50: exactly 50 reserved, never below zero', async () => {
      const price = 2_345;
      await credit(50 * price + 17, 'BANK-1');
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => store.reserve(AGENT, reserveWrite(`sale-${i}`, price))),
      );
      expect(results.filter((r) => r.status === 'reserved')).toHaveLength(50);
      expect(results.filter((r) => r.status === 'insufficient')).toHaveLength(50);
      expect(await store.balance(AGENT)).toEqual({ availableMinor: 17, heldMinor: 50 * price, entries: 51 });
      const entries = await store.entries(AGENT);
      expect(entries.every((e) => e.balanceMinor >= 0)).toBe(true);
      expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
      expect(await derived()).toBe(17);

      // Settle half, release the other half, each twice and at once: each counts once.
      const reserved = results.flatMap((r) => (r.status === 'reserved' ? [r.reservation.purchaseKey] : []));
      const [sold, failed] = [reserved.slice(0, 25), reserved.slice(25)];
      await Promise.all([
        ...sold.flatMap((key) => [store.settle(AGENT, key, AT), store.settle(AGENT, key, AT)]),
        ...failed.flatMap((key) => [store.release(AGENT, key, AT), store.release(AGENT, key, AT)]),
      ]);
      expect(await store.balance(AGENT)).toEqual({
        availableMinor: 25 * price + 17,
        heldMinor: 0,
        entries: 101,
      });
      expect(await derived()).toBe(25 * price + 17);
      expect(await store.dayUsage(AGENT, DAY)).toEqual({ valueMinor: 25 * price, count: 25 });
    });

    it('keeps each agent apart', async () => {
      await credit(1_000, 'BANK-1');
      expect(await store.balance('26770000001')).toEqual({ availableMinor: 0, heldMinor: 0, entries: 0 });
      expect(
        await store.credit('26770000001', { kind: 'credit', amountMinor: 5, reference: 'BANK-1', at: AT }),
      ).toMatchObject({
        status: 'credited',
      });
    });
  });
}
