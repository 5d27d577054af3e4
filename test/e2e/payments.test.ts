import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { loadLocales } from '../../src/i18n';
import { TEST_METERS } from '../../src/sandbox';
import { TEST_PAYERS } from '../../src/payments/sandbox';
import { paymentDiscrepancies } from '../../src/payments/store/checks';
import { buySale } from '../../src/sales/buy';
import { intent, record } from '../purchases/fixtures';
import { until } from '../support/wait';
import { dialogue, ledger, outbox, startTestGateway, type OutboxMessage } from './harness';

/**
 * The payment step end to end (#30): a whole gateway in its embedded mode — the purchase sandbox
 * and the payment sandbox over real HTTP, the mpesa adapter, the callback routes — one purchase of
 * each outcome over USSD (Africa's Talking) and by SMS, with the ledgers of both sandboxes.
 */

const locales = loadLocales();
const t = (key: string, params: Record<string, string> = {}) => locales.t('en', key, params);
const payer = (behaviour: string) => TEST_PAYERS.find((p) => p.behaviour === behaviour)!.msisdn;
/** CARE_PHONE: every failure SMS (not paid, vend failed, refunded) ends with it. */
const CARE = '\n' + t('sms.careLine', { phone: '3900000' });

let gateway: Gateway;
let seq = 0;

beforeAll(async () => {
  gateway = await startTestGateway(
    {
      SPEND_DAY_MAX_COUNT: '100',
      PURCHASE_API_CONFIRM_TIMEOUT_MS: '2000',
      PURCHASE_API_TIMEOUT_MS: '1000',
      CARE_PHONE: '3900000',
    },
    {
      paymentSandbox: { approveDelayMs: 50, refundDelayMs: 50, promptExpiryMs: 500 },
      // The status query comes fast (a lost callback is found within a second).
      paymentLifecycle: { pollBaseMs: 300, pollMaxMs: 600, refundDeadlineMs: 3000 },
    },
  );
});

afterAll(async () => {
  await gateway?.close();
});

interface SandboxPayment {
  id: string;
  msisdn: string;
  amount: string;
  status: string;
  refundedAmount: string;
}

async function paymentsOf(msisdn: string): Promise<SandboxPayment[]> {
  const { data } = await axios.get<{ payments: SandboxPayment[] }>(
    `${gateway.paymentSandbox!.url}/sandbox/payments`,
  );
  return data.payments.filter((p) => p.msisdn === msisdn);
}

/** A purchase over USSD (the token to this phone); returns the last screen and the SMS count before it. */
async function buyByUssd(phone: string, meter: string = TEST_METERS.active) {
  const before = (await outbox(gateway, phone)).length;
  const replies = await dialogue(gateway, `pay-${phone}-${++seq}`, phone, ['1', meter, '1', '100', '1']);
  return { last: replies[replies.length - 1], quote: replies[4].screen, before };
}

async function sms(from: string, text: string): Promise<void> {
  await axios.post(
    `${gateway.url}/sms/africastalking`,
    new URLSearchParams({
      id: `pay-${process.pid}-${++seq}`,
      from: `+${from}`,
      to: '12345',
      text,
      date: 'now',
    }),
  );
}

/** The SMS to `phone` after the first `skip`, once `count` of them are there (oldest first). */
async function smsAfter(phone: string, skip: number, count = 1): Promise<OutboxMessage[]> {
  return until(
    `${count} SMS to ${phone}`,
    async () => {
      const all = (await outbox(gateway, phone)).reverse();
      return all.length >= skip + count ? all.slice(skip) : null;
    },
    { timeoutMs: 20_000 },
  );
}

const debits = async (meter: string) =>
  (await ledger(gateway.purchaseServiceUrl)).filter(
    (row) => row.subscriber_identifier === meter && row.debited_minor > 0,
  ).length;

