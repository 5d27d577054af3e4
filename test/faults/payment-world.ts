import { startPaymentSandbox, type RunningPaymentSandbox } from '../../src/payments/sandbox';
import { sandboxEnv } from '../../src/payments/setup';
import { SqlPaymentStore } from '../../src/payments/store/sql';
import type { PaymentRecord } from '../../src/payments/store/types';
import type { PurchaseRecord } from '../../src/purchases/types';
import type { Database } from '../../src/records/database';
import { openRecords } from '../../src/records/open';
import { ledger } from '../e2e/harness';
import { until } from '../support/wait';
import type { World } from './harness';

/**
 * The buyer pays, in the fault suite: a {@link World} (purchase sandbox, SMS provider, Redis,
 * records) with a payment sandbox beside it, the payment records read directly, and the money
 * judged per buyer (`checkTheMoney`). Shared by the kill suite and the PostgreSQL outages.
 */

export type Provider = 'mpesa' | 'momo';

export interface SandboxPayment {
  id: string;
  msisdn: string;
  amount: string;
  status: string;
  refundedAmount: string;
}
interface SandboxRefund {
  id: string;
  paymentId: string | null;
  status: string;
}
export interface Delivery {
  kind: 'payment' | 'refund';
  id: string;
  outcome: string;
  status: number | null;
  body: unknown;
}

function minor(money: string): number {
  const [, amount] = money.split(' ');
  const [units, cents = ''] = amount.split('.');
  return Number(units) * 100 + Number(cents.padEnd(2, '0'));
}

export class PaymentWorld {
  payments!: RunningPaymentSandbox;
  store!: SqlPaymentStore;
  private db!: Database;

  constructor(
    readonly world: World,
    private readonly callbackSecret: string,
  ) {}

  async start(options: { refundDelayMs?: number } = {}): Promise<void> {
    this.payments = await startPaymentSandbox({
      port: 0,
      silent: true,
      approveDelayMs: 300,
      ...(options.refundDelayMs !== undefined && { refundDelayMs: options.refundDelayMs }),
      daraja: { currency: 'BWP', wholeUnits: false },
    });
    this.db = await openRecords({
      url: this.world.records.env.DATABASE_URL,
      schema: this.world.records.env.DATABASE_SCHEMA,
      dataDir: '',
    });
    this.store = new SqlPaymentStore({ db: this.db });
  }

  async close(): Promise<void> {
    await this.payments?.close();
    await this.db?.close();
  }

  /** A gateway's settings to collect through this sandbox with `provider`. */
  providerEnv(provider: Provider): Record<string, string> {
    return {
      PAYMENT_PROVIDER: provider,
      PAYMENT_CURRENCY: 'BWP',
      PAYMENT_CALLBACK_SECRET: this.callbackSecret,
      ...sandboxEnv(provider, this.payments.url),
      // The embedded setup's block with credentials of this suite's own (the sandbox takes any).
      ...(provider === 'mpesa' && {
        MPESA_INITIATOR: 'faults-initiator',
        MPESA_SECURITY_CREDENTIAL: 'ZmF1bHRzLWNyZWRlbnRpYWw=',
      }),
    };
  }

