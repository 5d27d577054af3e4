import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { BullJobQueue, jobIdOf } from '../../src/queue';
import { deleteKeysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';

/**
 * A lifecycle job that failed for good (its handler threw on every attempt) must not block the
 * purchase forever: enqueueing the same job again — as `resumeStuck` does on the next start —
 * runs it again instead of being a no-op on the failed job's id.
 */

const prefix = testPrefix('bullq');
let queue: BullJobQueue;

afterAll(async () => {
  await queue.obliterate();
  await queue.close();
  const redis = new Redis(TEST_REDIS_URL);
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
});

it('the sweep runs a job again after it failed for good', async () => {
  queue = new BullJobQueue({ connection: { url: TEST_REDIS_URL }, prefix, maxAttempts: 1, retryDelayMs: 10 });
  const runs: string[] = [];
  let failNext = true;
  let done!: () => void;
  const secondRun = new Promise<void>((resolve) => (done = resolve));
  await queue.start(async (job) => {
    runs.push(job.purchaseId);
    if (failNext) {
      failNext = false;
      throw new Error('redis blip while writing the outcome');
    }
    done();
  });

  const job = { kind: 'reconcile' as const, purchaseId: 'p-stuck', attempt: 0 };
  await queue.enqueue(job);
  // Wait until BullMQ has moved the job to the failed set.
  const inspect = new Queue('purchases', { connection: { url: TEST_REDIS_URL }, prefix });
  while ((await inspect.getJobState(jobIdOf(job))) !== 'failed') await new Promise((r) => setTimeout(r, 20));
  await inspect.close();
  await queue.enqueue(job); // a plain add leaves the failed job in place (the hop path skips the check)
  await queue.enqueue(job, 0, { replaceFailed: true }); // the sweep replaces it
  await secondRun;
  expect(runs).toEqual(['p-stuck', 'p-stuck']);
});
