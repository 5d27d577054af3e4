import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { TEST_PAYERS } from '../../src/payments/sandbox';
import { paymentDiscrepancies } from '../../src/payments/store/checks';
import { until } from '../support/wait';
import { dialogue, ledger, startTestGateway } from './harness';

/**
 * A paid purchase whose confirm was lost on the way (the service recorded nothing): the service
 * finds no charge, so the purchase fails, but "not found" is not a fact until the re-check window
 * (`RECONCILE_RECHECK_MS`) has passed — a late token would still make it a sale. The buyer's money
 * is kept until then and refunded right after, once.
 */

const RECHECK_MS = 1500;
const payer = TEST_PAYERS.find((p) => p.behaviour === 'approve')!.msisdn;
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startTestGateway(
    {
      SPEND_DAY_MAX_COUNT: '100',
      PURCHASE_API_CONFIRM_TIMEOUT_MS: '1000',
      PURCHASE_API_TIMEOUT_MS: '1000',
      RECONCILE_RECHECK_MS: String(RECHECK_MS),
    },
    {
      paymentSandbox: { approveDelayMs: 50, refundDelayMs: 50 },
      paymentLifecycle: { pollBaseMs: 300, pollMaxMs: 600 },
      // The confirm's in-flight window is the client timeout plus this margin (30 s in production).
      purchaseLifecycle: { inFlightMarginMs: 200, maxDelayMs: 300, recheckEveryMs: 300 },
    },
  );
});

afterAll(async () => {
  await gateway?.close();
});

it('kept while "no charge found" is re-checked, then refunded once', async () => {
  // The service drops the confirm's connection before recording anything.
  await axios.post(`${gateway.purchaseServiceUrl}/sandbox/faults`, {
    endpoint: 'confirm',
    fault: 'drop',
    count: 1,
    completes: false,
  });
  await dialogue(gateway, `no-charge-${process.pid}`, payer, ['1', TEST_METERS.active, '1', '100', '1']);
  const [purchase] = await gateway.desk.listByMsisdn(payer);

  const failed = await until(
    'the purchase failed',
    async () => {
      const record = await gateway.desk.get(purchase.id);
      return record?.state === 'failed' ? record : null;
    },
    { timeoutMs: 20_000 },
  );
  expect(failed.failure).toMatchObject({ code: 'transaction_not_found', charged: false });
  expect(failed.recheckUntil).not.toBeNull();
  const payments = gateway.payments!.store;
  const refunded = await until(
    'the refund',
    async () => {
      const payment = await payments.getByPurchase(purchase.id);
      // Until the re-check window ends the money is kept: no refund row, the payment successful.
      if (!payment?.refund) {
        expect(payment?.state).toBe('successful');
        return null;
      }
      return payment.state === 'refunded' ? payment : null;
    },
    { timeoutMs: 20_000 },
  );
  expect(Date.parse(refunded.refund!.requestedAt)).toBeGreaterThanOrEqual(Date.parse(failed.recheckUntil!));
  expect(refunded.refund).toMatchObject({ reason: 'vend_failed' });
  // Nothing was debited at the service, and the money adds up: collected once, refunded once.
  const debits = (await ledger(gateway.purchaseServiceUrl)).filter(
    (row) => row.external_reference === purchase.externalReference && row.debited_minor > 0,
  );
  expect(debits).toEqual([]);
  expect(await paymentDiscrepancies(gateway.records)).toEqual([]);
});
