import type { Redis } from 'ioredis';
import { servers } from './connection';

/**
 * How the money path makes sure the `created → confirming` write survives a Redis crash before
 * a confirm is sent:
 * - `aof`: the server appends every write to its AOF and fsyncs it before answering
 *   (`appendonly yes`, `appendfsync always`); checked at start.
 * - `wait`: after that write the gateway waits (`WAIT`) until replicas hold it; a failover to a
 *   replica then keeps it. Checked at start (enough replicas connected) and on every confirm.
 * - `none`: no guarantee (development, tests, a Redis without persistence). Refused in production.
 */
export type RedisDurability = 'aof' | 'wait' | 'none';

/** Redis is not durable enough for the chosen mode: one line for the operator. */
export class DurabilityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DurabilityError';
  }
}

async function configValue(redis: Redis, name: string): Promise<string | undefined> {
  const reply = (await redis.call('CONFIG', 'GET', name)) as string[];
  return reply[1];
}

/** `appendonly yes` and `appendfsync always` on one server. */
async function checkAof(redis: Redis): Promise<void> {
  let appendonly: string | undefined;
  let appendfsync: string | undefined;
  try {
    appendonly = await configValue(redis, 'appendonly');
    appendfsync = await configValue(redis, 'appendfsync');
  } catch (error) {
    throw new DurabilityError(
      `cannot read Redis persistence settings (CONFIG GET: ${(error as Error).message}); ` +
        'verify appendonly yes + appendfsync always and set REDIS_DURABILITY=wait, or allow CONFIG GET',
    );
  }
  if (appendonly !== 'yes' || appendfsync !== 'always')
    throw new DurabilityError(
      `Redis may lose the write that precedes a confirm (appendonly=${appendonly ?? '?'}, ` +
        `appendfsync=${appendfsync ?? '?'}): set appendonly yes and appendfsync always, ` +
        'or REDIS_DURABILITY=wait with a replica',
    );
}

/** Checks at start that Redis provides what `mode` promises; throws DurabilityError otherwise. */
export async function checkDurability(
  redis: Redis,
  mode: RedisDurability,
  options: { replicas: number } = { replicas: 1 },
): Promise<void> {
  if (mode === 'none') return;
  if (mode === 'aof') {
    // Every master of a Cluster holds part of the data: each must keep it.
    const masters = servers(redis);
    if (masters.length === 0)
      throw new DurabilityError('no Redis Cluster master known: cannot check persistence');
    for (const server of masters) await checkAof(server);
    return;
  }
  const info = await redis.info('replication');
  const connected = Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
  if (connected < options.replicas)
    throw new DurabilityError(
      `REDIS_DURABILITY=wait needs ${options.replicas} connected replica(s); Redis has ${connected}`,
    );
}

/**
 * `WAIT` for `replicas` to acknowledge this connection's writes so far; true when they did within
 * `timeoutMs`. Used right after the compare-and-set that precedes a confirm.
 */
export async function awaitReplicas(redis: Redis, replicas: number, timeoutMs: number): Promise<boolean> {
  const acknowledged = (await redis.call('WAIT', String(replicas), String(timeoutMs))) as number;
  return acknowledged >= replicas;
}
