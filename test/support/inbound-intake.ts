/**
 * A child process that takes one inbound SMS through the real intake (Redis marker, BullMQ
 * inbound queue, no worker) and stops for ever at a step, for tests that kill it there with
 * SIGKILL. Run with `node -r test/entrypoints/ts-require-hook.js`. Settings from the environment:
 * REDIS_URL, PREFIX (the conversation store's keys), BULL_PREFIX, MESSAGE_ID, and STOP_AT:
 * `marked` (the marker is written, the message not queued yet: it stops in the PIN check, the
 * step between them) or `queued` (queued, not answered to the provider yet).
 */
import { Redis } from 'ioredis';
import { SmsIntake } from '../../src/sms/inbound/intake';
import { inboundSmsQueue } from '../../src/sms/inbound/queue';
import type { InboundSms } from '../../src/sms/inbound/types';
import { RedisSmsMoStore } from '../../src/sms/mo/store';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
};

const forever = () => new Promise<never>(() => undefined);

async function main(): Promise<void> {
  const url = env('REDIS_URL');
  const stopAt = env('STOP_AT');
  const store = new RedisSmsMoStore(new Redis(url), env('PREFIX'));
  const queue = inboundSmsQueue({
    connection: { url, maxRetriesPerRequest: null },
    prefix: env('BULL_PREFIX'),
  });
  const sms: InboundSms = {
    provider: 'africastalking',
    messageId: env('MESSAGE_ID'),
    from: '+26771234567',
    to: '12345',
    text: 'BAL',
    receivedAt: new Date().toISOString(),
  };
  const intake = new SmsIntake(store, queue, {
    screen: async (received) => ({
      sms: received,
      // Called once the marker is written and before the message is queued.
      checked: async () => {
        if (stopAt !== 'marked') return received;
        process.stdout.write('marked\n');
        return forever();
      },
    }),
  });
  await intake.accept(sms);
  process.stdout.write('queued\n');
  await forever();
}

void main();
