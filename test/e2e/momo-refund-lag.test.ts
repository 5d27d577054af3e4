import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { TEST_PAYERS } from '../../src/payments/sandbox';
import { paymentDiscrepancies } from '../../src/payments/store/checks';
import { until } from '../support/wait';
import { dialogue, startTestGateway } from './harness';

/**
 * MoMo answers its refund status 404 RESOURCE_NOT_FOUND for a while after it accepted the refund
 * (202): it lags. A not-found is asked again, with backoff, until the refund's deadline — never
 * taken as a refusal, which would hand the buyer to care and may have them refunded twice.
 */

const payer = TEST_PAYERS.find((p) => p.behaviour === 'approve')!.msisdn;
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startTestGateway(
    {
      PAYMENT_PROVIDER: 'momo',
      SPEND_DAY_MAX_COUNT: '100',
      PURCHASE_API_CONFIRM_TIMEOUT_MS: '1000',
      PURCHASE_API_TIMEOUT_MS: '1000',
    },
    {
      paymentSandbox: { approveDelayMs: 50, refundDelayMs: 50 },
      paymentLifecycle: { pollBaseMs: 200, pollMaxMs: 400, refundDeadlineMs: 20_000 },
      purchaseLifecycle: { inFlightMarginMs: 200, maxDelayMs: 300 },
    },
  );
});

afterAll(async () => {
  await gateway?.close();
});

const armPayment = (operation: string, fault: string, count: number) =>
  axios.post(`${gateway.paymentSandbox!.url}/sandbox/faults`, { operation, fault, count });

it('the refund status answered 404 twice: asked again, then refunded once; never refund_failed', async () => {
  // The vend fails definitively: the provider is unreachable at confirm, retry says it failed.
  await axios.post(`${gateway.purchaseServiceUrl}/sandbox/faults`, {
    endpoint: 'confirm',
    fault: 'provider_unavailable',
    count: 1,
  });
  // No callbacks (the payment's, the refund's): only the status queries tell.
  await armPayment('callback', 'drop', 2);
  await armPayment('refund_status', 'not_found', 2);
  await dialogue(gateway, `momo-lag-${process.pid}`, payer, ['1', TEST_METERS.active, '1', '100', '1']);
  const [purchase] = await gateway.desk.listByMsisdn(payer);
  const payments = gateway.payments!.store;

  const refunded = await until(
    'the refund confirmed',
    async () => {
      const payment = await payments.getByPurchase(purchase.id);
      expect(payment?.state).not.toBe('refund_failed');
      expect(payment?.state).not.toBe('needs_attention');
      return payment?.state === 'refunded' ? payment : null;
    },
    { timeoutMs: 20_000 },
  );
  expect((await gateway.desk.get(purchase.id))?.failure).toMatchObject({ charged: false });
  // Both 404s were answered (the faults are spent) and read as "ask again".
  expect((await axios.get(`${gateway.paymentSandbox!.url}/sandbox/faults`)).data).toEqual({});
  expect(refunded.refund!.pollAttempts).toBeGreaterThanOrEqual(3);
  expect(refunded.refund).toMatchObject({ reason: 'vend_failed', alreadyRefunded: false });
  // Given back once, whole: the sandbox's ledger and ours agree.
  const { data } = await axios.get<{
    payments: { msisdn: string; status: string; refundedAmount: string }[];
  }>(`${gateway.paymentSandbox!.url}/sandbox/payments`);
  const theirs = data.payments.find((p) => p.msisdn === payer)!;
  expect(theirs.status).toBe('refunded');
  expect(await paymentDiscrepancies(gateway.records)).toEqual([]);
});
