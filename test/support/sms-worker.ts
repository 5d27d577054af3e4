/**
 * A child process that runs only the outgoing-SMS worker (BullMQ + the HTTP SMS driver), for
 * tests that kill it with SIGKILL mid-send. Run with `node -r test/entrypoints/ts-require-hook.js`.
 * Settings from the environment: REDIS_URL, BULL_PREFIX, the messages' PostgreSQL schema
 * (TEST_DATABASE_URL, MESSAGES_SCHEMA), WEBHOOK_URL, and the stall detection (LOCK_MS,
 * STALLED_INTERVAL_MS, MAX_STALLED).
 */
import { HttpSmsSender } from '../../src/messaging/http/driver';
import { BullmqSmsQueue } from '../../src/messaging/queue/bullmq';
import { SqlMessageStore } from '../../src/messaging/store/sql';
import { openPostgres } from '../../src/records/database';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
};

async function main(): Promise<void> {
  const url = env('REDIS_URL');
  const db = await openPostgres({ url: env('TEST_DATABASE_URL'), schema: env('MESSAGES_SCHEMA'), max: 2 });
  const queue = new BullmqSmsQueue({
    connection: { url, maxRetriesPerRequest: null },
    prefix: env('BULL_PREFIX'),
    store: new SqlMessageStore(db),
    sender: new HttpSmsSender({ url: env('WEBHOOK_URL'), timeoutMs: 60_000 }),
    policy: { attempts: 5, baseDelayMs: 50, maxDelayMs: 200, maxRetryAfterMs: 1000 },
    stalls: {
      lockDurationMs: Number(env('LOCK_MS')),
      stalledIntervalMs: Number(env('STALLED_INTERVAL_MS')),
      maxStalledCount: Number(env('MAX_STALLED')),
    },
  });
  await queue.ready();
  process.stdout.write('sms worker ready\n');
}

void main();
