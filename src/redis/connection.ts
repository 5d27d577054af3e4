import type { ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { reportRedisError } from './errors';

/** A command that has not answered in this long fails (the hop answers, the job retries). */
export const REDIS_COMMAND_TIMEOUT_MS = 2000;

/**
 * The shared command connection of a process (sessions, purchase records, notifications,
 * outbox). Commands issued in the same tick (a hop's, a job's) share one write to the socket.
 * With Redis down a hop must fail fast (a polite END within the hop budget), not queue for
 * minutes: one attempt per command, bounded in time, and errors logged, not thrown globally.
 */
export function commandConnection(url: string): Redis {
  const redis = new Redis(url, {
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  });
  redis.on('error', reportRedisError);
  return redis;
}

/**
 * Connection options for BullMQ, which opens connections of its own (workers block) and
 * needs `maxRetriesPerRequest: null`.
 */
export function bullConnectionOptions(url: string): ConnectionOptions {
  return { url, maxRetriesPerRequest: null };
}
