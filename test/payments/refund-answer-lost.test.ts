import type { PaymentLifecycle } from '../../src/payments/lifecycle/runner';
import type { RunningPaymentSandbox } from '../../src/payments/sandbox';
import type { SqlPaymentStore } from '../../src/payments/store/sql';
import type { SqlPurchaseStore } from '../../src/purchases/store';
import type { PurchaseIntent } from '../../src/purchases/types';
import { until } from '../support/wait';
import { intent, record } from '../purchases/fixtures';
import { startMpesaLifecycle, type MpesaLifecycleHarness } from './mpesa-lifecycle-harness';

/**
 * A Daraja reversal whose own answer never reaches the gateway (the process killed while the
 * reversal was in flight, or the answer lost) — found by the fault suite's kill (f). The result
 * callback names the reversal only by its OriginatorConversationID, which the gateway learns from
 * that lost answer; it also names the payment it reverses (OriginalTransactionID, the M-Pesa
 * receipt), and one payment has at most one refund: the result is matched by it, so the refund
 * ends `refunded` instead of waiting for an operator at its deadline.
 */

let harness: MpesaLifecycleHarness;
let sandbox: RunningPaymentSandbox;
let lifecycle: PaymentLifecycle;
let payments: SqlPaymentStore;
let purchases: SqlPurchaseStore;
const refunded: string[] = [];

beforeAll(async () => {
  harness = await startMpesaLifecycle({
    schema: 'payrefundlost',
    sandbox: { approveDelayMs: 30, refundDelayMs: 30 },
    // The refund's deadline is far: only the result callback can settle it within the test.
    settings: { pollBaseMs: 100, pollMaxMs: 200, refundDeadlineMs: 600_000 },
    hooks: {
      onPaid: async () => undefined,
      onUnpaid: async () => undefined,
      onRefunded: async (id) => void refunded.push(id),
    },
  });
  ({ sandbox, lifecycle, payments, purchases } = harness);
});

afterAll(() => harness.close());

it("a reversal whose answer is lost: its result, matched by the payment's receipt, ends it refunded", async () => {
  const p = record({
    intent: {
      ...intent({ requesterMsisdn: '26775900001', amount: { currency: 'KES', minor: 10_000 } }),
      paymentRequired: true,
    } as PurchaseIntent,
  });
  const purchase = (await purchases.create(p)).record;
  await lifecycle.requestPayment(purchase);
  await until('paid', async () => (await payments.getByPurchase(purchase.id))?.state === 'successful');
  const confirming = await purchases.transition(purchase.id, ['created'], 'confirming', purchase.version, {
    confirmAttempts: 1,
  });
  if (!confirming.ok) throw new Error('confirm refused');
  await purchases.transition(purchase.id, ['confirming'], 'failed', confirming.record.version, {
    failure: { code: 'meter_blocked', message: 'Meter is blocked', charged: false },
  });
  // The reversal is carried out and its result sent, but its answer never comes back.
  const armed = await fetch(`${sandbox.url}/sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ operation: 'refund', fault: 'drop', completes: true }),
  });
  expect(armed.status).toBe(201);
  await lifecycle.refundIfDue(purchase.id);
  const payment = await until('refunded by its result', async () => {
    const current = await payments.getByPurchase(purchase.id);
    return current?.state === 'refunded' ? current : null;
  });
  expect(payment.refund).toMatchObject({ amount: { currency: 'KES', minor: 10_000 } });
  expect(payment.refund!.providerReference).toBeTruthy();
  expect(refunded).toEqual([purchase.id]);
  // The provider's ledger agrees: one reversal, the whole amount.
  const { refunds } = (await (await fetch(`${sandbox.url}/sandbox/refunds`)).json()) as {
    refunds: { status: string }[];
  };
  expect(refunds.map((r) => r.status)).toEqual(['successful']);
});
