import { BullJobQueue, type PurchaseJob } from '../../src/queue';
import { OwnRedisServer } from '../support/redis-server';
import { until } from '../support/wait';

/**
 * Closing the lifecycle job queue (every shutdown does) must wait for a job in flight — a
 * confirm records its outcome — yet never hang: BullMQ's Worker.close() does not settle when
 * its blocking connection is waiting to reconnect (taskforcesh/bullmq#4656), which a Redis blip
 * just before the shutdown causes. Its own redis-server, as the test kills it.
 */

jest.setTimeout(30000);

const redis = new OwnRedisServer();

beforeAll(() => redis.start());
afterAll(() => redis.kill());

function queueOn(url: string): BullJobQueue {
  return new BullJobQueue({
    connection: { url, maxRetriesPerRequest: null },
    prefix: `close-${Date.now().toString(36)}`,
  });
}

const job: PurchaseJob = { kind: 'confirm', purchaseId: 'p-close', attempt: 0 };

it('waits for the job in flight before it closes', async () => {
  const queue = queueOn(redis.url);
  const events: string[] = [];
  let release!: () => void;
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  await queue.start(async () => {
    started();
    await new Promise<void>((resolve) => (release = resolve));
    events.push('job finished');
  });
  await queue.enqueue(job);
  await running;

  const closing = queue.close().then(() => events.push('closed'));
  setTimeout(() => release(), 300);
  await closing;
  expect(events).toEqual(['job finished', 'closed']);
});

it('closes when Redis went away and came back just before (bullmq#4656)', async () => {
  const queue = queueOn(redis.url);
  const ran: string[] = [];
  await queue.start(async (started) => {
    ran.push(started.purchaseId);
  });

  // The worker's blocking connection loses Redis and waits to reconnect: close() now would
  // park it for good. Redis comes back while the close waits, as in a rolling restart.
  await redis.kill();
  await until('the worker waiting to reconnect', () => queue.waitingToReconnect);
  const closing = queue.close();
  await redis.start();
  await expect(closing).resolves.toBeUndefined();
  expect(ran).toEqual([]);
});
