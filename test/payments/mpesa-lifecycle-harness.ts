import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PaymentLifecycle } from '../../src/payments/lifecycle/runner';
import type { PaymentLifecycleSettings } from '../../src/payments/lifecycle/machine';
import { paymentLifecycleSettings, type PaymentOutcomeHooks } from '../../src/payments/lifecycle/settings';
import { MpesaAdapter } from '../../src/payments/mpesa/adapter';
import type { CallbackKind } from '../../src/payments/port';
import type { PaymentJob } from '../../src/payments/queue';
import {
  DARAJA_DEFAULTS,
  startPaymentSandbox,
  type PaymentSandboxOptions,
  type RunningPaymentSandbox,
} from '../../src/payments/sandbox';
import { SqlPaymentStore } from '../../src/payments/store/sql';
import { InProcessJobQueue } from '../../src/queue';
import { SqlPurchaseStore } from '../../src/purchases/store';
import { testDatabase, type TestDatabase } from '../support/database';

/**
 * The payment lifecycle over real HTTP: the M-Pesa adapter against the embedded payment sandbox
 * (its test payers), callbacks received by a real HTTP route of the test's own, records in a
 * PostgreSQL test schema with the purchase store, jobs on an in-process queue.
 */
export interface MpesaLifecycleHarness {
  t: TestDatabase;
  sandbox: RunningPaymentSandbox;
  lifecycle: PaymentLifecycle;
  payments: SqlPaymentStore;
  purchases: SqlPurchaseStore;
  /** The queue stopped, the sandbox and the callback route closed, the schema dropped. */
  close(): Promise<void>;
}

export async function startMpesaLifecycle(options: {
  schema: string;
  sandbox: PaymentSandboxOptions;
  settings: Partial<PaymentLifecycleSettings>;
  hooks: PaymentOutcomeHooks;
}): Promise<MpesaLifecycleHarness> {
  const t = await testDatabase(options.schema);
  const payments = new SqlPaymentStore({ db: t.db });
  const purchases = new SqlPurchaseStore({ db: t.db });
  const queue = new InProcessJobQueue<PaymentJob>({ retryDelayMs: 20 });
  const sandbox = await startPaymentSandbox({ silent: true, ...options.sandbox });
  // Our callback route: the adapter reads the body, the lifecycle acts on it.
  const callbacks = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const kind = (req.url ?? '').split('/').pop() as CallbackKind;
      const notice = adapter.parseCallback({
        kind,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        headers: {},
      });
      void (notice ? lifecycle.onCallback(notice) : Promise.resolve()).finally(() => res.end('{}'));
    });
  });
  await new Promise<void>((resolve) => callbacks.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(callbacks.address() as AddressInfo).port}/cb`;
  const adapter = new MpesaAdapter({
    baseUrl: sandbox.url,
    consumerKey: DARAJA_DEFAULTS.consumerKey,
    consumerSecret: DARAJA_DEFAULTS.consumerSecret,
    shortcode: DARAJA_DEFAULTS.shortcode,
    passkey: DARAJA_DEFAULTS.passkey,
    transactionType: 'CustomerPayBillOnline',
    partyB: DARAJA_DEFAULTS.shortcode,
    callbackUrl: `${base}/payment`,
    refundResultUrl: `${base}/refund`,
    refundTimeoutUrl: `${base}/refund_timeout`,
    initiator: 'gateway',
    securityCredential: 'sandbox-credential',
    currency: 'KES',
    amountDecimals: 0,
  });
  const lifecycle = new PaymentLifecycle({
    payments,
    purchases,
    provider: adapter,
    queue,
    settings: paymentLifecycleSettings('mpesa', options.settings),
    ...options.hooks,
  });
  await queue.start(lifecycle.handle);
  return {
    t,
    sandbox,
    lifecycle,
    payments,
    purchases,
    async close() {
      await queue.close();
      await sandbox.close();
      await new Promise((resolve) => callbacks.close(resolve));
      await t.cleanup();
    },
  };
}
