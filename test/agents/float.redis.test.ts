import { RedisFloatStore } from '../../src/agents/ledger';
import { deleteKeysUnder, keysUnder, testPrefix, testRedis } from '../support/redis';
import { floatStoreContract } from './float.contract';

const { redis, cleanup } = testRedis('float');
const prefixes: string[] = [];

afterEach(async () => {
  for (const prefix of prefixes.splice(0)) await deleteKeysUnder(redis, prefix);
});
afterAll(() => cleanup());

function ownPrefix(): string {
  const prefix = testPrefix('float');
  prefixes.push(prefix);
  return prefix;
}

floatStoreContract('redis', async () => new RedisFloatStore(redis, ownPrefix()));

describe('redis float keys', () => {
  it("keeps an agent's float under agent: with the agent's own hash tag", async () => {
    const prefix = ownPrefix();
    const store = new RedisFloatStore(redis, prefix);
    const at = new Date();
    await store.credit('26771234567', { kind: 'credit', amountMinor: 100, reference: 'R', at });
    await store.reserve('26771234567', {
      purchaseKey: 'p',
      amountMinor: 10,
      funding: 'float',
      limits: { maxSaleMinor: 100, maxDayValueMinor: 100, maxDayCount: 1 },
      day: '2026-11-23',
      at,
    });
    const tag = `${prefix}:agent:{26771234567}:float`;
    expect(await keysUnder(redis, prefix)).toEqual(
      [`${tag}:account`, `${tag}:days`, `${tag}:entries`, `${tag}:holds`, `${tag}:refs`].sort(),
    );
  });

  it('keeps amounts exact near the largest accepted amount', async () => {
    const store = new RedisFloatStore(redis, ownPrefix());
    const at = new Date();
    const big = 1_000_000_000_000;
    for (const ref of ['A', 'B', 'C'])
      await store.credit('26771234567', { kind: 'credit', amountMinor: big + 1, reference: ref, at });
    const result = await store.reserve('26771234567', {
      purchaseKey: 'p',
      amountMinor: big - 1,
      funding: 'float',
      limits: { maxSaleMinor: big, maxDayValueMinor: 10 * big, maxDayCount: 1 },
      day: '2026-11-23',
      at,
    });
    expect(result).toMatchObject({
      status: 'reserved',
      entry: { balanceMinor: 2 * big + 4, heldMinor: big - 1 },
    });
    expect(await store.balance('26771234567')).toEqual({
      availableMinor: 2 * big + 4,
      heldMinor: big - 1,
      entries: 4,
    });
  });
});
