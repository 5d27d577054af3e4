import { SpendClaimRefusedError, type SpendClaim } from '../../src/purchases/store';
import { SqlPurchaseStore } from '../../src/purchases/store/sql';
import type { Database } from '../../src/records/database';
import { testDatabase, testPglite } from '../support/database';
import { record } from './fixtures';
import { purchaseStoreContract } from './store.contract';

describe.each([
  ['postgres', () => testDatabase('purchases')],
  ['pglite', () => testPglite()],
] as const)('sql purchase store on %s', (kind, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ db, cleanup } = await open());
  });
  afterAll(() => cleanup());
  afterEach(() => db.query('TRUNCATE purchases CASCADE'));

  purchaseStoreContract(kind, async () => new SqlPurchaseStore({ db }));

  it('keeps every transition in an append-only history beside the current state', async () => {
    const store = new SqlPurchaseStore({ db });
    const r = record();
    await store.create(r);
    await store.transition(r.id, ['created'], 'confirming', 1, { confirmSentAt: r.createdAt });
    await store.transition(r.id, ['confirming'], 'succeeded', 2, { settledAt: r.createdAt });
    const history = await db.query<{ version: number; from_state: string | null; to_state: string }>(
      'SELECT version, from_state, to_state FROM purchase_transitions WHERE purchase_id = $1 ORDER BY version',
      [r.id],
    );
    expect(history.rows).toEqual([
      { version: 1, from_state: null, to_state: 'created' },
      { version: 2, from_state: 'created', to_state: 'confirming' },
      { version: 3, from_state: 'confirming', to_state: 'succeeded' },
    ]);
    await expect(db.query('UPDATE purchase_transitions SET to_state = $1', ['failed'])).rejects.toThrow(
      /append-only/,
    );
  });

  it('writes a purchase with its spend reservation in one statement, or neither', async () => {
    const store = new SqlPurchaseStore({ db });
    const msisdn = `2677${String(Date.now()).slice(-7)}`;
    const claim = (day: string, over: Partial<SpendClaim> = {}): SpendClaim => ({
      msisdn,
      day,
      amountMinor: 10_000,
      maxValueMinor: 25_000,
      maxCount: 5,
      blockedMsisdns: [msisdn],
      identifier: 'METER-CLAIM',
      ...over,
    });
    const usage = async (day: string) =>
      (
        await db.query<{ v: string; n: number }>(
          'SELECT value_minor::text AS v, count AS n FROM spend_days WHERE msisdn = $1 AND day = $2',
          [msisdn, day],
        )
      ).rows[0];
    const first = record();
    expect(await store.create(first, claim('2026-11-24'))).toMatchObject({ created: true });
    expect(await usage('2026-11-24')).toEqual({ v: '10000', n: 1 });
    // The same key again, even on the next day: its record, and nothing counted.
    const again = await store.create(
      { ...record(), idempotencyKey: first.idempotencyKey },
      claim('2026-11-25'),
    );
    expect(again).toMatchObject({ created: false, record: { id: first.id } });
    expect(await usage('2026-11-25')).toBeUndefined();
    // Over the value limit: no purchase, nothing counted.
    const over = record();
    await expect(store.create(over, claim('2026-11-24', { amountMinor: 20_000 }))).rejects.toEqual(
      new SpendClaimRefusedError('value'),
    );
    expect(await store.get(over.id)).toBeNull();
    expect(await usage('2026-11-24')).toEqual({ v: '10000', n: 1 });
    // Blocked by its identifier: refused, nothing written; the existing key is still answered.
    await db.query(`INSERT INTO blocklist (kind, value) VALUES ('identifier', 'METER-CLAIM')`);
    try {
      const blocked = record();
      await expect(store.create(blocked, claim('2026-11-24'))).rejects.toEqual(
        new SpendClaimRefusedError('blocked'),
      );
      expect(await store.get(blocked.id)).toBeNull();
      expect(
        await store.create({ ...record(), idempotencyKey: first.idempotencyKey }, claim('2026-11-24')),
      ).toMatchObject({ created: false, record: { id: first.id } });
    } finally {
      await db.query(`DELETE FROM blocklist WHERE value = 'METER-CLAIM'`);
    }
    // Concurrent duplicates: one purchase, counted once.
    const racing = record();
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        store.create({ ...record(), idempotencyKey: racing.idempotencyKey }, claim('2026-11-26')),
      ),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.record.id)).size).toBe(1);
    expect(await usage('2026-11-26')).toEqual({ v: '10000', n: 1 });
  });

  it('reads and writes a record in one transaction (withRecord): committed together, or neither', async () => {
    const store = new SqlPurchaseStore({ db });
    const r = record();
    await store.create(r);
    const moved = await store.withRecord(r.id, async (read, tx) => {
      expect(read).toMatchObject({ id: r.id, state: 'created', version: 1 });
      return tx.transition(r.id, ['created'], 'confirming', 1, { confirmSentAt: r.createdAt });
    });
    expect(moved).toMatchObject({ ok: true, record: { state: 'confirming', version: 2 } });
    await expect(
      store.withRecord(r.id, async (_read, tx) => {
        await tx.transition(r.id, ['confirming'], 'unknown', 2);
        throw new Error('step failed');
      }),
    ).rejects.toThrow('step failed');
    expect(await store.get(r.id)).toMatchObject({ state: 'confirming', version: 2 });
    expect(await store.withRecord('no-such-id', async (read) => read)).toBeNull();
  });

  it("runs what a body leaves for after its commit once, and never for a body rolled back (a group's re-run)", async () => {
    const store = new SqlPurchaseStore({ db });
    const records = [1, 2, 3, 4, 5].map(() => record());
    for (const r of records) await store.create(r);
    const ran: string[] = [];
    const failing = records[3].id;
    // Five at once: the first is written alone, the four handed in meanwhile share a transaction,
    // which the failing body rolls back; each of the four then runs again alone.
    const results = await Promise.allSettled(
      records.map((r) =>
        store.withRecord(r.id, async (_read, tx) => {
          const moved = await tx.transition(r.id, ['created'], 'confirming', 1, {
            confirmSentAt: r.createdAt,
          });
          tx.afterCommit(() => ran.push(r.id));
          if (r.id === failing) throw new Error('step failed after its write');
          return moved;
        }),
      ),
    );
    expect(results.map((x) => x.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect([...ran].sort()).toEqual(
      records
        .filter((r) => r.id !== failing)
        .map((r) => r.id)
        .sort(),
    );
    expect(await store.get(failing)).toMatchObject({ state: 'created', version: 1 });
  });

  it('finds a purchase by the provider reference once the result names it', async () => {
    const store = new SqlPurchaseStore({ db });
    const r = record({ state: 'confirming', version: 2 });
    await store.create(r);
    const result = {
      transactionId: 7,
      reference: 'BPC-REF-77',
      rawToken: null,
      units: null,
      total: null,
      providerTransactionId: null,
    };
    await store.transition(r.id, ['confirming'], 'succeeded', 2, { result, settledAt: r.createdAt });
    expect((await store.listByReference('BPC-REF-77')).map((x) => x.id)).toEqual([r.id]);
    expect((await store.listByReference(r.externalReference)).map((x) => x.id)).toEqual([r.id]);
  });

  it('purges only records past retention, counted from settling', async () => {
    let now = new Date('2030-01-01T00:00:00.000Z');
    const store = new SqlPurchaseStore({ db, clock: () => now, retentionMs: 24 * 3600_000 });
    const old = record({
      state: 'succeeded',
      version: 3,
      createdAt: '2029-12-30T00:00:00.000Z',
      settledAt: '2029-12-30T00:00:00.000Z',
      notifiedAt: '2029-12-30T00:00:00.000Z',
    });
    const open = record({ state: 'unknown', version: 3, createdAt: '2029-12-30T00:00:00.000Z' });
    const fresh = record({
      state: 'succeeded',
      version: 3,
      createdAt: '2029-12-30T00:00:00.000Z',
      settledAt: '2029-12-31T12:00:00.000Z',
      notifiedAt: '2029-12-31T12:00:00.000Z',
    });
    for (const r of [old, open, fresh]) await store.create(r);
    expect(await store.purgeExpired()).toBe(1);
    expect(await store.get(old.id)).toBeNull();
    expect(await store.get(open.id)).not.toBeNull();
    expect(await store.get(fresh.id)).not.toBeNull();
    now = new Date('2030-01-02T00:00:00.000Z');
    expect(await store.purgeExpired()).toBe(1);
  });
});
