/**
 * The run's keys in Redis: the memory a live dialogue's record takes, sampled mid-round, and
 * their removal at the end (the run's sessions, purchases and jobs are test data).
 */
import { Redis } from 'ioredis';
import { REDIS_URL } from './options';
import { sessionKeys, sharedPartKey } from '../src/ussd/engine/store/keys';

/** The run's sessions, purchases and jobs are test data: leave Redis as it was. */
export async function removeKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * Redis memory of a live dialogue (`MEMORY USAGE`, key and value with overhead): the mean over
 * the dialogues in flight mid-round that are waiting for a hop, and the shared context parts
 * they name (stored once for all of them); null when there are none.
 */
export async function liveDialogueBytes(
  redis: Redis,
  prefix: string,
  sessionIds: string[],
): Promise<{ record: number; records: number; shared: number } | null> {
  // The dialogues the load generator has in flight, read by key: a SCAN of the keyspace (every
  // purchase and job of the run) cost Redis more than the hops it was measuring.
  const keys = sessionIds.map(
    (sessionId) => sessionKeys(prefix, { aggregator: 'africastalking', sessionId }).record,
  );
  const values = keys.length ? await redis.mget(...keys) : [];
  const live = keys.filter((_key, i) => values[i]?.includes('"status":"active"'));
  if (live.length === 0) return null;
  const usage = async (names: string[]) =>
    (await Promise.all(names.map((key) => redis.memory('USAGE', key)))).map((size) => Number(size ?? 0));
  const sizes = await usage(live);
  const hashes = new Set<string>();
  for (const value of values) {
    const shared = value && (JSON.parse(value) as { shared?: unknown }).shared;
    if (typeof shared === 'string') hashes.add(shared);
  }
  const shared = (await usage([...hashes].map((hash) => sharedPartKey(prefix, hash)))).reduce(
    (a, b) => a + b,
    0,
  );
  return {
    record: Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length),
    records: live.length,
    shared,
  };
}

/** What `liveDialogueBytes` found: null when no dialogue was waiting for a hop. */
export type LiveDialogueBytes = Awaited<ReturnType<typeof liveDialogueBytes>>;
