import { Redis } from 'ioredis';
import { awaitReplicas, checkDurability, DurabilityError } from '../../src/redis/durability';
import { RedisDataLossWatch } from '../../src/redis/data-loss';
import { OwnRedisServer } from '../support/redis-server';
import { until } from '../support/wait';

const KEY = 'gw:redis:identity';

describe('RedisDataLossWatch', () => {
  const server = new OwnRedisServer('snapshot');
  let redis: Redis;
  afterAll(async () => {
    redis?.disconnect();
    await server.destroy();
  });

  it('notices a restart from an older snapshot, and every process agrees on when', async () => {
    await server.start();
    redis = new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 50 });
    let now = new Date('2026-01-01T10:00:00Z');
    const watch = new RedisDataLossWatch(redis, KEY, () => now);
    // A first start (or a Redis restarted empty): nothing can have been lost that still exists.
    expect(await watch.writesLostBefore()).toBeNull();
    now = new Date('2026-01-01T10:01:00Z');
    expect(await watch.writesLostBefore()).toBeNull();

    await server.snapshot();
    await redis.set('written-after-snapshot', '1');
    await server.kill();
    now = new Date('2026-01-01T11:00:00Z');
    await server.start();
    // The connection comes back by itself; the first question after it sees the loss.
    await until('the reconnect', () => redis.status === 'ready');
    expect((await watch.writesLostBefore())?.toISOString()).toBe('2026-01-01T11:00:00.000Z');
    expect(await redis.get('written-after-snapshot')).toBeNull();

    // A second process sharing the server adopts the moment the first one noticed.
    const other = new Redis(server.url);
    const second = new RedisDataLossWatch(other, KEY, () => new Date('2026-01-01T11:05:00Z'));
    expect((await second.writesLostBefore())?.toISOString()).toBe('2026-01-01T11:00:00.000Z');
    other.disconnect();

    // Restarted empty: no loss that matters (nothing older survives), and the key is written anew.
    server.forgetData();
    await server.kill();
    await server.start();
    await until('the second reconnect', () => redis.status === 'ready');
    expect(await watch.writesLostBefore()).toBeNull();
  });

  it('a gateway restart with Redis intact is not a loss', async () => {
    const again = new Redis(server.url);
    const watch = new RedisDataLossWatch(again, KEY, () => new Date('2026-01-02T00:00:00Z'));
    expect(await watch.writesLostBefore()).toBeNull();
    await again.hset(KEY, 'since', '2026-01-01T11:00:00.000Z');
    expect((await watch.writesLostBefore())?.toISOString()).toBe('2026-01-01T11:00:00.000Z');
    again.disconnect();
  });
});

describe('checkDurability', () => {
  const volatile = new OwnRedisServer('none');
  const durable = new OwnRedisServer('aof-always');
  beforeAll(async () => {
    await volatile.start();
    await durable.start();
  });
  afterAll(async () => {
    await volatile.destroy();
    await durable.destroy();
  });

  it('aof: accepts appendonly yes + appendfsync always, refuses anything less with one line', async () => {
    const ok = new Redis(durable.url);
    const weak = new Redis(volatile.url);
    try {
      await expect(checkDurability(ok, 'aof')).resolves.toBeUndefined();
      const refused = checkDurability(weak, 'aof');
      await expect(refused).rejects.toBeInstanceOf(DurabilityError);
      await expect(refused).rejects.toThrow(/appendonly=no, appendfsync=everysec/);
      await weak.call('CONFIG', 'SET', 'appendonly', 'yes');
      await expect(checkDurability(weak, 'aof')).rejects.toThrow(/appendfsync=everysec/);
    } finally {
      ok.disconnect();
      weak.disconnect();
    }
  });

  it('wait: refuses a Redis without replicas; WAIT reports what was acknowledged', async () => {
    const redis = new Redis(volatile.url);
    try {
      await expect(checkDurability(redis, 'wait', { replicas: 1 })).rejects.toThrow(
        'REDIS_DURABILITY=wait needs 1 connected replica(s); Redis has 0',
      );
      await redis.set('k', 'v');
      expect(await awaitReplicas(redis, 1, 50)).toBe(false);
      expect(await awaitReplicas(redis, 0, 50)).toBe(true);
      await expect(checkDurability(redis, 'none')).resolves.toBeUndefined();
    } finally {
      redis.disconnect();
    }
  });
});

describe('RedisDataLossWatch on a Redis that refuses INFO', () => {
  const server = new OwnRedisServer('none');
  afterAll(() => server.destroy());

  it('cannot detect a loss, says so, and does not block confirms', async () => {
    await server.start();
    const redis = new Redis(server.url);
    try {
      await redis.call('ACL', 'SETUSER', 'default', '-info');
      const watch = new RedisDataLossWatch(redis, KEY);
      expect(await watch.writesLostBefore()).toBeNull();
    } finally {
      redis.disconnect();
    }
  });
});
