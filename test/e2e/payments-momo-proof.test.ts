import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { EMBEDDED_CALLBACK_SECRET } from '../../src/payments/setup';
import { TEST_PAYERS } from '../../src/payments/sandbox';
import { TEST_METERS } from '../../src/sandbox';
import { until } from '../support/wait';
import { dialogue, ledger, outbox, startTestGateway } from './harness';

/**
 * MoMo signs nothing, and its callback names our own reference: our callback URL's key is all it
 * carries, and a URL can be read in a proxy's log. So a MoMo success is believed only once MoMo's
 * own status (`GET /collection/v1_0/requesttopay/{referenceId}`) says paid (#36). A whole gateway
 * on MoMo's wire against the embedded payment sandbox, over real HTTP.
 */

const payer = (behaviour: string) => TEST_PAYERS.find((p) => p.behaviour === behaviour)!.msisdn;
let gateway: Gateway;
let seq = 0;

beforeAll(async () => {
  gateway = await startTestGateway(
    {
      PAYMENT_PROVIDER: 'momo',
      SPEND_DAY_MAX_COUNT: '100',
      PURCHASE_API_CONFIRM_TIMEOUT_MS: '2000',
      PURCHASE_API_TIMEOUT_MS: '1000',
    },
    {
      paymentSandbox: { approveDelayMs: 50, refundDelayMs: 50 },
      paymentLifecycle: { pollBaseMs: 300, pollMaxMs: 600 },
    },
  );
});
afterAll(() => gateway?.close());

const debits = async () =>
  (await ledger(gateway.purchaseServiceUrl)).filter(
    (row) => row.subscriber_identifier === TEST_METERS.active && row.debited_minor > 0,
  ).length;

async function buy(phone: string) {
  const replies = await dialogue(gateway, `momo-${phone}-${++seq}`, phone, [
    '1',
    TEST_METERS.active,
    '1',
    '100',
    '1',
  ]);
  expect(replies[replies.length - 1]).toMatchObject({ status: 200, end: true });
  const purchase = await until(
    'the purchase',
    async () => (await gateway.desk.listByMsisdn(phone))[0] ?? null,
  );
  const payment = await until('its payment asked for', async () => {
    const p = await gateway.payments!.store.getByPurchase(purchase.id);
    return p?.state === 'pending' ? p : null;
  });
  return { purchase, payment };
}

const outcomes = async (paymentId: string) =>
  (await gateway.payments!.store.noticesOf(paymentId)).map((n) => n.outcome);

it('a forged success callback with the right key and no money behind it: never paid, no confirm sent', async () => {
  const phone = payer('manual');
  const debitsBefore = await debits();
  const { purchase, payment } = await buy(phone);
  // MoMo's callback body (its status answer's shape), with our reference: all a forger needs.
  const forged = await axios.put(
    `${gateway.url}/payments/callback/payment?key=${EMBEDDED_CALLBACK_SECRET}`,
    {
      financialTransactionId: '999000111',
      externalId: payment.id,
      amount: (payment.amount.minor / 100).toFixed(2),
      currency: payment.amount.currency,
      payer: { partyIdType: 'MSISDN', partyId: phone },
      status: 'SUCCESSFUL',
    },
    { validateStatus: () => true },
  );
  expect(forged.status).toBe(200);
  expect(forged.data).toMatchObject({ outcome: 'unverified' });
  expect((await gateway.payments!.store.getByPurchase(purchase.id))?.state).toBe('pending');
  expect((await gateway.desk.get(purchase.id))?.state).toBe('created');

  // The payer, who never approved, declines the prompt: MoMo's status refutes the forged success.
  const { data } = await axios.get<{ prompts: { id: string }[] }>(
    `${gateway.paymentSandbox!.url}/sandbox/prompts?msisdn=${phone}`,
  );
  await axios.post(`${gateway.paymentSandbox!.url}/sandbox/prompts/${data.prompts[0].id}/decline`);
  await until('the forged callback refuted', async () => (await outcomes(payment.id)).includes('refuted'), {
    timeoutMs: 15_000,
  });
  const ended = await until('the purchase ended unpaid', async () => {
    const p = await gateway.desk.get(purchase.id);
    return p?.state === 'failed' ? p : null;
  });
  expect(ended.confirmAttempts).toBe(0);
  expect((await gateway.payments!.store.getByPurchase(purchase.id))?.state).toBe('failed');
  expect(await debits()).toBe(debitsBefore);
  // Nothing to give back: nothing was taken, no refund asked.
  expect((await gateway.payments!.store.getByPurchase(purchase.id))?.refund ?? null).toBeNull();
});

it('a real success callback still sells: applied once MoMo says paid, the token follows', async () => {
  const phone = payer('approve');
  const debitsBefore = await debits();
  const smsBefore = (await outbox(gateway, phone)).length;
  const { purchase, payment } = await buy(phone);
  const sold = await until(
    'sold',
    async () => {
      const p = await gateway.desk.get(purchase.id);
      return p?.state === 'succeeded' ? p : null;
    },
    { timeoutMs: 15_000 },
  );
  expect(sold.confirmAttempts).toBe(1);
  await until('the token SMS', async () => (await outbox(gateway, phone)).length > smsBefore);
  expect(await gateway.payments!.store.getByPurchase(purchase.id)).toMatchObject({
    state: 'successful',
    receipt: expect.any(String),
  });
  // MoMo's callback was asked about before it was believed (or the poll asked first).
  await until('its callback settled', async () =>
    (await outcomes(payment.id)).some((o) => o === 'applied' || o === 'duplicate'),
  );
  expect(await outcomes(payment.id)).not.toContain('refuted');
  expect(await debits()).toBe(debitsBefore + 1);
});
