import type { Redis } from 'ioredis';

/**
 * Notices that Redis came back with other data than it had: a restart (from an older RDB
 * snapshot, an `appendfsync everysec` file, or empty) or a failover to a lagging replica. Every
 * such event changes the server's `run_id`. The last `run_id` seen is kept in Redis itself with
 * the moment the change was first noticed, so every process sharing the server agrees on it.
 *
 * Why the money path needs it: a purchase still `created` in Redis may have been moved to
 * `confirming` — and confirmed — in the data that was lost. Such a record is probed with
 * `retry` before any confirm (see the purchase lifecycle), and a `transaction_not_found` only
 * counts once any confirm sent before the loss can no longer be in flight.
 */
export class RedisDataLossWatch {
  private lostBefore: Date | null = null;
  private checking: Promise<void> | null = null;

  /**
   * @param redis the command connection; the watch re-checks on each of its reconnects.
   * @param key where the last seen server identity is kept.
   */
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly clock: () => Date = () => new Date(),
  ) {
    redis.on('ready', () => {
      void this.check().catch(() => undefined);
    });
  }

  /**
   * Writes made before this moment may have been lost (null: no loss noticed yet). A record
   * created before it may already have been confirmed in the lost data.
   */
  lostWritesBefore(): Date | null {
    return this.lostBefore;
  }

  /** Compare the server's identity with the one kept in it; concurrent calls share one check. */
  check(): Promise<void> {
    this.checking ??= this.compare().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async compare(): Promise<void> {
    const info = await this.redis.info('server');
    const runId = /^run_id:(\S+)/m.exec(info)?.[1];
    if (!runId) return;
    const [seenRunId, seenSince] = await this.redis.hmget(this.key, 'runId', 'since');
    if (seenRunId === runId && seenSince) {
      // Another process (or this one, before a restart of ours) noticed it first.
      this.lostBefore = new Date(seenSince);
      return;
    }
    // A missing key is a first start or data lost with it: either way nothing older is trusted.
    const since = this.clock().toISOString();
    await this.redis.hset(this.key, { runId, since });
    this.lostBefore = new Date(since);
  }
}
