import { purchaseKeys, RedisPurchaseStore } from '../../src/purchases/store';
import { deleteKeysUnder, testPrefix, testRedis } from '../support/redis';
import { purchaseStoreContract } from './store.contract';

const { redis, cleanup } = testRedis('purchases');
const prefixes: string[] = [];

afterEach(async () => {
  for (const prefix of prefixes.splice(0)) await deleteKeysUnder(redis, prefix);
});
afterAll(() => cleanup());

/** A store on a key prefix of its own, removed after the test. */
function storeOnOwnPrefix(): { store: RedisPurchaseStore; prefix: string } {
  const prefix = testPrefix('purchases');
  prefixes.push(prefix);
  return { store: new RedisPurchaseStore({ redis, prefix }), prefix };
}

purchaseStoreContract('redis', async () => storeOnOwnPrefix().store);

describe('redis purchase store keys', () => {
  it('keeps every purchase key under purchase: with the one hash tag {purchases}', async () => {
    const { store, prefix } = storeOnOwnPrefix();
    const { record } = await import('./fixtures');
    const r = record();
    await store.create(r);
    expect(await redis.exists(`${prefix}:purchase:{purchases}:record:${r.id}`)).toBe(1);
    expect(await redis.exists(`${prefix}:purchase:{purchases}:idempotency:${r.idempotencyKey}`)).toBe(1);
  });
});

describe('redis purchase store pages', () => {
  it('reads on past a page whose records all moved on between the index read and the load', async () => {
    const { store, prefix } = storeOnOwnPrefix();
    const { record } = await import('./fixtures');
    const [oldest, older, newest] = [1_000, 2_000, 3_000].map((ms) =>
      record({ createdAt: new Date(ms).toISOString() }),
    );
    for (const r of [oldest, older, newest]) await store.create(r);
    // The index still lists the newest two as created; their records say they moved on, as a
    // transition landing between the two reads would leave them.
    for (const r of [older, newest]) {
      await redis.hset(
        purchaseKeys(prefix).record(r.id),
        'json',
        JSON.stringify({ ...r, state: 'confirming' }),
      );
    }
    expect((await store.listByState('created', { limit: 2 })).map((x) => x.id)).toEqual([oldest.id]);
  });
});
