import type { SpendStore } from '../../src/spend';

/**
 * One behaviour for every SpendStore, as the Redis store's scripts define it
 * (src/spend/commands/*.lua): run by store.test.ts (memory, Redis) and store.sql.test.ts
 * (PostgreSQL, PGlite). `makeStore` gives an empty store each time; the concurrent tests matter
 * on the stores with real concurrency (Redis, the PostgreSQL pool).
 */
export function spendStoreContract(name: string, makeStore: () => Promise<SpendStore>): void {
  const MSISDN = '26771234567';
  const OTHER = '26772345678';
  const DAY = '2026-11-24';
  const NEXT = '2026-11-25';
  const limits = { maxValueMinor: 10_000, maxCount: 3 };

  describe(`${name} spend store contract`, () => {
    let store: SpendStore;
    beforeEach(async () => {
      store = await makeStore();
    });

    it('answers a quote with the blocklist and the day in one read (standing, anyBlocked)', async () => {
      await store.reserve(MSISDN, DAY, 'a', 6_000, limits);
      const who = { msisdns: [MSISDN, OTHER], identifier: 'METER-1' };
      expect(await store.standing(who, MSISDN, DAY)).toEqual({
        blocked: false,
        usage: { valueMinor: 6_000, count: 1 },
      });
      expect(await store.standing(who, OTHER, DAY)).toEqual({
        blocked: false,
        usage: { valueMinor: 0, count: 0 },
      });
      await store.block('identifier', 'METER-1');
      expect((await store.standing(who, MSISDN, DAY)).blocked).toBe(true);
      expect(await store.anyBlocked(who)).toBe(true);
      expect(await store.anyBlocked({ msisdns: [MSISDN] })).toBe(false);
      await store.block('msisdn', OTHER);
      expect(await store.anyBlocked({ msisdns: [MSISDN, OTHER] })).toBe(true);
    });

    it('refuses a reservation naming a blocked number or identifier, counting nothing; a key counted before stays counted', async () => {
      const who = { msisdns: [MSISDN], identifier: 'METER-1' };
      expect((await store.reserve(MSISDN, DAY, 'a', 1_000, limits, who)).status).toBe('counted');
      await store.block('identifier', 'METER-1');
      expect(await store.reserve(MSISDN, DAY, 'b', 1_000, limits, who)).toEqual({
        status: 'blocked',
        usage: { valueMinor: 1_000, count: 1 },
      });
      // A retried Buy of the key counted before the block is answered as counted, once.
      expect(await store.reserve(MSISDN, DAY, 'a', 1_000, limits, who)).toEqual({
        status: 'counted',
        usage: { valueMinor: 1_000, count: 1 },
      });
      expect(await store.usage(MSISDN, DAY)).toEqual({ valueMinor: 1_000, count: 1 });
    });

    it('starts a day at zero and counts value and count, returning the totals after', async () => {
      expect(await store.usage(MSISDN, DAY)).toEqual({ valueMinor: 0, count: 0 });
      expect(await store.reserve(MSISDN, DAY, 'a', 6_000, limits)).toEqual({
        status: 'counted',
        usage: { valueMinor: 6_000, count: 1 },
      });
      expect(await store.reserve(MSISDN, DAY, 'b', 4_000, limits)).toEqual({
        status: 'counted',
        usage: { valueMinor: 10_000, count: 2 },
      });
      expect(await store.usage(MSISDN, DAY)).toEqual({ valueMinor: 10_000, count: 2 });
    });

    it('refuses past the value limit, then past the count limit, counting nothing and naming it', async () => {
      await store.reserve(MSISDN, DAY, 'a', 9_000, limits);
      expect(await store.reserve(MSISDN, DAY, 'b', 1_001, limits)).toEqual({
        status: 'over',
        limit: 'value',
        usage: { valueMinor: 9_000, count: 1 },
      });
      await store.reserve(MSISDN, DAY, 'c', 500, limits);
      await store.reserve(MSISDN, DAY, 'd', 500, limits);
      // Both limits would be passed: value is named first.
      expect(await store.reserve(MSISDN, DAY, 'e', 1, limits)).toEqual({
        status: 'over',
        limit: 'value',
        usage: { valueMinor: 10_000, count: 3 },
      });
      expect(await store.reserve(MSISDN, DAY, 'f', 1, { maxValueMinor: 10_001, maxCount: 3 })).toEqual({
        status: 'over',
        limit: 'count',
        usage: { valueMinor: 10_000, count: 3 },
      });
      expect(await store.usage(MSISDN, DAY)).toEqual({ valueMinor: 10_000, count: 3 });
      // A refused key was not spent: under higher limits it counts.
      expect(await store.reserve(MSISDN, DAY, 'b', 1_001, { maxValueMinor: 20_000, maxCount: 4 })).toEqual({
        status: 'counted',
        usage: { valueMinor: 11_001, count: 4 },
      });
    });

    it('refuses an amount larger than the whole limit on a fresh day', async () => {
      expect(await store.reserve(MSISDN, DAY, 'a', 10_001, limits)).toEqual({
        status: 'over',
        limit: 'value',
        usage: { valueMinor: 0, count: 0 },
      });
      expect(await store.reserve(MSISDN, DAY, 'a', 1, { maxValueMinor: 10_000, maxCount: 0 })).toEqual({
        status: 'over',
        limit: 'count',
        usage: { valueMinor: 0, count: 0 },
      });
      expect(await store.usage(MSISDN, DAY)).toEqual({ valueMinor: 0, count: 0 });
    });

    it('counts a purchase key once: a retried reserve answers counted with the totals unchanged', async () => {
      await store.reserve(MSISDN, DAY, 'k1', 9_000, limits);
      // Even with another amount, or limits it would now pass.
      expect(await store.reserve(MSISDN, DAY, 'k1', 9_000, limits)).toEqual({
        status: 'counted',
        usage: { valueMinor: 9_000, count: 1 },
      });
      expect(await store.reserve(MSISDN, DAY, 'k1', 500, limits)).toEqual({
        status: 'counted',
        usage: { valueMinor: 9_000, count: 1 },
      });
    });

    it('keeps numbers and days apart', async () => {
      await store.reserve(MSISDN, DAY, 'k', 10_000, limits);
      expect(await store.reserve(OTHER, DAY, 'k', 10_000, limits)).toMatchObject({ status: 'counted' });
      expect(await store.reserve(MSISDN, NEXT, 'k', 10_000, limits)).toMatchObject({ status: 'counted' });
      expect(await store.usage(MSISDN, DAY)).toEqual({ valueMinor: 10_000, count: 1 });
      expect(await store.usage(OTHER, DAY)).toEqual({ valueMinor: 10_000, count: 1 });
      expect(await store.usage(MSISDN, NEXT)).toEqual({ valueMinor: 10_000, count: 1 });
      expect(await store.release(OTHER, DAY, 'k')).toBe(true);
      expect(await store.usage(MSISDN, DAY)).toEqual({ valueMinor: 10_000, count: 1 });
      expect(await store.usage(MSISDN, NEXT)).toEqual({ valueMinor: 10_000, count: 1 });
    });

    it('releases a counted key once; the key stays spent and the room is usable by another key', async () => {
      await store.reserve(MSISDN, DAY, 'k1', 9_000, limits);
      await store.reserve(MSISDN, DAY, 'k2', 1_000, limits);
      expect(await store.release(MSISDN, DAY, 'k1')).toBe(true);
      expect(await store.usage(MSISDN, DAY)).toEqual({ valueMinor: 1_000, count: 1 });
      expect(await store.release(MSISDN, DAY, 'k1')).toBe(false);
      expect(await store.release(MSISDN, DAY, 'never')).toBe(false);
      expect(await store.release(MSISDN, NEXT, 'k2')).toBe(false);
      expect(await store.release(OTHER, DAY, 'k2')).toBe(false);
      expect(await store.usage(MSISDN, DAY)).toEqual({ valueMinor: 1_000, count: 1 });
      // A re-delivered reserve of the released key does not count it again.
      expect(await store.reserve(MSISDN, DAY, 'k1', 9_000, limits)).toEqual({
        status: 'counted',
        usage: { valueMinor: 1_000, count: 1 },
      });
      expect(await store.release(MSISDN, DAY, 'k1')).toBe(false);
      expect(await store.reserve(MSISDN, DAY, 'k3', 9_000, limits)).toEqual({
        status: 'counted',
        usage: { valueMinor: 10_000, count: 2 },
      });
    });

    it('never counts past the limit for concurrent reserves of one number', async () => {
      const wide = { maxValueMinor: 10_000, maxCount: 1000 };
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => store.reserve(MSISDN, DAY, `k${i}`, 700, wide)),
      );
      // 14 × 7.00 = 98.00 fits under 100.00; the 15th would not.
      expect(results.filter((r) => r.status === 'counted')).toHaveLength(14);
      expect(results.filter((r) => r.status === 'over' && r.limit === 'value')).toHaveLength(26);
      for (const r of results) expect(r.usage.valueMinor).toBeLessThanOrEqual(10_000);
      // Each counted reservation saw a different total: they queued, none overlapped.
      const totals = results.filter((r) => r.status === 'counted').map((r) => r.usage.count);
      expect(totals.sort((x, y) => x - y)).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
      expect(await store.usage(MSISDN, DAY)).toEqual({ valueMinor: 9_800, count: 14 });
    });

    it('never counts past the count limit for concurrent reserves, a fresh day included', async () => {
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => store.reserve(OTHER, NEXT, `c${i}`, 1, limits)),
      );
      expect(results.filter((r) => r.status === 'counted')).toHaveLength(3);
      expect(await store.usage(OTHER, NEXT)).toEqual({ valueMinor: 3, count: 3 });
    });

    it('counts one key reserved concurrently once, and gives it back once when released concurrently', async () => {
      const reserved = await Promise.all(
        Array.from({ length: 10 }, () => store.reserve(MSISDN, DAY, 'same', 1_000, limits)),
      );
      expect(reserved.every((r) => r.status === 'counted')).toBe(true);
      expect(await store.usage(MSISDN, DAY)).toEqual({ valueMinor: 1_000, count: 1 });
      const released = await Promise.all(
        Array.from({ length: 10 }, () => store.release(MSISDN, DAY, 'same')),
      );
      expect(released.filter(Boolean)).toHaveLength(1);
      expect(await store.usage(MSISDN, DAY)).toEqual({ valueMinor: 0, count: 0 });
    });

    it('keeps a blocklist per kind: block and unblock say whether they changed it', async () => {
      expect(await store.isBlocked('msisdn', MSISDN)).toBe(false);
      expect(await store.block('msisdn', MSISDN)).toBe(true);
      expect(await store.block('msisdn', MSISDN)).toBe(false);
      expect(await store.block('msisdn', '26770000001')).toBe(true);
      expect(await store.block('identifier', 'Meter-9')).toBe(true);
      expect(await store.block('identifier', 'meter-1')).toBe(true);
      expect(await store.isBlocked('msisdn', MSISDN)).toBe(true);
      expect(await store.isBlocked('identifier', MSISDN)).toBe(false);
      expect(await store.isBlocked('msisdn', 'Meter-9')).toBe(false);
      expect(await store.blocked('msisdn')).toEqual(['26770000001', MSISDN]);
      // Sorted as JavaScript sorts (code units: capitals first), whatever the store's collation.
      expect(await store.blocked('identifier')).toEqual(['Meter-9', 'meter-1']);
      expect(await store.unblock('msisdn', MSISDN)).toBe(true);
      expect(await store.unblock('msisdn', MSISDN)).toBe(false);
      expect(await store.unblock('identifier', '26770000001')).toBe(false);
      expect(await store.isBlocked('msisdn', MSISDN)).toBe(false);
      expect(await store.blocked('msisdn')).toEqual(['26770000001']);
    });

    it('blocks a value once for concurrent blocks', async () => {
      const changed = await Promise.all(Array.from({ length: 8 }, () => store.block('msisdn', OTHER)));
      expect(changed.filter(Boolean)).toHaveLength(1);
      expect(await store.blocked('msisdn')).toEqual([OTHER]);
    });
  });
}
