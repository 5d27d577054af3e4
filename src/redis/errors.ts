import type winston from 'winston';
import { componentLogger } from '../observability/logger';

const log = componentLogger('redis');

/** Connection errors repeat many times a second while Redis is down: log one per interval. */
const LOG_INTERVAL_MS = 10_000;
let lastLoggedAt = 0;

/**
 * The one place Redis connection trouble is logged, whichever client saw it (the shared
 * command connection, BullMQ's queues and workers): one JSON line per interval, never a
 * flood, never BullMQ's bare console output.
 */
export function reportRedisError(error: Error): void {
  const now = Date.now();
  if (now - lastLoggedAt < LOG_INTERVAL_MS) return;
  lastLoggedAt = now;
  log.error('redis connection error (sessions, purchases and SMS jobs wait for it)', {
    error: error.message,
  });
}

const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND']);

/** Errors that say Redis is unreachable, as opposed to a failing job or script. */
export function isRedisConnectionError(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return (
    (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) ||
    error.message === 'Connection is closed.' ||
    error.name === 'MaxRetriesPerRequestError'
  );
}

/** A BullMQ worker's 'error' listener: lost Redis goes to the shared report, the rest in full. */
export function workerErrorListener(workerLog: winston.Logger, message: string): (error: Error) => void {
  return (error) =>
    isRedisConnectionError(error) ? reportRedisError(error) : workerLog.error(message, { error });
}
