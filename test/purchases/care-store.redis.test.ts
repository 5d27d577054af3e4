import { purchaseKeys, RedisPurchaseStore } from '../../src/purchases/store';
import { deleteKeysUnder, keysUnder, testPrefix, testRedis } from '../support/redis';
import { at, careStoreContract, RETENTION_MS, settled, T0 } from './care-store.contract';
import { intent, record } from './fixtures';

const { redis, cleanup } = testRedis('care-store');
const prefixes: string[] = [];

afterEach(async () => {
  for (const prefix of prefixes.splice(0)) await deleteKeysUnder(redis, prefix);
});
afterAll(() => cleanup());

function clockedStore() {
  const prefix = testPrefix('care-store');
  prefixes.push(prefix);
  let now = new Date(T0);
  const store = new RedisPurchaseStore({ redis, prefix, clock: () => now, retentionMs: RETENTION_MS });
  return { store, prefix, setNow: (at: Date) => (now = at) };
}

careStoreContract('redis', async () => clockedStore());

/** Every sorted-set key under `prefix` that names `id`. */
async function indexesNaming(prefix: string, id: string): Promise<string[]> {
  const named: string[] = [];
  for (const key of await keysUnder(redis, prefix))
    if ((await redis.type(key)) === 'zset' && (await redis.zscore(key, id)) !== null) named.push(key);
  return named;
}

describe('redis purchase store retention', () => {
  it('sets an expiry on a record and its idempotency key when it settles, none while unresolved', async () => {
    const { store, prefix } = clockedStore();
    const keys = purchaseKeys(prefix);
    const attention = await settled(store, record(), 'needs_attention', at(T0));
    expect(await redis.pttl(keys.record(attention.id))).toBe(-1);
    const done = await settled(store, record(), 'succeeded', at(T0));
    // The purge time (settled + retention) and a grace day after it for Redis's own expiry.
    const expected = T0 + RETENTION_MS + 24 * 3600_000;
    expect(await redis.pexpiretime(keys.record(done.id))).toBe(expected);
    expect(await redis.pexpiretime(keys.idempotency(done.idempotencyKey))).toBe(expected);
    expect(await redis.zscore(keys.expiring(), done.id)).toBe(String(expected - 24 * 3600_000));
    expect(await redis.zscore(keys.expiring(), attention.id)).toBeNull();
  });

  it('leaves no index naming a purged record', async () => {
    const { store, prefix, setNow } = clockedStore();
    const done = await settled(store, record(), 'succeeded', at(T0), 'TOP/9/1');
    expect((await indexesNaming(prefix, done.id)).length).toBeGreaterThanOrEqual(6);
    setNow(new Date(T0 + RETENTION_MS + 1));
    expect(await store.purgeExpired()).toBe(1);
    expect(await indexesNaming(prefix, done.id)).toEqual([]);
    expect(await keysUnder(redis, `${prefix}:purchase:{purchases}:record:`)).toEqual([]);
  });

  it('drops the id of a record Redis expired by itself from the index a lookup meets', async () => {
    const { store, prefix } = clockedStore();
    const keys = purchaseKeys(prefix);
    const r = record({ intent: intent({ subscriberIdentifier: 'EXPIRED-1' }) });
    await store.create(r);
    await redis.del(keys.record(r.id));
    expect(await store.listByIdentifier('EXPIRED-1')).toEqual([]);
    expect(await redis.zscore(keys.byIdentifier('EXPIRED-1'), r.id)).toBeNull();
  });
});

describe('redis purchase store reindex (records written before the care indexes)', () => {
  it('indexes an older record for the lookups and the retention, once', async () => {
    const { store, prefix, setNow } = clockedStore();
    const keys = purchaseKeys(prefix);
    // As the earlier create script left it: record, idempotency key, state and number indexes only.
    const old = {
      ...record({ intent: intent({ subscriberIdentifier: 'OLD-METER-1' }) }),
      state: 'succeeded' as const,
      settledAt: at(T0),
      notifiedAt: at(T0),
    };
    await redis.hset(
      keys.record(old.id),
      'json',
      JSON.stringify(old),
      'state',
      old.state,
      'version',
      old.version,
    );
    await redis.set(keys.idempotency(old.idempotencyKey), old.id);
    await redis.zadd(keys.byState('succeeded'), Date.parse(old.createdAt), old.id);
    expect(await store.listByIdentifier('OLD-METER-1')).toEqual([]);

    expect(await store.reindex()).toBe(1);
    expect((await store.listByIdentifier('OLD-METER-1')).map((r) => r.id)).toEqual([old.id]);
    expect((await store.listByReference(old.externalReference)).map((r) => r.id)).toEqual([old.id]);
    expect(await redis.pexpiretime(keys.record(old.id))).toBe(T0 + RETENTION_MS + 24 * 3600_000);
    expect(await store.reindex()).toBe(1);
    expect(await redis.zcard(keys.byIdentifier('OLD-METER-1'))).toBe(1);

    setNow(new Date(T0 + RETENTION_MS + 1));
    expect(await store.purgeExpired()).toBe(1);
    expect(await indexesNaming(prefix, old.id)).toEqual([]);
  });
});
