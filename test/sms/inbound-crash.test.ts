import { spawn } from 'node:child_process';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { keyPart } from '../../src/redis/keys';
import { SmsIntake } from '../../src/sms/inbound/intake';
import { inboundSmsQueue, INBOUND_SMS_QUEUE_NAME, type InboundSmsQueue } from '../../src/sms/inbound/queue';
import type { InboundSms } from '../../src/sms/inbound/types';
import { RedisSmsMoStore } from '../../src/sms/mo/store';
import { deleteKeysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';
import { until } from '../support/wait';

/**
 * A buyer's message must survive an intake killed between its duplicate marker and its job. The
 * defect: the marker was written, the process died before the job was added, and the provider's
 * retry (its request got no answer) was dropped as a duplicate — the message never answered.
 * Here the intake is a real process killed with SIGKILL at that step (and, for contrast, once
 * the job is added), then the provider's retry reaches a live intake with a worker.
 */

const ROOT = path.resolve(__dirname, '../..');
const HOOK = path.join(ROOT, 'test/entrypoints/ts-require-hook.js');
const INTAKE = path.join(ROOT, 'test/support/inbound-intake.ts');

/** Runs the intake in a child process until it says it reached `stopAt`, then kills it with SIGKILL. */
async function killAt(stopAt: 'marked' | 'queued', env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, ['-r', HOOK, INTAKE], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'error', STOP_AT: stopAt, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let said = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes(`${stopAt}\n`)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the intake exited (${code}) before ${stopAt}`)));
  });
  child.kill('SIGKILL');
  await exited;
}

describe.each(['marked', 'queued'] as const)('an intake killed once the message is %s', (stopAt) => {
  const prefix = testPrefix(`inbound-crash-${stopAt}`);
  const bullPrefix = `${prefix}-bull`;
  const redis = new Redis(TEST_REDIS_URL);
  let queue: InboundSmsQueue;

  afterAll(async () => {
    await queue?.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
  });

  it("takes the provider's retry and answers the message exactly once", async () => {
    const messageId = `ATXid_crash_${stopAt}_${Date.now()}`;
    await killAt(stopAt, {
      REDIS_URL: TEST_REDIS_URL,
      PREFIX: prefix,
      BULL_PREFIX: bullPrefix,
      MESSAGE_ID: messageId,
    });

    // The provider's retry reaches a live intake, whose process also works the queue.
    queue = inboundSmsQueue({
      connection: { url: TEST_REDIS_URL, maxRetriesPerRequest: null },
      prefix: bullPrefix,
    });
    const answered: string[] = [];
    await queue.start(async (job) => {
      answered.push(job.key);
    });
    const intake = new SmsIntake(new RedisSmsMoStore(redis, prefix), queue);
    const sms: InboundSms = {
      provider: 'africastalking',
      messageId,
      from: '+26771234567',
      to: '12345',
      text: 'BAL',
      receivedAt: new Date().toISOString(),
    };
    // Killed before its job: the retry queues it. Killed after: the job the dead intake added is the one.
    expect(await intake.accept(sms)).toBe(stopAt === 'marked' ? 'queued' : 'duplicate');
    const key = `africastalking:${messageId}`;
    const inspect = new Queue(INBOUND_SMS_QUEUE_NAME, {
      connection: { url: TEST_REDIS_URL },
      prefix: bullPrefix,
    });
    try {
      const job = await until('the message answered', async () => {
        const found = await inspect.getJob(keyPart(key));
        return found && (await found.getState()) === 'completed' ? found : null;
      });
      expect(job.attemptsMade).toBe(1);
      // Answered, and a later re-delivery is a duplicate: the completed job keeps its id.
      expect(await intake.accept(sms)).toBe('duplicate');
      expect(await inspect.getJobCounts('waiting', 'delayed', 'active', 'completed', 'failed')).toEqual({
        waiting: 0,
        delayed: 0,
        active: 0,
        completed: 1,
        failed: 0,
      });
      expect(answered).toEqual([key]);
    } finally {
      await inspect.close();
    }
  });
});
