import { RedisSessionStore, msisdnKeys, sessionKeys } from '../../src/session/store';
import { deleteKeysUnder, keysUnder, testPrefix, testRedis } from '../support/redis';
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
