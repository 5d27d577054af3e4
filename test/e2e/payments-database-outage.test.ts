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
      ...records.env,
      DATABASE_URL: proxy.urlFor(TEST_DATABASE_URL),
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

// A failed test leaves the records reachable for the next one.
afterEach(() => proxy.restore());

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

const manual = TEST_PAYERS.find((p) => p.behaviour === 'manual')!.msisdn;
const spoolKey = () => `${prefix}:payments:spool`;

async function spooled(): Promise<number> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    return await redis.hlen(spoolKey());
  } finally {
    redis.disconnect();
  }
}

/** The newest prompt on the manual payer's handset, once there is one newer than `after`. */
async function promptAfter(after: string | null): Promise<{ id: string }> {
  return until('a payment prompt on the handset', async () => {
    const { prompts } = (
      await axios.get(`${gateway.paymentSandbox!.url}/sandbox/prompts`, { params: { msisdn: manual } })
    ).data as { prompts: { id: string }[] };
    const newest = prompts.at(-1);
    return newest && newest.id !== after ? newest : null;
  });
}

async function buyAsManualPayer(session: string) {
  const replies = await dialogue(gateway, session, manual, ['1', TEST_METERS.active, '1', '100', '1']);
  expect(replies.at(-1)!.screen).toMatch(/Approve/);
  const [purchase] = await gateway.desk.listByMsisdn(manual);
  return purchase;
}

async function soldOnce(purchaseId: string) {
  const sold = await until(
    'the purchase sold',
    async () => {
      const record = await gateway.desk.get(purchaseId);
      return record?.state === 'succeeded' ? record : null;
    },
    { timeoutMs: 30_000 },
  );
  const debits = (await ledger(gateway.purchaseServiceUrl)).filter(
    (row) => row.external_reference === sold.externalReference && row.debited_minor > 0,
  );
  expect(debits).toHaveLength(1);
  await until('the token SMS', async () => {
    const messages = await waitForSms(gateway, manual);
    return messages.find(
      (m) => m.purchaseId === purchaseId && /\d{4} \d{4} \d{4} \d{4} \d{4}/.test(m.message),
    );
  });
  await until('the spool emptied', async () => (await spooled()) === 0);
  expect(await paymentDiscrepancies(gateway.records)).toEqual([]);
}

let lastPrompt: string | null = null;

it('a callback that comes while the records are away is acknowledged, spooled, and applied once they are back', async () => {
  const purchase = await buyAsManualPayer(`pgout-cb-${process.pid}`);
  const prompt = await promptAfter(lastPrompt);
  lastPrompt = prompt.id;
  // The push's answer is written: the payment knows its CheckoutRequestID.
  await until('the payment pending', async () => {
    const payment = await gateway.payments!.store.getByPurchase(purchase.id);
    return payment?.state === 'pending' && payment.providerReference !== null;
  });

  proxy.cut();
  await axios.post(`${gateway.paymentSandbox!.url}/sandbox/prompts/${prompt.id}/approve`);
  // Daraja sends an STK callback once: it was answered 200 because it was kept.
  const delivery = await until('the callback delivered', async () => {
    const { callbacks } = (await axios.get(`${gateway.paymentSandbox!.url}/sandbox/callbacks`)).data as {
      callbacks: { kind: string; id: string; status: number | null }[];
    };
    return callbacks.find((c) => c.kind === 'payment' && c.id === prompt.id) ?? null;
  });
  expect(delivery.status).toBe(200);
  expect(await spooled()).toBe(1);
  // /healthz says why: the records do not answer (still 200: nothing to restart for it).
  const health = await axios.get(`${gateway.url}/healthz`, { validateStatus: () => true });
  expect(health.status).toBe(200);
  expect(health.data).toMatchObject({ status: 'degraded', problems: { records: expect.any(String) } });
  proxy.restore();

  await soldOnce(purchase.id);
}, 120_000);

it('a push answer and its callback that came while the records were away are both kept: the payment learns its key and is sold', async () => {
  // The push is carried out at once, its answer comes 3 s later: the records are gone by then.
  await axios.post(`${gateway.paymentSandbox!.url}/sandbox/faults`, {
    operation: 'collect',
    fault: 'slow',
    delayMs: 3000,
  });
  const purchase = await buyAsManualPayer(`pgout-answer-${process.pid}`);
  const prompt = await promptAfter(lastPrompt);
  lastPrompt = prompt.id;
  proxy.cut();
  await until('the push answer spooled', async () => (await spooled()) === 1, { timeoutMs: 20_000 });
  await axios.post(`${gateway.paymentSandbox!.url}/sandbox/prompts/${prompt.id}/approve`);
  await until('the callback spooled too', async () => (await spooled()) === 2, { timeoutMs: 20_000 });
  proxy.restore();

  await soldOnce(purchase.id);
  const payment = await gateway.payments!.store.getByPurchase(purchase.id);
  expect(payment).toMatchObject({ state: 'successful', requestAttempts: 1 });
  expect(payment!.providerReference).not.toBeNull();
}, 120_000);
