import net from 'node:net';
import { Queue } from 'bullmq';
import { watchQueues } from '../../src/gateway/readiness';
import type { BacklogWatch } from '../../src/queue';
import { Metrics } from '../../src/observability/metrics';
import { until } from '../support/wait';
import { TEST_REDIS_URL, testRedis } from '../support/redis';

/**
 * `queue_jobs{queue,state}` and `queue_oldest_waiting_seconds{queue}` read from real BullMQ
 * queues in Redis with no worker taking their jobs: the backlog an alert and the workers'
 * autoscaler act on.
 */

const redis = testRedis('queue-watch');
const prefix = `${redis.prefix}-bull`;
let purchases: Queue;
let watch: BacklogWatch;

beforeAll(() => {
  purchases = new Queue('purchases', { connection: { url: TEST_REDIS_URL }, prefix });
  watch = watchQueues(
    { connection: { url: TEST_REDIS_URL, maxRetriesPerRequest: null }, prefix },
    { payments: true },
  );
});
afterAll(async () => {
  await watch.close();
  await purchases.close();
  await redis.cleanup();
});

it('counts waiting and delayed jobs per queue and ages the oldest waiting one', async () => {
  const metrics = new Metrics({ defaultMetrics: false });
  metrics.watchQueues(() => watch.read());
  // A scrape waits at most 1.5 s for the queues: the first one, on a loaded machine, may not get them.
  const scrape = (holding: string) =>
    until(`a scrape holding ${holding}`, async () => {
      const text = await metrics.registry.metrics();
      return text.includes(holding) ? text : null;
    });
  const empty = await scrape('queue_jobs{queue="purchases",state="waiting"} 0');
  expect(empty).toContain('queue_oldest_waiting_seconds{queue="payments"} 0');

  // Two jobs waiting since a minute and since now, one delayed (a timer, not a backlog).
  await purchases.add('confirm', {}, { timestamp: Date.now() - 60_000 });
  await purchases.add('confirm', {});
  await purchases.add('reconcile', {}, { delay: 600_000 });

  const [state] = (await watch.read()).filter((q) => q.queue === 'purchases');
  expect(state.counts).toMatchObject({ waiting: 2, delayed: 1, active: 0, failed: 0 });
  expect(state.oldestWaitingSeconds).toBeGreaterThanOrEqual(60);
  expect(state.oldestWaitingSeconds).toBeLessThan(120);
  const text = await scrape('queue_jobs{queue="purchases",state="waiting"} 2');
  expect(text).toContain('queue_jobs{queue="purchases",state="delayed"} 1');
  expect(text).toMatch(/queue_oldest_waiting_seconds\{queue="purchases"\} (6\d|[7-9]\d|1[01]\d)(\.\d+)?\n/);
  expect(text).toContain('queue_jobs{queue="sms-notify",state="waiting"} 0');
});

it('a Redis that does not answer leaves the scrape answering, without queue values', async () => {
  // A server that accepts connections and never replies: a hung Redis.
  const sockets = new Set<net.Socket>();
  const hung = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  const { port } = hung.address() as net.AddressInfo;
  const unanswered = watchQueues(
    { connection: { url: `redis://127.0.0.1:${port}`, maxRetriesPerRequest: null }, prefix },
    { payments: false },
  );
  try {
    const metrics = new Metrics({ defaultMetrics: false });
    metrics.watchQueues(() => unanswered.read());
    const started = Date.now();
    const text = await metrics.registry.metrics();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(text).toContain('# TYPE queue_jobs gauge');
    expect(text).not.toContain('queue_jobs{');
  } finally {
    for (const socket of sockets) socket.destroy();
    await unanswered.close();
    await new Promise((resolve) => hung.close(resolve));
  }
});