describe('over USSD', () => {
  it('paid: the dialogue ends asking for approval, the payment is collected, then the token with the M-Pesa receipt', async () => {
    const phone = payer('approve');
    const debitsBefore = await debits(TEST_METERS.active);
    const { last, quote, before } = await buyByUssd(phone);
    const total = /Total: (BWP [\d.]+)/.exec(quote)![1];
    expect(last).toMatchObject({ status: 200, end: true });
    expect(last.screen).toBe(t('payment.approve', { amount: total }));

    const [token] = await smsAfter(phone, before);
    expect(token.message).toMatch(/\d{4} \d{4} \d{4} \d{4} \d{4}/);
    const [paid] = await paymentsOf(phone);
    expect(paid).toMatchObject({ status: 'successful', amount: total });
    const purchase = (await gateway.desk.listByMsisdn(phone))[0];
    const payment = await gateway.payments!.store.getByPurchase(purchase.id);
    expect(payment).toMatchObject({ state: 'successful', receipt: expect.any(String) });
    expect(token.message).toContain(t('sms.payment.paid', { paid: total, receipt: payment!.receipt! }));
    expect(purchase.state).toBe('succeeded');
    expect(await debits(TEST_METERS.active)).toBe(debitsBefore + 1);
  });

  it('declined: an SMS says why, nothing is confirmed, nothing debited', async () => {
    const phone = payer('decline');
    const debitsBefore = await debits(TEST_METERS.active);
    const { last, before } = await buyByUssd(phone);
    expect(last.end).toBe(true);
    const [told] = await smsAfter(phone, before);
    const purchase = (await gateway.desk.listByMsisdn(phone))[0];
    expect(told.message).toBe(
      t('sms.payment.notPaid', {
        amount: 'BWP 101.50',
        reason: t('payment.reason.declined'),
        reference: purchase.externalReference,
      }) + CARE,
    );
    expect(purchase).toMatchObject({
      state: 'failed',
      confirmAttempts: 0,
      failure: { code: 'payment_failed' },
    });
    expect((await paymentsOf(phone))[0].status).toBe('failed');
    expect(await debits(TEST_METERS.active)).toBe(debitsBefore);
  });

  it('callback lost: the status query finds the money, the token follows', async () => {
    const phone = payer('callback_lost');
    const { before } = await buyByUssd(phone);
    const [token] = await smsAfter(phone, before);
    expect(token.message).toMatch(/\d{4} \d{4} \d{4} \d{4} \d{4}/);
    const purchase = (await gateway.desk.listByMsisdn(phone))[0];
    expect(purchase.state).toBe('succeeded');
  });

  it('paid, then the vend failed: one refund, and an SMS once the money is back', async () => {
    const phone = payer('duplicate_callback');
    // The purchase service refuses the confirm (502, not carried out): reconcile finds it failed.
    await axios.post(`${gateway.purchaseServiceUrl}/sandbox/faults`, {
      endpoint: 'confirm',
      fault: 'provider_unavailable',
      count: 1,
    });
    const debitsBefore = await debits(TEST_METERS.active);
    const { before } = await buyByUssd(phone);
    const [failed, refunded] = await smsAfter(phone, before, 2);
    const purchase = (await gateway.desk.listByMsisdn(phone))[0];
    const params = {
      product: t('product.ELECTRICITY'),
      identifier: TEST_METERS.active,
      reference: purchase.externalReference,
    };
    expect(failed.message).toBe(t('sms.payment.vendFailed', { ...params, amount: 'BWP 101.50' }) + CARE);
    const [payment] = await paymentsOf(phone);
    expect(payment.status).toBe('refunded');
    expect(payment.refundedAmount).toBe(payment.amount);
    // The refund SMS is a failure SMS too: it ends with the care line.
    expect(refunded.message).toBe(t('sms.payment.refunded', { ...params, paid: payment.amount }) + CARE);
    expect(await gateway.payments!.store.getByPurchase(purchase.id)).toMatchObject({ state: 'refunded' });
    expect(await debits(TEST_METERS.active)).toBe(debitsBefore);
    expect(await paymentDiscrepancies(gateway.records)).toEqual([]);
  });

  it('a refund the provider never confirms: the purchase waits in the care queue (needs_attention)', async () => {
    const phone = payer('approve');
    await axios.post(`${gateway.purchaseServiceUrl}/sandbox/faults`, {
      endpoint: 'confirm',
      fault: 'provider_unavailable',
      count: 1,
    });
    // The reversal's answer is lost and nothing ever reports it: silent past its deadline.
    await axios.post(`${gateway.paymentSandbox!.url}/sandbox/faults`, {
      operation: 'refund',
      fault: 'drop',
      completes: false,
    });
    const { before } = await buyByUssd(phone);
    const purchase = await until('the purchase in the care queue', async () => {
      const [latest] = await gateway.desk.listByMsisdn(phone);
      return latest?.state === 'needs_attention' ? latest : null;
    });
    expect(purchase.lastError).toMatchObject({ code: 'refund_needs_attention' });
    expect(purchase.lastError!.message).toMatch(/buyer paid BWP 101\.50, receipt \w+/);
    expect((await gateway.desk.listByState('needs_attention')).map((p) => p.id)).toContain(purchase.id);
    expect(await gateway.payments!.store.getByPurchase(purchase.id)).toMatchObject({
      state: 'needs_attention',
    });
    const [, told] = await smsAfter(phone, before, 2);
    expect(told.message).toContain(
      t('sms.needsAttention', {
        product: t('product.ELECTRICITY'),
        identifier: TEST_METERS.active,
        amount: 'BWP 100.00',
        reference: purchase.externalReference,
      }),
    );
  });
});

