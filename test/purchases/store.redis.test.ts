import { Redis } from 'ioredis';
import { RedisPurchaseStore } from '../../src/purchases/store';
import { deletePrefix, REDIS_URL, testPrefix } from './redis-helpers';
import { purchaseStoreContract } from './store.contract';

const redis = new Redis(REDIS_URL);
const prefixes: string[] = [];

afterEach(async () => {
  for (const prefix of prefixes.splice(0)) await deletePrefix(redis, prefix);
});
afterAll(() => redis.quit());

purchaseStoreContract('redis', async () => {
  const prefix = testPrefix();
  prefixes.push(prefix);
  return new RedisPurchaseStore({ redis, prefix });
});

describe('redis purchase store keys', () => {
  it('hash-tags the purchase id in the record key', async () => {
    const prefix = testPrefix();
    prefixes.push(prefix);
    const store = new RedisPurchaseStore({ redis, prefix });
    const { record } = await import('./fixtures');
    const r = record();
    await store.create(r);
    expect(await redis.exists(`${prefix}:purchase:{${r.id}}`)).toBe(1);
  });
});
