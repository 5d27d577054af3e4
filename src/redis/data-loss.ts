import type { Redis } from 'ioredis';
import { componentLogger } from '../observability/logger';
import { isCluster, masterOfSlot } from './connection';
import { hashSlot, keyPrefix } from './keys';

const log = componentLogger('redis');

/**
 * Notices that Redis came back with other data than it had: a restart (from an older RDB
 * snapshot, an `appendfsync everysec` file, or empty) or a failover to a lagging replica. Every
 * such event changes the server's `run_id`. The last `run_id` seen is kept in Redis itself with
 * the moment the change was first noticed, so every process sharing the server agrees on it.
 * Every process asks once at start, before it writes anything else.
 *
 * Why the money path needs it: a purchase still `created` in Redis may have been moved to
 * `confirming` — and confirmed — in the data that was lost. Such a record is probed with
 * `retry` before any confirm (see the purchase lifecycle), and a `transaction_not_found` only
 * counts once any confirm sent before the loss can no longer be in flight.
 */
/**
 * Where the last seen server identity is kept. In a Redis Cluster it is the identity of the
 * master holding the purchase records: the key carries their hash tag, `{purchases}`.
 */
export function dataLossKey(prefix: string): string {
  return `${keyPrefix(prefix)}redis:{purchases}:identity`;
}

export class RedisDataLossWatch {
  private warned = false;

  /**
   * @param redis a command connection.
   * @param key where the last seen server identity is kept.
   */
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Writes made before the returned moment may have been lost (null: none ever noticed): a
   * record created before it may already have been confirmed in the lost data. Asked afresh on
   * every call (two round trips): a job that runs right after Redis came back must not act on a
   * stale answer, and it is asked once per confirm, never on the hop path.
   */
  async writesLostBefore(): Promise<Date | null> {
    let info: string;
    try {
      // A Cluster answers INFO from any node: ask the one that holds the key (and the records).
      const server = isCluster(this.redis) ? masterOfSlot(this.redis, hashSlot(this.key)) : this.redis;
      info = await server.info('server');
    } catch (error) {
      // A managed Redis that refuses INFO cannot be watched: say so once and rely on its
      // durability (checked at start). A connection error is thrown: the job tries again.
      if (!/unknown command|NOPERM|no permissions/i.test((error as Error).message)) throw error;
      if (!this.warned) log.warn('Redis refuses INFO: data loss cannot be detected', { error });
      this.warned = true;
      return null;
    }
    const runId = /^run_id:(\S+)/m.exec(info)?.[1];
    if (!runId) return null;
    const [seenRunId, seenSince] = await this.redis.hmget(this.key, 'runId', 'since');
    if (seenRunId === runId) return seenSince ? new Date(seenSince) : null;
    if (seenRunId === null) {
      // A first start, or Redis restarted empty: nothing that exists now was written before it,
      // so nothing can have been confirmed in lost data. Every process asks at start, so the key
      // is written before any record and any snapshot that holds records holds it too.
      await this.redis.hset(this.key, { runId, since: '' });
      return null;
    }
    // Another server identity (a restart from older data, or a failover): writes may be lost.
    const since = this.clock().toISOString();
    await this.redis.hset(this.key, { runId, since });
    return new Date(since);
  }
}
