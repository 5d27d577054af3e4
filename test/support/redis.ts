import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * The one way tests reach the shared Redis. The URL comes from `TEST_REDIS_URL` (default
 * `redis://127.0.0.1:6379/15`) and never from `REDIS_URL`: a developer with `REDIS_URL`
 * exported must not get test keys in it. Database 0 is refused unless `TEST_REDIS_URL`
 * names it explicitly. Tests that kill Redis start their own (`./redis-server.ts`).
 */
export const TEST_REDIS_URL = testRedisUrl(process.env.TEST_REDIS_URL);

/** The URL tests use, from the value of `TEST_REDIS_URL`. */
export function testRedisUrl(fromEnv: string | undefined): string {
  if (!fromEnv) return 'redis://127.0.0.1:6379/15';
  // No database in the URL means database 0, the one a shared server's real data is in.
  if (new URL(fromEnv).pathname.replace(/^\//, '') === '')
    throw new Error(
      'TEST_REDIS_URL must name a database (redis://host:6379/15); write /0 to mean database 0',
    );
  return fromEnv;
}

/** A random key prefix of its own for one test (`test-<label>-<hex>`). */
export function testPrefix(label = 'redis'): string {
  return `test-${label}-${randomBytes(6).toString('hex')}`;
}

/** Every key under `prefix` (`<prefix>:…` and `<prefix>-…`, e.g. BullMQ's `<prefix>-bull`), sorted. */
export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found.sort();
}

/** Delete every key under `prefix`. */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<void> {
  const keys = await keysUnder(redis, prefix);
  for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
}

/** A connection to the test Redis and a random prefix; `cleanup()` deletes every key under it and quits. */
export interface TestRedis {
  redis: Redis;
  prefix: string;
  url: string;
  cleanup(): Promise<void>;
}

export function testRedis(label?: string): TestRedis {
  const redis = new Redis(TEST_REDIS_URL);
  const prefix = testPrefix(label);
  return {
    redis,
    prefix,
    url: TEST_REDIS_URL,
    async cleanup() {
      await deleteKeysUnder(redis, prefix);
      await redis.quit();
    },
  };
}
