import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderCaller } from '../../src/payments/caller';
import { PaymentLifecycle } from '../../src/payments/lifecycle/runner';
import { paymentLifecycleSettings } from '../../src/payments/lifecycle/settings';
import { MpesaAdapter } from '../../src/payments/mpesa/adapter';
import type { PaymentJob } from '../../src/payments/queue';
import { SqlPaymentStore } from '../../src/payments/store/sql';
import { InProcessJobQueue } from '../../src/queue';
import { SqlPurchaseStore } from '../../src/purchases/store';
import type { PurchaseIntent } from '../../src/purchases/types';
import { testDatabase, type TestDatabase } from '../support/database';
import { until } from '../support/wait';
import { intent, record } from '../purchases/fixtures';

/**
 * A `requested` payment is never called lost while its collect may still be in flight: how long
 * that may be follows from the provider's settings (PAYMENT_TIMEOUT_MS per attempt, the token
 * fetch, the retries), not a fixed 30 s. Played with the real Daraja adapter against a provider
 * that takes its time to answer the push, the lifecycle's clock moved past 30 s meanwhile.
 */

let t: TestDatabase;
let server: http.Server;
let baseUrl: string;
/** The push's answer, held until the test lets it go. */
let answerPush: (() => void) | null = null;
let pushes = 0;

beforeAll(async () => {
  t = await testDatabase('pay_request_timeout');
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const json = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url?.startsWith('/oauth/')) return json({ access_token: 'tok', expires_in: '3599' });
      if (req.url === '/mpesa/stkpush/v1/processrequest') {
        pushes += 1;
        answerPush = () =>
          json({ ResponseCode: '0', CheckoutRequestID: 'ws_CO_slow', MerchantRequestID: 'm-1' });
        return;
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.cleanup();
});

function adapter(timeoutMs: number): MpesaAdapter {
  const cb = 'https://gw.example/cb';
  return new MpesaAdapter(
    {
      baseUrl,
      consumerKey: 'key',
      consumerSecret: 'secret',
      shortcode: '174379',
      passkey: 'passkey',
      transactionType: 'CustomerPayBillOnline',
      partyB: '174379',
      callbackUrl: `${cb}/payment`,
      refundResultUrl: `${cb}/refund`,
      refundTimeoutUrl: `${cb}/refund_timeout`,
      initiator: 'gateway',
      securityCredential: 'credential',
      currency: 'BWP',
      amountDecimals: 0,
    },
    { timeoutMs },
  );
}

it("the lifecycle's request timeout covers the provider's whole collect: attempts, retries and token fetch", () => {
  // PAYMENT_TIMEOUT_MS at its largest: one attempt alone may take 120 s.
  const settings = paymentLifecycleSettings(adapter(120_000));
  expect(settings.requestTimeoutMs).toBe(
    new ProviderCaller('mpesa', baseUrl, { timeoutMs: 120_000 }).callBudgetMs,
  );
  // A token fetch and the push, each to its timeout, with the waits between retries.
  expect(settings.requestTimeoutMs).toBeGreaterThan(2 * 120_000);
  // Overrides still win (tests), and a bare name keeps the default.
  expect(paymentLifecycleSettings(adapter(120_000), { requestTimeoutMs: 200 }).requestTimeoutMs).toBe(200);
  expect(paymentLifecycleSettings('mpesa').requestTimeoutMs).toBe(30_000);
});

it('a slow collect is not declared lost at 30 s: the payment stays requested, then pending when the push is answered', async () => {
  const payments = new SqlPaymentStore({ db: t.db });
  const purchases = new SqlPurchaseStore({ db: t.db });
  const queue = new InProcessJobQueue<PaymentJob>({ retryDelayMs: 20 });
  let offsetMs = 0;
  const unpaid: string[] = [];
  const provider = adapter(60_000);
  const lifecycle = new PaymentLifecycle({
    payments,
    purchases,
    provider,
    queue,
    clock: () => new Date(Date.now() + offsetMs),
    settings: paymentLifecycleSettings(provider, { lostMarginMs: 50 }),
    onPaid: async () => undefined,
    onUnpaid: async (id) => void unpaid.push(id),
  });
  await queue.start(lifecycle.handle);
  try {
    const p = (
      await purchases.create(record({ intent: { ...intent(), paymentRequired: true } as PurchaseIntent }))
    ).record;
    const requesting = lifecycle.requestPayment(p);
    await until('the push to reach the provider', async () => answerPush !== null);
    // 40 s on, the push still unanswered (each attempt may take 60 s): a sweep runs.
    offsetMs = 40_000;
    await lifecycle.resumeStuck();
    expect((await payments.getByPurchase(p.id))!.state).toBe('requested');
    answerPush!();
    await requesting;
    expect(await payments.getByPurchase(p.id)).toMatchObject({
      state: 'pending',
      providerReference: 'ws_CO_slow',
    });
    expect(pushes).toBe(1);
    expect(unpaid).toEqual([]);
  } finally {
    await queue.close();
  }
}, 30_000);
