import { AgentRegistry } from '../../src/agents';
import { RedisAgentStore } from '../../src/agents/store';
import { deleteKeysUnder, keysUnder, testPrefix, testRedis } from '../support/redis';
import { FAST_SCRYPT } from './helpers';
import { agentStoreContract } from './store.contract';

const { redis, cleanup } = testRedis('agents');
const prefixes: string[] = [];

afterEach(async () => {
  for (const prefix of prefixes.splice(0)) await deleteKeysUnder(redis, prefix);
});
afterAll(() => cleanup());

function ownPrefix(): string {
  const prefix = testPrefix('agents');
  prefixes.push(prefix);
  return prefix;
}

agentStoreContract('redis', async () => new RedisAgentStore(redis, ownPrefix()));

describe('redis agent store keys', () => {
  it('keeps the registry under agent: with the one hash tag {agents}', async () => {
    const prefix = ownPrefix();
    const registry = new AgentRegistry({
      store: new RedisAgentStore(redis, prefix),
      timeZone: 'Africa/Gaborone',
      region: 'BW',
      scrypt: FAST_SCRYPT,
    });
    await registry.add({ msisdn: '26771234567', name: 'A', funding: { kind: 'float' } });
    expect(await keysUnder(redis, prefix)).toEqual([
      `${prefix}:agent:{agents}:index`,
      `${prefix}:agent:{agents}:record:26771234567`,
    ]);
  });
});
