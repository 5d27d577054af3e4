import type { ConnectionOptions, RedisOptions } from 'bullmq';

/** The longest wait between two reconnect attempts of a job-queue connection. */
export const MAX_RECONNECT_DELAY_MS = 2000;

/**
 * BullMQ's own reconnect backoff grows to 20 s: after a Redis outage of ten seconds, purchase
 * and SMS workers would sit idle up to 20 s after Redis is back. Retry at most every 2 s.
 */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(attempt * 200, MAX_RECONNECT_DELAY_MS);
}

/**
 * Knows when the job queue's Redis clients will next try to reconnect. BullMQ's
 * `Worker.close()` never settles when it runs while a client waits to reconnect (ioredis then
 * cancels the retry and reports no end: taskforcesh/bullmq#4656), so a Redis blip just before
 * a shutdown would hang it. Waiting for the pending attempt first avoids that state.
 */
export class ReconnectWatch {
  private nextAttemptAt = 0;
  readonly connection: ConnectionOptions;

  constructor(connection: ConnectionOptions) {
    // A client instance reconnects on its own schedule, which we cannot see: leave it as is.
    if (!isPlainOptions(connection)) {
      this.connection = connection;
      return;
    }
    const delayOf = connection.retryStrategy ?? reconnectDelayMs;
    this.connection = {
      ...connection,
      retryStrategy: (attempt: number) => {
        const delay = delayOf(attempt);
        if (typeof delay === 'number') this.nextAttemptAt = Math.max(this.nextAttemptAt, Date.now() + delay);
        return delay;
      },
    };
  }

  /** Whether a client is waiting for its next reconnect attempt now (Redis is away). */
  get waiting(): boolean {
    return this.nextAttemptAt > Date.now();
  }

  /**
   * Resolves once no client is waiting to reconnect. While Redis stays down, every failed
   * attempt schedules another, so this waits for Redis (a shutdown is bounded by its deadline).
   */
  async settled(): Promise<void> {
    for (;;) {
      // Past its time the attempt has begun: the client has a socket again (or is ending).
      const wait = this.nextAttemptAt + 50 - Date.now();
      if (wait <= 0) return;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** Options BullMQ turns into ioredis clients, as opposed to a client handed in. */
function isPlainOptions(connection: ConnectionOptions): connection is RedisOptions {
  return typeof (connection as { duplicate?: unknown }).duplicate !== 'function';
}