describe('by SMS', () => {
  async function quoteAndYes(phone: string): Promise<{ before: number; total: string }> {
    const before = (await outbox(gateway, phone)).length;
    await sms(phone, `ELEC ${TEST_METERS.active} 100`);
    const [quote] = await smsAfter(phone, before);
    await sms(phone, `YES ${/YES (\d{4})/.exec(quote.message)![1]}`);
    return { before: before + 1, total: /Total: (BWP [\d.]+)/.exec(quote.message)![1] };
  }

  it('paid: YES is answered like the USSD end screen, then the token', async () => {
    const phone = payer('approve');
    const { before, total } = await quoteAndYes(phone);
    const [reply, token] = await smsAfter(phone, before, 2);
    expect(reply.message).toBe(t('payment.approve', { amount: total }));
    expect(token.message).toMatch(/\d{4} \d{4} \d{4} \d{4} \d{4}/);
  });

  it('insufficient funds: not paid, told why, nothing bought', async () => {
    const phone = payer('insufficient_funds');
    const { before } = await quoteAndYes(phone);
    const [, told] = await smsAfter(phone, before, 2);
    expect(told.message).toContain(`(${t('payment.reason.insufficient_funds')}). `);
    const purchase = (await gateway.desk.listByMsisdn(phone))[0];
    expect(purchase).toMatchObject({ state: 'failed', confirmAttempts: 0 });
  });
});

describe('a purchase and its payment row', () => {
  it('commit together: a payment row the database refuses leaves no purchase, and nothing is asked', async () => {
    const phone = '26775911001';
    const key = `atomic-${process.pid}-${++seq}`;
    const payments = gateway.payments!;
    const collected: string[] = [];
    const parts = {
      desk: gateway.desk,
      payments: {
        // The real payment store, asked for an amount its CHECK refuses (amount_minor > 0).
        writeRequest: (
          purchase: Parameters<typeof payments.writeRequest>[0],
          tx: Parameters<typeof payments.writeRequest>[1],
        ) => payments.writeRequest(purchase, tx, { currency: 'BWP', minor: 0 }),
        collect: async (payment: { purchaseId: string }) => void collected.push(payment.purchaseId),
      },
    };
    const sale = intent({ requesterMsisdn: phone, beneficiaryMsisdn: phone });
    await expect(buySale(parts, sale, key, { currency: 'BWP', minor: 0 })).rejects.toThrow(/check/i);
    expect(await gateway.desk.store.getByIdempotencyKey(key)).toBeNull();
    expect(collected).toEqual([]);

    // The same Buy with a payment the database takes: both rows, then (only then) the collect.
    const bought = await buySale({ desk: gateway.desk, payments }, sale, key, {
      currency: 'BWP',
      minor: 10150,
    });
    expect(bought).toMatchObject({ state: 'created', intent: { paymentRequired: true } });
    expect(await payments.store.getByPurchase(bought.id)).toMatchObject({
      purchaseId: bought.id,
      amount: { currency: 'BWP', minor: 10150 },
    });
    const token = await until('the token SMS', async () =>
      (await outbox(gateway, phone)).find((m) => /\d{4} \d{4} \d{4} \d{4} \d{4}/.test(m.message)),
    );
    expect(token).toBeDefined();
    // A Buy run again writes nothing and asks nothing more.
    expect((await buySale({ desk: gateway.desk, payments }, sale, key)).id).toBe(bought.id);
    expect((await paymentsOf(phone)).length).toBe(1);
  });

  it('a purchase found without its payment a minute on is ended not paid, and the buyer told nothing was bought', async () => {
    const phone = '26775911002';
    const sale = intent({ requesterMsisdn: phone, beneficiaryMsisdn: phone, paymentRequired: true });
    const minuteAgo = new Date(Date.now() - 61_000).toISOString();
    // Written as a crash between the purchase and its payment row once could (no payment row).
    const stranded = record({ intent: sale, createdAt: minuteAgo, updatedAt: minuteAgo });
    const fresh = record({ intent: sale });
    fresh.createdAt = fresh.updatedAt = new Date().toISOString();
    await gateway.desk.store.create(stranded);
    await gateway.desk.store.create(fresh);

    await gateway.payments!.sweep();
    const ended = await until('the stranded purchase ended', async () => {
      const found = await gateway.desk.get(stranded.id);
      return found?.state === 'failed' ? found : null;
    });
    expect(ended).toMatchObject({
      confirmAttempts: 0,
      failure: { code: 'payment_not_started', charged: false },
    });
    // One under a minute old is left alone (its payment row would be written with it).
    expect((await gateway.desk.get(fresh.id))?.state).toBe('created');
    const [told] = await smsAfter(phone, 0);
    // The not-paid SMS (then the care line, when one is set).
    expect(told.message).toContain(
      t('sms.payment.notPaid', {
        amount: 'BWP 100.00',
        reason: t('payment.reason.not_started'),
        reference: stranded.externalReference,
      }),
    );
    expect(told.message).toContain('Nothing was bought');
    expect(await gateway.payments!.store.getByPurchase(stranded.id)).toBeNull();
    expect((await paymentsOf(phone)).length).toBe(0);
    expect(await paymentDiscrepancies(gateway.records)).toEqual([]);
  });
});

