import { RedisSessionStore, msisdnKeys, sessionKeys } from '../../src/ussd/engine/store';
import { Redis } from 'ioredis';
import { deleteKeysUnder, keysUnder, TEST_REDIS_URL, testPrefix, testRedis } from '../support/redis';
import { record, ref, sessionStoreContract } from './store.contract';

const { redis, cleanup } = testRedis('session');
const prefixes: string[] = [];

afterEach(async () => {
  for (const prefix of prefixes.splice(0)) await deleteKeysUnder(redis, prefix);
});
afterAll(() => cleanup());

/** A store on a key prefix of its own, removed after the test. */
function storeOnOwnPrefix(): { store: RedisSessionStore; prefix: string } {
  const prefix = testPrefix('session');
  prefixes.push(prefix);
  return { store: new RedisSessionStore(redis, prefix), prefix };
}

sessionStoreContract('redis', async () => storeOnOwnPrefix().store);

describe('Redis key layout', () => {
  it('puts every key of a session, and of a caller, in one hash tag', () => {
    const s = sessionKeys('gw', ref);
    expect(s).toEqual({
      record: 'gw:ussd:{africastalking:ATUid_1}:rec',
      lock: 'gw:ussd:{africastalking:ATUid_1}:lock',
    });
    expect(msisdnKeys('gw', '26771234567')).toEqual({
      language: 'gw:ussd:{26771234567}:lang',
      resume: 'gw:ussd:{26771234567}:resume',
    });
  });

  it('sets a TTL on every key it writes', async () => {
    const { store, prefix } = storeOnOwnPrefix();
    const lock = await store.loadAndLock(ref, 5000);
    if (lock.kind !== 'locked') throw new Error('expected lock');
    await store.saveAndUnlock(ref, lock.token, record(), 60);
    await store.startMsisdnSession('26771234567', ref, 60);
    await store.setLanguage('26771234567', 'en-BW');
    const keys = await keysUnder(redis, prefix);
    expect(keys).toHaveLength(3);
    for (const key of keys) expect(await redis.ttl(key)).toBeGreaterThan(0);
  });
});

describe('the remembered record across processes', () => {
  it('a record another process saved since is read in full, never the remembered one', async () => {
    const { store, prefix } = storeOnOwnPrefix();
    const other = new RedisSessionStore(redis, prefix);
    const save = async (on: RedisSessionStore, rec: ReturnType<typeof record>) => {
      const lock = await on.loadAndLock(ref, 5000);
      if (lock.kind !== 'locked') throw new Error('expected lock');
      expect(await on.saveAndUnlock(ref, lock.token, rec, 60)).toBe(true);
    };
    await save(store, record());
    await save(other, record({ hops: 3, lastText: '1*2' }));
    expect(store.recall(ref)?.record).toEqual(record());
    expect(await store.loadAndLock(ref, 5000)).toMatchObject({
      kind: 'locked',
      record: record({ hops: 3, lastText: '1*2' }),
    });
  });

  it('reads a record stored without a version (an older build) and versions it on the next save', async () => {
    const { store, prefix } = storeOnOwnPrefix();
    const key = sessionKeys(prefix, ref).record;
    await redis.set(key, JSON.stringify(record()), 'EX', 60);
    const lock = await store.loadAndLock(ref, 5000);
    expect(lock).toMatchObject({ kind: 'locked', record: record() });
    expect(store.recall(ref)).toBeNull();
    if (lock.kind !== 'locked') throw new Error('expected lock');
    await store.saveAndUnlock(ref, lock.token, record({ hops: 3 }), 60);
    expect(await redis.get(key)).toMatch(new RegExp(`^\\{"v":"${lock.token}","machineVersion":`));
    expect(store.recall(ref)).toEqual({ record: record({ hops: 3 }), version: lock.token });
  });
});

describe('the previous dialogue of a caller dialling again', () => {
  it('is not asked of Redis when this store saved it as over; an active one is', async () => {
    const { prefix } = storeOnOwnPrefix();
    const connection = new Redis(TEST_REDIS_URL);
    const store = new RedisSessionStore(connection, prefix);
    const over = { aggregator: 'africastalking', sessionId: 'over' };
    const live = { aggregator: 'africastalking', sessionId: 'live' };
    for (const [at, rec] of [
      [over, record({ status: 'final' })],
      [live, record()],
    ] as const) {
      const lock = await store.loadAndLock(at, 5000);
      if (lock.kind !== 'locked') throw new Error('expected lock');
      await store.saveAndUnlock(at, lock.token, rec, 60);
    }
    // With the connection gone, only an answer that needs no command can come back.
    connection.disconnect();
    const conditions = { minUpdatedAt: Date.now() - 60_000, machineVersions: ['v1'] };
    expect(await store.takeResumable(over, conditions)).toBeNull();
    await expect(store.takeResumable(live, conditions)).rejects.toThrow();
  });
});
