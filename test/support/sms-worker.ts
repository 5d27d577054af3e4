/**
 * A child process that runs only the outcome-SMS worker (BullMQ + the HTTP SMS driver), for
 * tests that kill it with SIGKILL mid-send. Run with `node -r test/entrypoints/ts-require-hook.js`.
 * Settings from the environment: REDIS_URL, BULL_PREFIX, KEY_PREFIX, WEBHOOK_URL, and the stall
 * detection (LOCK_MS, STALLED_INTERVAL_MS, MAX_STALLED).
 */
import { Redis } from 'ioredis';
import { HttpSmsSender } from '../../src/channels/sms/outbound/http/driver';
import { BullmqSmsQueue } from '../../src/purchases/notify/bullmq-queue';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
};

const url = env('REDIS_URL');
const queue = new BullmqSmsQueue({
  redis: new Redis(url),
  connection: { url, maxRetriesPerRequest: null },
  prefix: env('BULL_PREFIX'),
  keyPrefix: env('KEY_PREFIX'),
  sender: new HttpSmsSender({ url: env('WEBHOOK_URL'), timeoutMs: 60_000 }),
  policy: { attempts: 5, baseDelayMs: 50, maxDelayMs: 200, maxRetryAfterMs: 1000 },
  stalls: {
    lockDurationMs: Number(env('LOCK_MS')),
    stalledIntervalMs: Number(env('STALLED_INTERVAL_MS')),
    maxStalledCount: Number(env('MAX_STALLED')),
  },
});
void queue.ready().then(() => process.stdout.write('sms worker ready\n'));