describe('the callback routes', () => {
  const url = () => `${gateway.url}/payments/callback/payment`;
  const post = (query: string, body: string) =>
    axios.post(`${url()}${query}`, body, {
      headers: { 'content-type': 'application/json' },
      validateStatus: () => true,
    });

  it('refuse a call without the secret (401), a body that is no result (400)', async () => {
    const callback = JSON.stringify({ Body: { stkCallback: { CheckoutRequestID: 'x', ResultCode: 0 } } });
    expect((await post('', callback)).status).toBe(401);
    expect((await post('?key=wrong-secret-0123456789', callback)).status).toBe(401);
    expect((await post('?key=embedded-payment-sandbox-key', '{not json')).status).toBe(400);
    expect((await post('?key=embedded-payment-sandbox-key', '{"hello":1}')).status).toBe(400);
  });

  it('keep a result for a payment nobody asked for unmatched: nothing is marked paid', async () => {
    const body = JSON.stringify({
      Body: {
        stkCallback: {
          MerchantRequestID: 'm-1',
          CheckoutRequestID: 'ws_CO_unknown',
          ResultCode: 0,
          ResultDesc: 'ok',
          CallbackMetadata: {
            Item: [
              { Name: 'Amount', Value: 100 },
              { Name: 'MpesaReceiptNumber', Value: 'RCP123' },
              { Name: 'PhoneNumber', Value: 26771234567 },
            ],
          },
        },
      },
    });
    const answer = await post('?key=embedded-payment-sandbox-key', body);
    expect(answer.status).toBe(200);
    expect(answer.data).toMatchObject({ outcome: 'unmatched' });
  });
});

it('metrics: payments by state, push-to-result latency, refunds by state', async () => {
  const { data } = await axios.get<string>(`${gateway.url}/metrics`, { responseType: 'text' });
  expect(data).toMatch(/^payments_by_state\{state="successful"\} [1-9]/m);
  expect(data).toMatch(/^payments_by_state\{state="refunded"\} [1-9]/m);
  expect(data).toMatch(/^payment_result_seconds_count\{outcome="successful"\} [1-9]/m);
  expect(data).toMatch(/^payment_result_seconds_count\{outcome="failed"\} [1-9]/m);
  expect(data).toMatch(/^payment_refunds_total\{state="refund_requested"\} 2$/m);
  expect(data).toMatch(/^payment_refunds_total\{state="refunded"\} 1$/m);
  expect(data).toMatch(/^payment_refunds_total\{state="needs_attention"\} 1$/m);
});
