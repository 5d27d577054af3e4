import { loadConfig } from '../config';
import { bullPrefix } from './connection';
import { hashSlot } from './keys';

describe('Redis Cluster settings', () => {
  it('puts every key of a BullMQ queue in one slot on a Cluster, and leaves single servers as they were', () => {
    expect(bullPrefix('gw', false)).toBe('gw-bull');
    const prefix = bullPrefix('gw', true);
    expect(prefix).toBe('{gw-bull}');
    const keys = ['wait', 'active', 'id', 'meta', 'events'].map((part) => `${prefix}:purchases:${part}`);
    expect(new Set(keys.map(hashSlot)).size).toBe(1);
  });

  it('REDIS_CLUSTER is read', () => {
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:7000', REDIS_CLUSTER: 'true' }).redisCluster).toBe(
      true,
    );
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:7000' }).redisCluster).toBe(false);
  });
});
