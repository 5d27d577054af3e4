import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { TEST_PAYERS } from '../../src/payments/sandbox';
import { paymentDiscrepancies } from '../../src/payments/store/checks';
import { until } from '../support/wait';
import { dialogue, ledger, outbox, startTestGateway } from './harness';

/**
 * A paid purchase whose confirm may have issued a token (a 504, or a proxy's page in front of a
 * service that sold): only a `retry` answer that says the transaction failed is a verdict. The
 * service's `upstream_error` (it could not ask the provider) and a page without an error envelope
 * are asked again, the buyer's money is kept, and the success found later delivers the token.
 */

const payer = TEST_PAYERS.find((p) => p.behaviour === 'approve')!.msisdn;
let gateway: Gateway;
let seq = 0;

beforeAll(async () => {
  gateway = await startTestGateway(
    { SPEND_DAY_MAX_COUNT: '100', PURCHASE_API_CONFIRM_TIMEOUT_MS: '1000', PURCHASE_API_TIMEOUT_MS: '1000' },
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

const arm = (endpoint: 'confirm' | 'retry', fault: string, count: number) =>
  axios.post(`${gateway.purchaseServiceUrl}/sandbox/faults`, { endpoint, fault, count });

/** Buy over USSD as the approving payer; the newest purchase of that number. */
async function buy() {
  await dialogue(gateway, `no-verdict-${process.pid}-${++seq}`, payer, [
    '1',
    TEST_METERS.active,
    '1',
    '100',
    '1',
  ]);
  const [purchase] = await gateway.desk.listByMsisdn(payer);
  return purchase;
}

/** Sold, told with the token the service issued, and the buyer's money kept: no refund row. */
async function expectSoldNotRefunded(purchaseId: string, externalReference: string) {
  const sold = await until(
    'the purchase sold',
    async () => {
      const record = await gateway.desk.get(purchaseId);
      // Never a verdict on the way: no failure, never refunded.
      expect(record?.state).not.toBe('failed');
      return record?.state === 'succeeded' ? record : null;
    },
    { timeoutMs: 20_000 },
  );
  const [row] = (await ledger(gateway.purchaseServiceUrl)).filter(
    (r) => r.external_reference === externalReference && r.status === 'SUCCESSFUL',
  );
  expect(row.token).toBeTruthy();
  expect(sold.result?.rawToken).toBe(row.token);
  const tokenSms = await until('the token SMS', async () => {
    const messages = await outbox(gateway, payer);
    return messages.find((m) => m.purchaseId === purchaseId && /\d{4} \d{4} \d{4}/.test(m.message)) ?? null;
  });
  expect(tokenSms.to).toBe(payer);
  const payment = await gateway.payments!.store.getByPurchase(purchaseId);
  expect(payment).toMatchObject({ state: 'successful', refund: null });
  expect(await paymentDiscrepancies(gateway.records)).toEqual([]);
}

it('confirm 504 (the token was issued), retry 422 upstream_error three times: asked again, then the token; no refund', async () => {
  await arm('confirm', 'provider_timeout', 1);
  await arm('retry', 'upstream_error', 3);
  const purchase = await buy();
  await expectSoldNotRefunded(purchase.id, purchase.externalReference);
  // Every upstream_error was answered and read as "ask again".
  expect((await axios.get(`${gateway.purchaseServiceUrl}/sandbox/faults`)).data).toEqual({});
  const sold = (await gateway.desk.get(purchase.id))!;
  expect(sold.reconcileAttempts).toBeGreaterThanOrEqual(4);
});

it("confirm answered by a proxy's 404 page (the service sold behind it): reconciled, the token sent; no refund", async () => {
  await arm('confirm', 'proxy_page', 1);
  const purchase = await buy();
  await expectSoldNotRefunded(purchase.id, purchase.externalReference);
  const sold = (await gateway.desk.get(purchase.id))!;
  expect(sold.reconcileAttempts).toBeGreaterThanOrEqual(1);
});

it("confirm 504, retry answered by a proxy's page twice: asked again, then the token; no refund", async () => {
  await arm('confirm', 'provider_timeout', 1);
  await arm('retry', 'proxy_page', 2);
  const purchase = await buy();
  await expectSoldNotRefunded(purchase.id, purchase.externalReference);
});
