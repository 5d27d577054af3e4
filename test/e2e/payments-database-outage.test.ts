import axios from 'axios';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Gateway } from '../../src/gateway/app';
import { TEST_PAYERS } from '../../src/payments/sandbox';
import { paymentDiscrepancies } from '../../src/payments/store/checks';
import { TEST_METERS } from '../../src/sandbox';
import { TEST_DATABASE_URL, testRecordsEnv } from '../support/database';
import { TEST_REDIS_URL } from '../support/redis';
import { TcpProxy } from '../support/tcp-proxy';
import { until } from '../support/wait';
import { dialogue, ledger, startTestGateway, waitForSms } from './harness';

/**
 * The records go away under a paid purchase (PostgreSQL behind a proxy the test cuts: every
 * connection reset, every new one refused, as in a failover) while the gateway runs its jobs on
 * BullMQ. What was paid is sold once the records are back, with nobody's help.
 */

const payer = TEST_PAYERS.find((p) => p.behaviour === 'approve')!.msisdn;
const proxy = TcpProxy.forUrl(TEST_DATABASE_URL);
const records = testRecordsEnv('pgout');
const prefix = `pgout-${process.pid}-${Date.now()}`;
let gateway: Gateway;
let purchases: Queue;

beforeAll(async () => {
  await proxy.start();
  gateway = await startTestGateway(
    {
      DATABASE_URL: proxy.urlFor(TEST_DATABASE_URL),
      DATABASE_SCHEMA: records.env.DATABASE_SCHEMA,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      PURCHASE_SWEEP_INTERVAL_MS: '500',
      SPEND_DAY_MAX_COUNT: '100',
    },
    { paymentSandbox: { approveDelayMs: 50 }, paymentLifecycle: { pollBaseMs: 300, pollMaxMs: 600 } },
  );
  const { hostname, port, pathname } = new URL(TEST_REDIS_URL);
  purchases = new Queue('purchases', {
    connection: { host: hostname, port: Number(port), db: Number(pathname.slice(1) || 0) },
    prefix: `${prefix}-bull`,
  });
});

afterAll(async () => {
  proxy.restore();
  await purchases?.resume();
  await purchases?.close();
  await gateway?.close();
  await proxy.close();
  await records.drop();
  const redis = new Redis(TEST_REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

it('a paid purchase whose confirm job spent its attempts while the records were away is sold by the sweep', async () => {
  // The confirm job waits (the queue paused) until the records are gone, then fails for good.
  await purchases.pause();
  const replies = await dialogue(gateway, `pgout-${process.pid}`, payer, [
    '1',
    TEST_METERS.active,
    '1',
    '100',
    '1',
  ]);
  expect(replies.at(-1)!.screen).toMatch(/Approve/);
  const [purchase] = await gateway.desk.listByMsisdn(payer);
  const jobId = `confirm-${purchase.id}-0`;
  await until("the paid purchase's confirm job queued", async () => (await purchases.getJob(jobId)) ?? null);
  expect((await gateway.payments!.store.getByPurchase(purchase.id))?.state).toBe('successful');

  proxy.cut();
  await purchases.resume();
  await until(
    'the confirm job failed for good',
    async () => (await (await purchases.getJob(jobId))?.isFailed()) ?? false,
    { timeoutMs: 60_000 },
  );
  proxy.restore();

  const sold = await until(
    'the purchase sold',
    async () => {
      const record = await gateway.desk.get(purchase.id);
      return record?.state === 'succeeded' ? record : null;
    },
    { timeoutMs: 30_000 },
  );
  expect(sold.confirmAttempts).toBe(1);
  const [sms] = await waitForSms(gateway, payer);
  expect(sms.message).toMatch(/\d{4} \d{4} \d{4} \d{4} \d{4}/);
  const debits = (await ledger(gateway.purchaseServiceUrl)).filter(
    (row) => row.external_reference === purchase.externalReference && row.debited_minor > 0,
  );
  expect(debits).toHaveLength(1);
  expect(await paymentDiscrepancies(gateway.records)).toEqual([]);
  // Nothing else was asked of the payer: one payment for the one intent.
  const sandbox = (await axios.get(`${gateway.paymentSandbox!.url}/sandbox/payments`)).data as {
    payments: { msisdn: string }[];
  };
  expect(sandbox.payments.filter((p) => p.msisdn === payer)).toHaveLength(1);
}, 120_000);
