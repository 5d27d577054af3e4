import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { SANDBOX_ACCOUNTS, TEST_METERS } from '../../src/sandbox';
import { TEST_PAYERS } from '../../src/payments/sandbox';
import { paymentDiscrepancies } from '../../src/payments/store/checks';
import { until } from '../support/wait';
import { dialogue, startTestGateway } from './harness';

/**
 * A debit account in managed-retry mode (interface 1.5: the service retries a failed transaction
 * itself, then refunds the account). A refusal of its confirm is not final until the service's
 * window has passed: the buyer's money is kept, and when `retry` then answers `retries_disabled`
 * (the service owns the outcome) the purchase goes to a person, never to a refund.
 */

const WINDOW_MS = 2500;
const payer = TEST_PAYERS.find((p) => p.behaviour === 'approve')!.msisdn;
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startTestGateway(
    {
      SPEND_DAY_MAX_COUNT: '100',
      PURCHASE_API_CONFIRM_TIMEOUT_MS: '1000',
      PURCHASE_API_TIMEOUT_MS: '1000',
      DEBIT_ACCOUNT_ID: String(SANDBOX_ACCOUNTS.managedRetry),
      MANAGED_RETRY_ACCOUNT_IDS: `${SANDBOX_ACCOUNTS.current}, ${SANDBOX_ACCOUNTS.managedRetry}`,
      MANAGED_RETRY_WINDOW_MS: String(WINDOW_MS),
    },
    {
      paymentSandbox: { approveDelayMs: 50, refundDelayMs: 50 },
      paymentLifecycle: { pollBaseMs: 300, pollMaxMs: 600 },
      purchaseLifecycle: { inFlightMarginMs: 200, maxDelayMs: 300 },
    },
  );
});

afterAll(async () => {
  await gateway?.close();
});

it('confirm refused on a managed-retry account: no refund inside the window, then needs_attention, never a refund', async () => {
  await axios.post(`${gateway.purchaseServiceUrl}/sandbox/faults`, {
    endpoint: 'confirm',
    fault: 'provider_error',
    count: 1,
  });
  await dialogue(gateway, `managed-${process.pid}`, payer, ['1', TEST_METERS.active, '1', '100', '1']);
  const [purchase] = await gateway.desk.listByMsisdn(payer);
  const payments = gateway.payments!.store;

  const handed = await until(
    'the purchase handed to a person',
    async () => {
      const record = await gateway.desk.get(purchase.id);
      // Never failed on the way, so never refunded.
      expect(record?.state).not.toBe('failed');
      expect((await payments.getByPurchase(purchase.id))?.refund ?? null).toBeNull();
      return record?.state === 'needs_attention' ? record : null;
    },
    { timeoutMs: 20_000 },
  );
  // The account's mode was stored with the confirm; nothing was concluded before its window.
  expect(handed.intent.debitedAccountId).toBe(SANDBOX_ACCOUNTS.managedRetry);
  expect(Date.parse(handed.managedRetryUntil!) - Date.parse(handed.confirmSentAt!)).toBe(WINDOW_MS);
  expect(Date.parse(handed.settledAt!)).toBeGreaterThanOrEqual(Date.parse(handed.managedRetryUntil!));
  expect(handed.failure).toMatchObject({ code: 'retries_disabled', charged: 'unknown' });
  expect(handed.reconcileAttempts).toBeGreaterThanOrEqual(2);

  const payment = await payments.getByPurchase(purchase.id);
  expect(payment).toMatchObject({ state: 'successful', refund: null });
  expect(await paymentDiscrepancies(gateway.records)).toEqual([]);
});
