import type { ConnectionOptions } from 'bullmq';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { reportRedisError } from './errors';

/** A command that has not answered in this long fails (the hop answers, the job retries). */
export const REDIS_COMMAND_TIMEOUT_MS = 2000;

/**
 * Where Redis is: `url` is the server, or with `cluster` one node of a Redis Cluster (the
 * others are discovered from it; its credentials and TLS apply to every node).
 */
export interface RedisTarget {
  url: string;
  cluster: boolean;
}

/** The server options a URL carries (credentials, TLS, database), for a Cluster's nodes. */
function nodeOptions(url: string): { host: string; port: number; options: RedisOptions } {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    options: {
      ...(parsed.username && { username: decodeURIComponent(parsed.username) }),
      ...(parsed.password && { password: decodeURIComponent(parsed.password) }),
      ...(parsed.protocol === 'rediss:' && { tls: {} }),
    },
  };
}

/**
 * An ioredis Cluster client seeded with one node. It speaks the same commands as a single
 * server's client (keys are routed by slot, scripts by their first key), so the stores take it
 * as a `Redis`: every multi-key script keeps its keys in one slot (`ScriptSet` refuses others).
 */
function clusterClient(url: string, options: RedisOptions): Redis {
  const seed = nodeOptions(url);
  const cluster = new Cluster([{ host: seed.host, port: seed.port }], {
    redisOptions: { ...seed.options, ...options },
    enableAutoPipelining: true,
    // Reconnect at least every 2 s, as the single-server clients do (see reconnect-watch.ts).
    clusterRetryStrategy: (attempt: number) => Math.min(attempt * 200, 2000),
  });
  return cluster as unknown as Redis;
}

/**
 * The shared command connection of a process (sessions, purchase records, notifications,
 * outbox). Commands issued in the same tick (a hop's, a job's) share one write to the socket.
 * With Redis down a hop must fail fast (a polite END within the hop budget), not queue for
 * minutes: one attempt per command, bounded in time, and errors logged, not thrown globally.
 */
export function commandConnection(url: string, options: { cluster?: boolean } = {}): Redis {
  const settings = { maxRetriesPerRequest: 1, commandTimeout: REDIS_COMMAND_TIMEOUT_MS };
  const redis = options.cluster
    ? clusterClient(url, settings)
    : new Redis(url, { enableAutoPipelining: true, ...settings });
  redis.on('error', reportRedisError);
  return redis;
}

/**
 * Connection options for BullMQ, which opens connections of its own (workers block) and
 * needs `maxRetriesPerRequest: null`. For a Cluster it is a client instance BullMQ shares (and
 * duplicates for blocking): its owner closes it.
 */
export function bullConnectionOptions(url: string, options: { cluster?: boolean } = {}): ConnectionOptions {
  if (!options.cluster) return { url, maxRetriesPerRequest: null };
  const cluster = clusterClient(url, { maxRetriesPerRequest: null });
  cluster.on('error', reportRedisError);
  return cluster as unknown as Cluster;
}

/**
 * BullMQ's key prefix. In a Cluster every key of one queue must share a slot (its scripts
 * touch several), so the prefix is a hash tag there: `{gw-bull}`.
 */
export function bullPrefix(prefix: string, cluster: boolean): string {
  return cluster ? `{${prefix}-bull}` : `${prefix}-bull`;
}

/** Whether `client` is a Redis Cluster client (typed as `Redis` by the stores). */
export function isCluster(client: Redis): boolean {
  return (client as unknown as Cluster).isCluster === true;
}

/** The master nodes to ask about server-wide things (INFO, CONFIG): one for a single server. */
export function servers(client: Redis): Redis[] {
  return isCluster(client) ? (client as unknown as Cluster).nodes('master') : [client];
}

/** The master serving `slot` of a Cluster; throws while the slot map is not known yet. */
export function masterOfSlot(client: Redis, slot: number): Redis {
  const cluster = client as unknown as Cluster;
  const [address] = cluster.slots[slot] ?? [];
  const node = cluster
    .nodes('master')
    .find((candidate) => `${candidate.options.host}:${candidate.options.port}` === address);
  if (!node) throw new Error(`no Redis Cluster master known for slot ${slot} yet`);
  return node;
}

/**
 * Resolves once a Cluster client knows its nodes and slots (a single server's client queues
 * commands until it connects, so it needs no wait): start-up checks ask every master.
 */
export async function clusterReady(client: Redis): Promise<void> {
  if (!isCluster(client) || client.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    client.once('ready', () => resolve());
    client.once('end', () => reject(new Error('Redis Cluster connection ended before it was ready')));
  });
}
