import { Redis } from 'ioredis';

/** A start-up dependency that is not there: the entry point prints the message as one line and exits 1. */
export class PreflightError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PreflightError';
  }
}

/** `redis://user:pass@host:6379/2` → `redis://host:6379/2`: never print a password. */
export function redisUrlForDisplay(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(unparseable REDIS_URL)';
  }
}

/**
 * Connect to REDIS_URL once and PING it, with no retries, within `timeoutMs`. Without this a
 * wrong or dead REDIS_URL makes the gateway and the worker retry forever, printing a stack trace
 * per attempt, instead of stopping with one clear line.
 */
export async function checkRedisReachable(url: string, timeoutMs = 5000): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    // A probe: do not keep the process alive for ioredis's default 2 s after giving up.
    disconnectTimeout: 100,
  });
  let lastError: Error | undefined;
  redis.on('error', (err: Error) => {
    lastError = err;
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([redis.connect().then(() => redis.ping()), timedOut]);
  } catch (err) {
    // The socket's own error (ECONNREFUSED, ENOTFOUND, NOAUTH) says more than "Connection is closed".
    const reason = lastError?.message ?? (err as Error).message;
    throw new PreflightError(`cannot reach Redis at ${redisUrlForDisplay(url)} (REDIS_URL): ${reason}`);
  } finally {
    clearTimeout(timer);
    redis.disconnect();
  }
}
