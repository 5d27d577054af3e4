import { SqlPaymentStore } from '../../src/payments/store/sql';
import { COLLECTED_STATES } from '../../src/payments/store/types';
import { MOMO_DEFAULTS, startPaymentSandbox, TEST_PAYERS } from '../../src/payments/sandbox';
import type { RunningPaymentSandbox } from '../../src/payments/sandbox';
import type { Database } from '../../src/records/database';
import { openRecords } from '../../src/records/open';
import { ledger } from '../e2e/harness';
import { NodeProcess } from '../support/node-process';
import { until } from '../support/wait';
import { FaultTable, judge, phoneFor, World } from './harness';

/**
 * The buyer pays first (#30): the gateway killed with SIGKILL right after the Buy, while the
 * payment prompt is on its way to the provider (the collect held by the payment sandbox), then
 * started again on the same records (PostgreSQL). The purchase and its payment row were written in
 * one transaction, so the restarted gateway finds both: it asks the provider about the payment
 * by our reference (MoMo's X-Reference-Id) and never sends a second request. Judged from the
 * records, the payment sandbox's ledger and the SMS provider: never a confirm without a
 * successful payment, one payment request per intent, paid → token, not paid → SMS.
 */

const CALLBACK_SECRET = 'faults-payment-callback-key';
/** The provider holds each collect's answer this long: the kill lands while it is in flight. */
const COLLECT_HELD_MS = 4000;
/** A `requested` row is found lost 35 s after its collect (timeout + margin); the stalled SMS job ~60 s. */
const SETTLED = { timeoutMs: 150_000 };

const world = new World();
const table = new FaultTable(__filename);
let payments: RunningPaymentSandbox;
let gateway: NodeProcess;
let db: Database;

beforeAll(async () => {
  await world.start();
  payments = await startPaymentSandbox({ port: 0, silent: true, approveDelayMs: 300 });
  db = await openRecords({
    url: world.records.env.DATABASE_URL,
    schema: world.records.env.DATABASE_SCHEMA,
    dataDir: '',
  });
});
afterAll(async () => {
  table.write();
  await gateway?.stop();
  await payments?.close();
  await db?.close();
  await world.close();
});

interface SandboxPayment {
  id: string;
  msisdn: string;
  status: string;
}

async function sandboxPayments(): Promise<SandboxPayment[]> {
  const answer = await fetch(`${payments.url}/sandbox/payments`);
  return ((await answer.json()) as { payments: SandboxPayment[] }).payments;
}

/** An inbound SMS from `phone` (Africa's Talking's form). */
async function sms(phone: string, text: string, id: string): Promise<void> {
  const answer = await fetch(`${gateway.url}/sms/africastalking`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ id, from: `+${phone}`, to: '12345', text, date: 'now' }),
  });
  if (!answer.ok) throw new Error(`inbound SMS answered ${answer.status}`);
}

it('the gateway SIGKILLed right after the Buy, the collect in flight, then restarted', async () => {
  const env = world.gatewayEnv({
    PAYMENT_PROVIDER: 'momo',
    MOMO_BASE_URL: payments.url,
    MOMO_API_USER: MOMO_DEFAULTS.apiUserId,
    MOMO_API_KEY: MOMO_DEFAULTS.apiKey,
    MOMO_SUBSCRIPTION_KEY: MOMO_DEFAULTS.collectionKey,
    MOMO_TARGET_ENVIRONMENT: MOMO_DEFAULTS.targetEnvironment,
    MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: MOMO_DEFAULTS.disbursementKey,
    PAYMENT_CURRENCY: 'BWP',
    PAYMENT_CALLBACK_SECRET: CALLBACK_SECRET,
  });
  gateway = new NodeProcess('src/main.ts', env);
  // The provider calls this gateway back: its URL, chosen before it starts (kept on restart).
  env.PAYMENT_CALLBACK_BASE_URL = await gateway.reserveUrl();
  await gateway.start();

  // Two payers who approve (any unlisted number) and one who declines.
  const decliner = TEST_PAYERS.find((p) => p.behaviour === 'decline')!.msisdn;
  const phones = [phoneFor(), phoneFor(), decliner];
  const response = await fetch(`${payments.url}/sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      operation: 'collect',
      fault: 'slow',
      count: phones.length,
      delayMs: COLLECT_HELD_MS,
    }),
  });
  expect(response.status).toBe(201);

  // Quote by SMS, then YES: the Buy.
  for (const [i, phone] of phones.entries()) {
    await sms(phone, `ELEC ${world.meter()} 100`, `pf-${process.pid}-q${i}`);
  }
  const codes = await until(
    'every quote SMS',
    () => {
      const found = phones.map(
        (phone) =>
          world.sink
            .acceptedTo(phone)
            .map((hit) => /YES (\d{4})/.exec(hit.message)?.[1])
            .find(Boolean) ?? null,
      );
      return found.every(Boolean) ? (found as string[]) : null;
    },
    { timeoutMs: 30_000 },
  );
  for (const [i, phone] of phones.entries()) await sms(phone, `YES ${codes[i]}`, `pf-${process.pid}-y${i}`);
  // Right after the Buy: every purchase written (with its payment row), the collects held.
  await until('every purchase written', async () => {
    for (const phone of phones) if ((await world.purchasesOf(phone)).length === 0) return false;
    return true;
  });
  await gateway.kill();

  const store = new SqlPaymentStore({ db });
  for (const phone of phones) {
    const [purchase] = await world.purchasesOf(phone);
    // Written together: no purchase without its payment row, even killed at once.
    expect(await store.getByPurchase(purchase.id)).not.toBeNull();
  }

  await gateway.start();
  const backAt = Date.now();
  table.add(
    await judge(
      world,
      'payment: gateway SIGKILL right after the Buy (collect in flight)',
      phones,
      () => backAt,
      {
        ...SETTLED,
        note: 'MoMo: the lost collect asked about by our reference, never sent twice',
      },
    ),
  );

  const rows = await ledger(world.sandbox.url);
  const asked = await sandboxPayments();
  for (const phone of phones) {
    const [purchase] = await world.purchasesOf(phone);
    const payment = (await store.getByPurchase(purchase.id))!;
    const debited = rows.some(
      (row) => row.external_reference === purchase.externalReference && row.debited_minor > 0,
    );
    // Never a confirm without a successful payment.
    if (purchase.confirmAttempts > 0 || debited) expect(COLLECTED_STATES).toContain(payment.state);
    // One payment request per intent at the provider.
    expect(asked.filter((p) => p.msisdn === phone)).toHaveLength(1);
    if (phone === decliner) {
      expect(purchase).toMatchObject({
        state: 'failed',
        confirmAttempts: 0,
        failure: { code: 'payment_failed' },
      });
      expect(debited).toBe(false);
    } else {
      expect(purchase.state).toBe('succeeded');
      expect(payment.state).toBe('successful');
    }
  }
});