  async sandbox<T>(path: string, init?: RequestInit): Promise<T> {
    const answer = await fetch(`${this.payments.url}${path}`, init);
    if (!answer.ok) throw new Error(`payment sandbox ${path}: ${answer.status}`);
    return (await answer.json()) as T;
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.sandbox<T>(path, {
      method: 'POST',
      ...(body !== undefined && {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    });
  }

  sandboxPayments = async () =>
    (await this.sandbox<{ payments: SandboxPayment[] }>('/sandbox/payments')).payments;
  sandboxRefunds = async () => (await this.sandbox<{ refunds: SandboxRefund[] }>('/sandbox/refunds')).refunds;
  deliveries = async () => (await this.sandbox<{ callbacks: Delivery[] }>('/sandbox/callbacks')).callbacks;

  /** Arms a payment-sandbox fault on the next `count` calls of an operation. */
  async armPayment(operation: string, fault: string, count: number, delayMs?: number): Promise<void> {
    await this.post('/sandbox/faults', {
      operation,
      fault,
      count,
      ...(delayMs !== undefined && { delayMs }),
    });
  }

  /** Waits until every armed payment-sandbox fault has been used (the requests arrived there). */
  async paymentFaultsSpent(what: string): Promise<void> {
    await until(what, async () => Object.keys(await this.sandbox<object>('/sandbox/faults')).length === 0, {
      timeoutMs: 30_000,
    });
  }

  /** Switch `phone` to answering its prompts by hand, and the PIN prompt it gets next. */
  async manual(phone: string): Promise<void> {
    await this.post('/sandbox/payers/manual', { msisdn: phone });
  }

  async promptOf(phone: string): Promise<{ id: string }> {
    return until(`${phone}: the PIN prompt`, async () => {
      const { prompts } = await this.sandbox<{ prompts: { id: string }[] }>(
        `/sandbox/prompts?msisdn=${phone}`,
      );
      return prompts[0] ?? null;
    });
  }

  async purchaseOf(phone: string): Promise<PurchaseRecord> {
    return until(`${phone}'s purchase`, async () => (await this.world.purchasesOf(phone))[0]);
  }

  async paymentIn(phone: string, states: string[]): Promise<PaymentRecord> {
    return until(`${phone}'s payment in ${states.join('/')}`, async () => {
      const purchase = (await this.world.purchasesOf(phone))[0];
      const payment = purchase && (await this.store.getByPurchase(purchase.id));
      return payment && states.includes(payment.state) ? payment : null;
    });
  }

  /** Whether the purchase service debited this buyer's purchase (its ledger). */
  async debitedAtTheService(phone: string): Promise<boolean> {
    const purchase = await this.purchaseOf(phone);
    const rows = await ledger(this.world.sandbox.url);
    return rows.some((row) => row.external_reference === purchase.externalReference && row.debited_minor > 0);
  }

  async paymentStateOf(phone: string): Promise<string | undefined> {
    const purchase = (await this.world.purchasesOf(phone))[0];
    return purchase && (await this.store.getByPurchase(purchase.id))?.state;
  }

  /**
   * The money, per purchase: a confirm only after a successful payment; one payment request per
   * intent; at most one refund per payment and none for a purchase that was debited; collected −
   * refunded = what the purchase service was paid (0 or the total).
   */
  async checkTheMoney(
    phones: string[],
    expected: { refunded: string[]; delivered: string[] },
  ): Promise<void> {
    // The money is judged where it ends: no payment still asked, pending or being refunded, and no
    // money kept for a failed purchase (its refund waits for the verdict's re-check, or is due).
    await until(
      'every payment at rest',
      async () => {
        for (const phone of phones) {
          const state = (await this.paymentStateOf(phone)) ?? '';
          if (['requested', 'pending', 'refund_requested'].includes(state)) return false;
          if (state === 'successful' && (await this.purchaseOf(phone)).state === 'failed') return false;
        }
        return true;
      },
      { timeoutMs: 90_000 },
    );
    const debitRows = await ledger(this.world.sandbox.url);
    const asked = await this.sandboxPayments();
    const refunds = await this.sandboxRefunds();
    for (const phone of phones) {
      const [purchase, ...more] = await this.world.purchasesOf(phone);
      expect(more).toEqual([]);
      const payment = (await this.store.getByPurchase(purchase.id))!;
      const debited = debitRows.some(
        (row) => row.external_reference === purchase.externalReference && row.debited_minor > 0,
      );
      const mine = asked.filter((p) => p.msisdn === phone);
      expect({ phone, requests: mine.length }).toEqual({ phone, requests: 1 });
      const [paid] = mine;
      const collected = ['successful', 'refunded'].includes(paid.status) ? minor(paid.amount) : 0;
      const refunded = minor(paid.refundedAmount);
      const accepted = refunds.filter((r) => r.paymentId === paid.id && r.status !== 'failed');
      expect({ phone, refunds: accepted.length <= 1 }).toEqual({ phone, refunds: true });
      if (debited) expect({ phone, refundsOfADebit: accepted.length }).toEqual({ phone, refundsOfADebit: 0 });
      if (purchase.confirmAttempts > 0 || debited)
        expect({ phone, collected: collected > 0 }).toEqual({ phone, collected: true });
      // Where the buyer ended is named on both sides, so a failure says which step it was.
      const where = { phone, purchase: purchase.state, payment: payment.state, sandbox: paid.status };
      expect({ ...where, net: collected - refunded }).toEqual({
        ...where,
        net: debited ? minor(paid.amount) : 0,
      });
      if (expected.delivered.includes(phone)) {
        expect({ phone, state: purchase.state, payment: payment.state, debited }).toEqual({
          phone,
          state: 'succeeded',
          payment: 'successful',
          debited: true,
        });
      }
      if (expected.refunded.includes(phone)) {
        expect({ phone, payment: payment.state, sandbox: paid.status }).toEqual({
          phone,
          payment: 'refunded',
          sandbox: 'refunded',
        });
      }
    }
  }
}
