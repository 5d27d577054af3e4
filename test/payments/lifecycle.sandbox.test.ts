import type { PaymentLifecycle } from '../../src/payments/lifecycle/runner';
import type { RunningPaymentSandbox } from '../../src/payments/sandbox';
import { paymentDiscrepancies } from '../../src/payments/store/checks';
import type { SqlPaymentStore } from '../../src/payments/store/sql';
import type { SqlPurchaseStore } from '../../src/purchases/store';
import type { PurchaseIntent } from '../../src/purchases/types';
import type { TestDatabase } from '../support/database';
import { until } from '../support/wait';
import { intent, record } from '../purchases/fixtures';
import { startMpesaLifecycle, type MpesaLifecycleHarness } from './mpesa-lifecycle-harness';

/**
 * The payment lifecycle end to end over real HTTP: the M-Pesa adapter against the embedded
 * payment sandbox (its test payers), callbacks received by a real HTTP route, records in
 * PostgreSQL with the purchase store.
 */

let harness: MpesaLifecycleHarness;
let t: TestDatabase;
let sandbox: RunningPaymentSandbox;
let lifecycle: PaymentLifecycle;
let payments: SqlPaymentStore;
let purchases: SqlPurchaseStore;
const told = { paid: [] as string[], unpaid: [] as [string, string][], refunded: [] as string[] };

beforeAll(async () => {
  harness = await startMpesaLifecycle({
    schema: 'paysandbox',
    sandbox: { approveDelayMs: 50, refundDelayMs: 50, promptExpiryMs: 400 },
    settings: { windowMs: 1_000, marginMs: 300, pollBaseMs: 100, pollMaxMs: 200 },
    hooks: {
      onPaid: async (id) => void told.paid.push(id),
      onUnpaid: async (id, reason) => {
        told.unpaid.push([id, reason]);
        const p = (await purchases.get(id))!;
        await purchases.transition(id, ['created'], 'failed', p.version, {
          failure: { code: 'payment_failed', message: reason, charged: false },
        });
      },
      onRefunded: async (id) => void told.refunded.push(id),
    },
  });
  ({ t, sandbox, lifecycle, payments, purchases } = harness);
});

afterAll(() => harness.close());

async function buy(payer: string) {
  const p = record({
    intent: {
      ...intent({ requesterMsisdn: payer, amount: { currency: 'KES', minor: 10_000 } }),
      paymentRequired: true,
    } as PurchaseIntent,
  });
  const created = (await purchases.create(p)).record;
  return { purchase: created, payment: await lifecycle.requestPayment(created) };
}

const stateOf = async (purchaseId: string) => (await payments.getByPurchase(purchaseId))!.state;

async function sandboxPayment(msisdn: string) {
  const res = await fetch(`${sandbox.url}/sandbox/payments`);
  const body = (await res.json()) as {
    payments: { msisdn: string; status: string; refundedAmount: string }[];
  };
  return body.payments.find((p) => p.msisdn === msisdn);
}

it('approve: paid by callback, with the M-Pesa receipt; the purchase told once', async () => {
  const { purchase } = await buy('26775900001');
  await until('paid', async () => (await stateOf(purchase.id)) === 'successful');
  await until('told', () => told.paid.includes(purchase.id));
  expect((await payments.getByPurchase(purchase.id))!.receipt).toMatch(/\w+/);
  expect((await sandboxPayment('26775900001'))?.status).toBe('successful');
});

it('decline: not paid, the purchase ended; nothing collected', async () => {
  const { purchase } = await buy('26775900002');
  await until('declined', async () => (await stateOf(purchase.id)) === 'failed');
  await until('told', () => told.unpaid.some(([id]) => id === purchase.id));
  expect(told.unpaid.find(([id]) => id === purchase.id)![1]).toBe('declined');
});

it('callback lost: only the status query finds the money', async () => {
  const { purchase } = await buy('26775900005');
  await until('paid by query', async () => (await stateOf(purchase.id)) === 'successful');
});

it('duplicate callback: paid once, the purchase told once', async () => {
  const { purchase, payment } = await buy('26775900006');
  await until('both callbacks kept', async () => (await payments.noticesOf(payment.id)).length >= 2);
  expect((await payments.noticesOf(payment.id)).map((n) => n.outcome).sort()).toEqual([
    'applied',
    'duplicate',
  ]);
  expect(told.paid.filter((id) => id === purchase.id)).toHaveLength(1);
});

it('paid, then the vend failed definitively: one reversal, the money back in the sandbox ledger', async () => {
  const payer = '26775900001';
  const { purchase } = await buy(payer);
  await until('paid', async () => (await stateOf(purchase.id)) === 'successful');
  const p = (await purchases.get(purchase.id))!;
  const confirming = await purchases.transition(p.id, ['created'], 'confirming', p.version, {
    confirmAttempts: 1,
  });
  if (!confirming.ok) throw new Error('confirm refused');
  await purchases.transition(p.id, ['confirming'], 'failed', confirming.record.version, {
    failure: { code: 'meter_blocked', message: 'Meter is blocked', charged: false },
  });
  await Promise.all([lifecycle.refundIfDue(p.id), lifecycle.refundIfDue(p.id)]);
  await until('refunded', async () => (await stateOf(p.id)) === 'refunded');
  expect(told.refunded).toEqual([p.id]);
  // Newest first: this purchase's payment, given back whole.
  expect(await sandboxPayment(payer)).toMatchObject({ status: 'refunded', refundedAmount: 'KES 100.00' });
  // This purchase's money adds up (the file's other purchases are paid and left `created` on
  // purpose: nothing here confirms them, and the money check names them `paid_waiting`).
  expect((await paymentDiscrepancies(t.db)).filter((d) => d.purchaseId === p.id)).toEqual([]);
});
