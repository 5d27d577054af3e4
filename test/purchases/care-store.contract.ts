import type { PurchaseStore } from '../../src/purchases/store';
import type { PurchaseRecord, PurchaseResult } from '../../src/purchases/types';
import { intent, record } from './fixtures';

const DAY = 24 * 3600_000;
export const RETENTION_MS = 90 * DAY;
/** Settling times are real ones (now, whole seconds); the store's clock is moved past them. */
export const T0 = Math.floor(Date.now() / 1000) * 1000;
export const at = (ms: number): string => new Date(ms).toISOString();

/** A store whose clock the test moves (retention is judged by it). */
export interface ClockedStore {
  store: PurchaseStore;
  setNow(at: Date): void;
}

export const result = (reference: string): PurchaseResult => ({
  transactionId: 7,
  reference,
  rawToken: '12345678901234567890',
  units: '12.3',
  total: { currency: 'BWP', minor: 10250 },
  providerTransactionId: null,
});

/** Create `r` and settle it in `state` at `settledAt`, already handed to the notifier. */
export async function settled(
  store: PurchaseStore,
  r: PurchaseRecord,
  state: 'succeeded' | 'failed' | 'needs_attention',
  settledAt: string,
  reference = `TOP/${r.id}`,
): Promise<PurchaseRecord> {
  await store.create(r);
  const moved = await store.transition(r.id, ['created'], state, r.version, {
    settledAt,
    notifiedAt: settledAt,
    result: state === 'succeeded' ? result(reference) : null,
  });
  if (!moved.ok) throw new Error(`could not settle ${r.id}`);
  return moved.record;
}

/**
 * Customer care's lookups and the retention rule of a PurchaseStore: run by care-store.sql.test.ts
 * on PostgreSQL and PGlite.
 */
export function careStoreContract(name: string, makeStore: () => Promise<ClockedStore>): void {
  describe(`${name} purchase store: care lookups and retention`, () => {
    let store: PurchaseStore;
    let setNow: (at: Date) => void;
    beforeEach(async () => {
      ({ store, setNow } = await makeStore());
      setNow(new Date(T0));
    });

    it('finds purchases by identifier, external reference and provider reference, newest first', async () => {
      const meter = `0${Date.now()}`.slice(0, 11);
      const older = record({ intent: intent({ subscriberIdentifier: meter }) });
      const newer = record({ intent: intent({ subscriberIdentifier: meter }) });
      await store.create(older);
      await settled(store, newer, 'succeeded', at(T0), 'TOP/2025/01/00000042');
      await store.create(record());

      expect((await store.listByIdentifier(meter)).map((r) => r.id)).toEqual([newer.id, older.id]);
      expect((await store.listByIdentifier(meter, { state: 'created' })).map((r) => r.id)).toEqual([
        older.id,
      ]);
      expect((await store.listByReference(older.externalReference)).map((r) => r.id)).toEqual([older.id]);
      expect((await store.listByReference('TOP/2025/01/00000042')).map((r) => r.id)).toEqual([newer.id]);
      expect((await store.listByReference(newer.externalReference)).map((r) => r.id)).toEqual([newer.id]);
      expect(await store.listByReference('GW-NOPE')).toEqual([]);
      expect(await store.listByIdentifier('99999999999')).toEqual([]);
    });

    it('counts records by state', async () => {
      await store.create(record());
      await store.create(record());
      await settled(store, record(), 'needs_attention', at(T0));
      const counts = await store.countByState();
      expect(counts).toMatchObject({ created: 2, needs_attention: 1, reconciling: 0, resolved: 0 });
    });

    it('purges resolved records past the retention and keeps unresolved ones however old', async () => {
      const msisdn = `2677${String(Date.now()).slice(-7)}`;
      const mine = intent({
        beneficiaryMsisdn: msisdn,
        requesterMsisdn: msisdn,
        subscriberIdentifier: `M${msisdn}`,
      });
      const old = at(T0);
      const gone = await settled(store, record({ intent: mine }), 'succeeded', old, `TOP/old/${msisdn}`);
      const failed = await settled(store, record({ intent: mine }), 'failed', old);
      const attention = await settled(store, record({ intent: mine }), 'needs_attention', old);
      const reconciling = record({ intent: mine });
      await store.create(reconciling);
      await store.transition(reconciling.id, ['created'], 'reconciling', 1);
      const recent = await settled(store, record({ intent: mine }), 'succeeded', at(T0 + 80 * DAY));

      setNow(new Date(Date.parse(old) + RETENTION_MS - 1000));
      expect(await store.purgeExpired()).toBe(0);

      setNow(new Date(Date.parse(old) + RETENTION_MS + 1000));
      expect(await store.purgeExpired()).toBe(2);
      for (const r of [gone, failed]) {
        expect(await store.get(r.id)).toBeNull();
        expect(await store.getByIdempotencyKey(r.idempotencyKey)).toBeNull();
      }
      const left = [recent.id, reconciling.id, attention.id].sort();
      expect((await store.listByMsisdn(msisdn, { limit: 50 })).map((r) => r.id).sort()).toEqual(left);
      expect((await store.listByIdentifier(`M${msisdn}`, { limit: 50 })).map((r) => r.id).sort()).toEqual(
        left,
      );
      expect(await store.listByReference(`TOP/old/${msisdn}`)).toEqual([]);
      expect(await store.listByReference(gone.externalReference)).toEqual([]);
      expect((await store.listByState('succeeded', { limit: 50 })).map((r) => r.id)).not.toContain(gone.id);
      expect(await store.countByState()).toMatchObject({ succeeded: 1, failed: 0, needs_attention: 1 });
    });

    it('keeps a settled outcome not yet handed to the notifier, and re-checks that are still running', async () => {
      const old = at(T0);
      const unnotified = record();
      await store.create(unnotified);
      await store.transition(unnotified.id, ['created'], 'succeeded', 1, {
        settledAt: old,
        result: result('T1'),
      });
      const rechecked = record();
      await store.create(rechecked);
      const until = new Date(Date.parse(old) + RETENTION_MS + 10 * DAY).toISOString();
      await store.transition(rechecked.id, ['created'], 'failed', 1, {
        settledAt: old,
        notifiedAt: old,
        recheckUntil: until,
      });
      setNow(new Date(Date.parse(old) + RETENTION_MS + DAY));
      expect(await store.purgeExpired()).toBe(0);
      setNow(new Date(Date.parse(until) + 1000));
      expect(await store.purgeExpired()).toBe(1);
      expect(await store.get(rechecked.id)).toBeNull();
      expect(await store.get(unnotified.id)).not.toBeNull();
    });

    it('runs the retention of a resolved purchase from its resolution', async () => {
      const attention = await settled(store, record(), 'needs_attention', at(T0));
      const resolvedAt = at(T0 + 31 * DAY);
      await store.transition(attention.id, ['needs_attention'], 'resolved', attention.version, {
        resolution: { by: 'admin', at: resolvedAt, note: 'refunded' },
      });
      setNow(new Date(Date.parse(resolvedAt) + RETENTION_MS - 1000));
      expect(await store.purgeExpired()).toBe(0);
      setNow(new Date(Date.parse(resolvedAt) + RETENTION_MS + 1000));
      expect(await store.purgeExpired()).toBe(1);
      expect(await store.get(attention.id)).toBeNull();
    });
  });
}
