import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';

/** A real Redis connection with a random key prefix; `cleanup()` deletes every key under it and quits. */
export function testRedis(): { redis: Redis; prefix: string; cleanup: () => Promise<void> } {
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: false });
  const prefix = `test-session-${randomBytes(6).toString('hex')}`;
  const cleanup = async () => {
    await deleteByPrefix(redis, prefix);
    await redis.quit();
  };
  return { redis, prefix, cleanup };
}

export async function deleteByPrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found.sort();
}
