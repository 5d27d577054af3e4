import type { PurchaseStore } from '../../src/purchases/store';
import type { PurchaseRecord } from '../../src/purchases/types';
import type { Queryable } from '../../src/records/database';
import { intent, record } from './fixtures';

/** What a PurchaseStore promises: run by store.sql.test.ts on PostgreSQL and PGlite. */
export function purchaseStoreContract(name: string, makeStore: () => Promise<PurchaseStore>): void {
  describe(`${name} purchase store contract`, () => {
    let store: PurchaseStore;
    beforeEach(async () => {
      store = await makeStore();
    });

    it('creates a record and reads it back by id and by idempotency key', async () => {
      const r = record();
      const result = await store.create(r);
      expect(result).toEqual({ created: true, record: r });
      expect(await store.get(r.id)).toEqual(r);
      expect(await store.getByIdempotencyKey(r.idempotencyKey)).toEqual(r);
      expect(await store.get('missing')).toBeNull();
      expect(await store.getByIdempotencyKey('missing')).toBeNull();
    });

    it('returns the existing record for a taken idempotency key and writes nothing', async () => {
      const first = record();
      await store.create(first);
      const second = record({ idempotencyKey: first.idempotencyKey });
      const result = await store.create(second);
      expect(result.created).toBe(false);
      expect(result.record).toEqual(first);
      expect(await store.get(second.id)).toBeNull();
    });

    it('creates exactly one record for concurrent duplicates', async () => {
      const key = record().idempotencyKey;
      const results = await Promise.all(
        Array.from({ length: 8 }, () => store.create(record({ idempotencyKey: key }))),
      );
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.record.id)).size).toBe(1);
      expect(await store.listByState('created', { limit: 50 })).toHaveLength(1);
    });

    it('commits what is sent alongside a new record with it, or neither (a statement refused writes nothing)', async () => {
      const r = record();
      const failed = store.create(r, undefined, (candidate, tx) =>
        // The new row is visible to the statement sent after it: it fails, and takes the row with it.
        tx.query('SELECT 1 / 0 FROM purchases WHERE id = $1', [candidate.id]),
      );
      await expect(failed).rejects.toThrow(/division by zero/);
      expect(await store.get(r.id)).toBeNull();
      expect(await store.getByIdempotencyKey(r.idempotencyKey)).toBeNull();

      const seen: unknown[] = [];
      const alongside = (candidate: PurchaseRecord, tx: Queryable) =>
        tx
          .query<{ id: string }>('SELECT id FROM purchases WHERE id = $1', [candidate.id])
          .then((found) => seen.push(found.rows.map((row) => row.id)));
      const ok = await store.create(r, undefined, alongside);
      expect(ok.created).toBe(true);
      expect(seen).toEqual([[r.id]]);
      // A taken key writes no record: what is sent alongside the candidate finds none to go with.
      const candidate = record({ idempotencyKey: r.idempotencyKey });
      const again = await store.create(candidate, undefined, alongside);
      expect(again).toMatchObject({ created: false, record: { id: r.id } });
      expect(seen).toEqual([[r.id], []]);
    });

    it('transitions with compare-and-set: state in from and version match', async () => {
      const r = record();
      await store.create(r);
      const moved = await store.transition(r.id, ['created'], 'confirming', 1, {
        confirmSentAt: '2025-01-01T00:00:00.000Z',
      });
      expect(moved.ok).toBe(true);
      if (!moved.ok) return;
      expect(moved.record).toMatchObject({
        state: 'confirming',
        version: 2,
        confirmSentAt: '2025-01-01T00:00:00.000Z',
      });
      expect(await store.get(r.id)).toEqual(moved.record);
    });

    it('refuses a transition from the wrong state, reporting the current record', async () => {
      const r = record();
      await store.create(r);
      await store.transition(r.id, ['created'], 'confirming', 1);
      const again = await store.transition(r.id, ['created'], 'confirming', 2);
      expect(again).toEqual({
        ok: false,
        conflict: { reason: 'state', current: expect.objectContaining({ state: 'confirming', version: 2 }) },
      });
    });

    it('refuses a transition with a stale version', async () => {
      const r = record();
      await store.create(r);
      const stale = await store.transition(r.id, ['created'], 'confirming', 7);
      expect(stale.ok).toBe(false);
      if (stale.ok) return;
      expect(stale.conflict.reason).toBe('version');
      expect((await store.get(r.id))!.state).toBe('created');
    });

    it('reports not_found for a missing record', async () => {
      expect(await store.transition('nope', ['created'], 'confirming', 1)).toEqual({
        ok: false,
        conflict: { reason: 'not_found', current: null },
      });
    });

    it('lets exactly one of many concurrent compare-and-sets win', async () => {
      const r = record();
      await store.create(r);
      const results = await Promise.all(
        Array.from({ length: 10 }, () => store.transition(r.id, ['created'], 'confirming', 1)),
      );
      expect(results.filter((x) => x.ok)).toHaveLength(1);
      expect((await store.get(r.id))!.version).toBe(2);
    });

    it('keeps the state index in step with transitions', async () => {
      const a = record();
      const b = record();
      await store.create(a);
      await store.create(b);
      await store.transition(a.id, ['created'], 'confirming', 1);
      expect((await store.listByState('created')).map((x) => x.id)).toEqual([b.id]);
      expect((await store.listByState('confirming')).map((x) => x.id)).toEqual([a.id]);
      await store.transition(a.id, ['confirming'], 'unknown', 2);
      expect(await store.listByState('confirming')).toEqual([]);
      expect((await store.listByState('unknown')).map((x) => x.id)).toEqual([a.id]);
    });

    it('pages through a state and the unnotified list with a cursor, also while records leave', async () => {
      // Two share a creation time: the id orders them, in both stores.
      const tie = new Date(5_000).toISOString();
      const created = [
        record({ createdAt: new Date(1_000).toISOString() }),
        record({ createdAt: tie }),
        record({ createdAt: tie }),
        record({ createdAt: new Date(9_000).toISOString() }),
        record({ createdAt: new Date(7_000).toISOString() }),
      ];
      for (const r of created) await store.create(r);
      const all = (await store.listByState('created', { limit: 50 })).map((x) => x.id);
      expect(all).toHaveLength(5);
      const pages: string[][] = [];
      for (let after: PurchaseRecord | undefined; ;) {
        const page = await store.listByState('created', { limit: 2, after });
        pages.push(page.map((x) => x.id));
        if (page.length === 0) break;
        after = page[page.length - 1];
        // What a sweep does: the records it just read leave the list before the next page.
        for (const r of page) await store.transition(r.id, ['created'], 'confirming', 1);
      }
      expect(pages.map((page) => page.length)).toEqual([2, 2, 1, 0]);
      expect(pages.flat()).toEqual(all);

      for (const r of created.slice(0, 3)) {
        await store.transition(r.id, ['confirming'], 'failed', 2, { settledAt: r.createdAt });
      }
      const unnotified = (await store.listUnnotified({ limit: 50 })).map((x) => x.id);
      expect(unnotified).toHaveLength(3);
      const first = await store.listUnnotified({ limit: 2 });
      const rest = await store.listUnnotified({ limit: 2, after: first[first.length - 1] });
      expect([...first, ...rest].map((x) => x.id)).toEqual(unnotified);
    });

    it('lists by beneficiary or requester MSISDN, newest first, with limit and state filter', async () => {
      const older = record({
        intent: intent({ beneficiaryMsisdn: '26770000001', requesterMsisdn: '26770000009' }),
      });
      const newer = record({
        intent: intent({ beneficiaryMsisdn: '26770000002', requesterMsisdn: '26770000009' }),
      });
      await store.create(older);
      await store.create(newer);
      expect((await store.listByMsisdn('26770000009')).map((x) => x.id)).toEqual([newer.id, older.id]);
      expect((await store.listByMsisdn('26770000009', { limit: 1 })).map((x) => x.id)).toEqual([newer.id]);
      expect((await store.listByMsisdn('26770000001')).map((x) => x.id)).toEqual([older.id]);
      expect(await store.listByMsisdn('26770000003')).toEqual([]);
      await store.transition(older.id, ['created'], 'confirming', 1);
      expect((await store.listByMsisdn('26770000009', { state: 'confirming' })).map((x) => x.id)).toEqual([
        older.id,
      ]);
    });

    it('lists settled records awaiting notification until notifiedAt is written', async () => {
      const r = record({ state: 'confirming', version: 2 });
      await store.create(r);
      expect(await store.listUnnotified()).toEqual([]);
      const settled = await store.transition(r.id, ['confirming'], 'succeeded', 2, {
        settledAt: r.createdAt,
      });
      expect(settled.ok).toBe(true);
      expect((await store.listUnnotified()).map((x) => x.id)).toEqual([r.id]);
      await store.transition(r.id, ['succeeded'], 'succeeded', 3, { notifiedAt: r.createdAt });
      expect(await store.listUnnotified()).toEqual([]);
    });
  });
}
