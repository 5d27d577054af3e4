import type {
  CallbackProof,
  CollectAccepted,
  CollectRequest,
  PaymentNotice,
  PaymentProvider,
  PaymentStatus,
  RefundRequest,
  RefundStatus,
  StatusQuery,
} from '../../src/payments/port';
import { PaymentTransportError, ProviderRequestError } from '../../src/payments/errors';
import { PaymentLifecycle } from '../../src/payments/lifecycle/runner';
import { paymentLifecycleSettings, type PaymentOutcomeHooks } from '../../src/payments/lifecycle/settings';
import type { PaymentJob } from '../../src/payments/queue';
import { paymentDiscrepancies } from '../../src/payments/store/checks';
import { SqlPaymentStore } from '../../src/payments/store/sql';
import { newPaymentRecord, type PaymentRecord } from '../../src/payments/store/types';
import { InProcessJobQueue } from '../../src/queue';
import { SqlPurchaseStore } from '../../src/purchases/store';
import type { PurchaseIntent, PurchaseRecord } from '../../src/purchases/types';
import { testDatabase, type TestDatabase } from '../support/database';
import { until } from '../support/wait';
import { intent, record } from '../purchases/fixtures';

/**
 * The payment lifecycle on real PostgreSQL with the real purchase store; the provider is played
 * by a scripted double (the provider is outside the gateway; the adapters and the sandbox are
 * covered over HTTP in lifecycle.sandbox.test.ts).
 */

let t: TestDatabase;
let payments: SqlPaymentStore;
let purchases: SqlPurchaseStore;
const queues: InProcessJobQueue<PaymentJob>[] = [];

beforeAll(async () => {
  t = await testDatabase('paylife');
  payments = new SqlPaymentStore({ db: t.db });
  purchases = new SqlPurchaseStore({ db: t.db });
});
// Each test starts from no purchases and no payments (the sweep reads them all).
beforeEach(() => t.db.query('TRUNCATE purchases, payment_notices CASCADE'));
afterEach(async () => {
  for (const q of queues.splice(0)) await q.close();
});
afterAll(() => t.cleanup());

/** A provider double: each operation answers what the test scripted, and every call is kept. */
class ScriptedProvider implements PaymentProvider {
  readonly collects: CollectRequest[] = [];
  readonly refunds: RefundRequest[] = [];
  readonly statuses: StatusQuery[] = [];
  collect: (r: CollectRequest) => Promise<CollectAccepted> = async (r) => ({
    accepted: true,
    providerReference: `ws_CO_${r.reference}`,
  });
  answerStatus: () => Promise<PaymentStatus> = async () => ({ state: 'pending' });
  answerRefund: (r: RefundRequest) => Promise<RefundStatus> = async () => ({
    state: 'pending',
    providerReference: 'AG_1',
  });
  refundStatus?: PaymentProvider['refundStatus'];
  /** As the real adapters: Daraja's own key vouches; MoMo's callbacks need its status; http signs. */
  readonly callbackProof: CallbackProof;

  constructor(readonly name: string) {
    this.callbackProof = name === 'momo' ? 'none' : name === 'http' ? 'signature' : 'provider_key';
    const scripted = this.collect;
    this.collect = async (r) => {
      this.collects.push(r);
      return scripted(r);
    };
  }
  async status(query: StatusQuery): Promise<PaymentStatus> {
    this.statuses.push(query);
    return this.answerStatus();
  }
  async refund(r: RefundRequest): Promise<RefundStatus> {
    this.refunds.push(r);
    return this.answerRefund(r);
  }
  parseCallback(): null {
    return null;
  }
  /** Script the collect (the calls are still counted). */
  onCollect(answer: (r: CollectRequest) => Promise<CollectAccepted>): void {
    this.collect = async (r) => {
      this.collects.push(r);
      return answer(r);
    };
  }
}

interface Harness {
  provider: ScriptedProvider;
  lifecycle: PaymentLifecycle;
  paid: string[];
  unpaid: { purchaseId: string; reason: string }[];
  refunded: string[];
  care: string[];
}

const FAST = {
  requestTimeoutMs: 200,
  lostMarginMs: 50,
  windowMs: 600,
  marginMs: 200,
  pollBaseMs: 40,
  pollMaxMs: 100,
  refundDeadlineMs: 600,
  recheckForMs: 2_000,
  recheckEveryMs: 100,
};

/** A lifecycle with the purchase side's hooks as the lead wires them (recorded here). */
async function harness(
  providerName = 'mpesa',
  provider = new ScriptedProvider(providerName),
  shared?: Pick<Harness, 'paid' | 'unpaid' | 'refunded' | 'care'>,
): Promise<Harness> {
  const h = shared ?? { paid: [], unpaid: [], refunded: [], care: [] };
  const hooks: PaymentOutcomeHooks = {
    onPaid: async (purchaseId) => void h.paid.push(purchaseId),
    onUnpaid: async (purchaseId, reason) => {
      h.unpaid.push({ purchaseId, reason });
      // The purchase side ends it failed, charged: false, code payment_failed.
      const p = await purchases.get(purchaseId);
      if (p?.state === 'created')
        await purchases.transition(p.id, ['created'], 'failed', p.version, {
          failure: { code: 'payment_failed', message: `not paid: ${reason}`, charged: false },
          settledAt: new Date().toISOString(),
        });
    },
    onRefunded: async (purchaseId) => void h.refunded.push(purchaseId),
    onRefundNeedsCare: async (purchaseId) => void h.care.push(purchaseId),
  };
  const queue = new InProcessJobQueue<PaymentJob>({ retryDelayMs: 20 });
  queues.push(queue);
  const lifecycle = new PaymentLifecycle({
    payments,
    purchases,
    provider,
    queue,
    settings: paymentLifecycleSettings(providerName, FAST),
    ...hooks,
  });
  await queue.start(lifecycle.handle);
  return { provider, lifecycle, ...h };
}

const paying = (): PurchaseIntent => ({ ...intent(), paymentRequired: true }) as PurchaseIntent;

async function purchase(over: Partial<PurchaseRecord> = {}): Promise<PurchaseRecord> {
  return (await purchases.create(record({ intent: paying(), ...over }))).record;
}

const paidNotice = (p: PaymentRecord, over: Partial<PaymentNotice> = {}): PaymentNotice => ({
  type: 'payment',
  state: 'successful',
  providerReference: p.providerReference ?? undefined,
  amount: p.amount,
  receipt: 'RKT0001',
  ...over,
});

const paymentOf = async (purchaseId: string) => (await payments.getByPurchase(purchaseId))!;

/** The purchase side's confirm step (created → confirming), as its lifecycle writes it. */
const tryConfirm = async (purchaseId: string) => {
  const p = (await purchases.get(purchaseId))!;
  return purchases.transition(p.id, ['created'], 'confirming', p.version, { confirmAttempts: 1 });
};

describe('payment lifecycle: one request per purchase intent', () => {
  it('two lifecycle instances asked to collect for one purchase at once: one collect', async () => {
    const a = await harness();
    const b = await harness('mpesa', a.provider);
    const p = await purchase();
    const [x, y] = await Promise.all([a.lifecycle.requestPayment(p), b.lifecycle.requestPayment(p)]);
    expect(x.id).toBe(y.id);
    expect(a.provider.collects).toHaveLength(1);
    expect(a.provider.collects[0]).toMatchObject({ reference: x.id, amount: p.intent.amount });
    // Asked again later (a retried job): still the same payment, nothing sent.
    await a.lifecycle.requestPayment(p);
    expect(a.provider.collects).toHaveLength(1);
    expect((await paymentOf(p.id)).state).toBe('pending');
  });

  it('Daraja: killed between the row and the push, nothing is pushed again; the payment ends unknown and the purchase is ended', async () => {
    const h = await harness('mpesa');
    const p = await purchase();
    // The row as requestPayment commits it; the process dies before the push.
    const now = new Date().toISOString();
    await payments.create(
      newPaymentRecord({
        id: '4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
        purchaseId: p.id,
        provider: 'mpesa',
        payerMsisdn: p.intent.requesterMsisdn,
        amount: p.intent.amount,
        description: 'Electricity',
        requestedAt: now,
        expiresAt: new Date(Date.now() + 800).toISOString(),
      }),
    );
    await h.lifecycle.resumeStuck();
    await until('the payment is unknown', async () => (await paymentOf(p.id)).state === 'unknown');
    await until('the purchase is ended', async () => (await purchases.get(p.id))!.state === 'failed');
    expect(h.provider.collects).toHaveLength(0);
    // No CheckoutRequestID: nothing to ask with.
    expect(h.provider.statuses).toEqual([]);
    expect(h.unpaid).toEqual([{ purchaseId: p.id, reason: 'unknown' }]);
    expect((await purchases.get(p.id))!.state).toBe('failed');
  });

  it('MoMo: killed between the row and the request, it is sent once, later, with the same reference', async () => {
    const h = await harness('momo');
    let landed = false;
    h.provider.answerStatus = async () =>
      landed ? { state: 'successful' } : { state: 'failed', reason: 'not_found' };
    h.provider.onCollect(async (r) => {
      landed = true;
      return { accepted: true, providerReference: r.reference };
    });
    const p = await purchase();
    const id = '7a1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
    await payments.create(
      newPaymentRecord({
        id,
        purchaseId: p.id,
        provider: 'momo',
        payerMsisdn: p.intent.requesterMsisdn,
        amount: p.intent.amount,
        description: 'Electricity',
        requestedAt: new Date().toISOString(),
        expiresAt: new Date(Date.now() + 5_000).toISOString(),
      }),
    );
    await h.lifecycle.resumeStuck();
    await until('paid', async () => (await paymentOf(p.id)).state === 'successful');
    // The hook runs after the row's commit: wait for it too, then check it ran once.
    await until('the paid hook', () => h.paid.length > 0);
    expect(h.provider.collects.map((c) => c.reference)).toEqual([id]);
    expect(h.paid).toEqual([p.id]);
  });

  it('a push whose answer was lost is never pushed again (Daraja): resolved by its callback, once the STK query says paid', async () => {
    const h = await harness('mpesa');
    h.provider.onCollect(async () => {
      throw new PaymentTransportError('unknown', 'socket hang up');
    });
    const p = await purchase();
    const payment = await h.lifecycle.requestPayment(p);
    expect(payment.state).toBe('pending');
    expect(payment.providerReference).toBeNull();
    // Matched on our reference (as the generic provider echoes it), naming a key we never stored:
    // no proof it is Daraja's, so its CheckoutRequestID is queried first.
    h.provider.answerStatus = async () => ({ state: 'successful' });
    const told = paidNotice(payment, { reference: payment.id, providerReference: 'ws_CO_lost' });
    expect((await h.lifecycle.onCallback(told)).outcome).toBe('unverified');
    await until('paid once the query said so', async () => (await paymentOf(p.id)).state === 'successful');
    expect(h.provider.statuses).toContainEqual({ reference: payment.id, providerReference: 'ws_CO_lost' });
    expect((await paymentOf(p.id)).providerReference).toBe('ws_CO_lost');
    expect(h.provider.collects).toHaveLength(1);
  });

  it('refused or never sent: failed at once, the purchase ended', async () => {
    const h = await harness();
    h.provider.onCollect(async () => {
      throw new ProviderRequestError({
        provider: 'mpesa',
        operation: 'collect',
        code: '400.002.02',
        message: 'Bad Request - Invalid PhoneNumber',
        status: 400,
        outcome: 'rejected',
      });
    });
    const p = await purchase();
    expect((await h.lifecycle.requestPayment(p)).state).toBe('failed');
    expect(h.unpaid).toEqual([{ purchaseId: p.id, reason: 'other' }]);
    const q = await purchase();
    h.provider.onCollect(async () => {
      throw new PaymentTransportError('not_sent', 'ECONNREFUSED');
    });
    expect((await h.lifecycle.requestPayment(q)).state).toBe('failed');
  });
});

describe('payment lifecycle: never confirm without a payment known successful', () => {
  it('paid by callback: the purchase is told once, and only then may it be confirmed', async () => {
    const h = await harness();
    const p = await purchase();
    const payment = await h.lifecycle.requestPayment(p);
    await expect(tryConfirm(p.id)).rejects.toThrow(/its payment is pending/);
    expect((await h.lifecycle.onCallback(paidNotice(payment))).outcome).toBe('applied');
    // The same callback again (Daraja repeats, the sandbox's duplicate_callback): nothing more.
    expect((await h.lifecycle.onCallback(paidNotice(payment))).outcome).toBe('duplicate');
    expect((await payments.noticesOf(payment.id)).map((n) => n.outcome)).toEqual(['applied', 'duplicate']);
    expect(h.paid).toEqual([p.id]);
    expect((await paymentOf(p.id)).receipt).toBe('RKT0001');
    expect((await tryConfirm(p.id)).ok).toBe(true);
  });

  it.each<[string, Partial<PaymentNotice>]>([
    ['another amount', { amount: { currency: 'BWP', minor: 9999 } }],
    ['another currency', { amount: { currency: 'KES', minor: 10000 } }],
    ['no amount', { amount: undefined }],
    ['another reference of ours', { reference: '11111111-2222-4333-8444-555555555555' }],
  ])(
    'a success callback with %s never marks it paid, and the confirm stays refused',
    async (_label, over) => {
      const h = await harness();
      const p = await purchase();
      const payment = await h.lifecycle.requestPayment(p);
      const result = await h.lifecycle.onCallback(paidNotice(payment, over));
      expect(result.outcome).toBe('mismatch');
      expect((await paymentOf(p.id)).state).toBe('pending');
      expect(h.paid).toEqual([]);
      await expect(tryConfirm(p.id)).rejects.toThrow(/cannot be confirmed/);
      expect(await payments.noticesOf(payment.id)).toEqual([
        expect.objectContaining({ outcome: 'mismatch' }),
      ]);
    },
  );

  it('a callback for a reference nobody has is kept unmatched and changes nothing', async () => {
    const h = await harness();
    const result = await h.lifecycle.onCallback({
      type: 'payment',
      state: 'successful',
      providerReference: 'ws_CO_nobody',
      amount: { currency: 'BWP', minor: 10000 },
    });
    expect(result).toEqual({ outcome: 'unmatched', paymentId: null });
  });

  it('a callback faster than the push answer waits, then is applied once the CheckoutRequestID is known', async () => {
    const h = await harness();
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    h.provider.onCollect(async () => {
      await answered;
      return { accepted: true, providerReference: 'ws_CO_fast' };
    });
    const p = await purchase();
    const requesting = h.lifecycle.requestPayment(p);
    await until('the row is written', () => payments.getByPurchase(p.id));
    const early = await h.lifecycle.onCallback({
      type: 'payment',
      state: 'successful',
      providerReference: 'ws_CO_fast',
      amount: p.intent.amount,
      receipt: 'RKT0002',
    });
    expect(early.outcome).toBe('unmatched');
    release();
    await requesting;
    await until('paid', async () => (await paymentOf(p.id)).state === 'successful');
    // The hook runs after the row's commit: wait for it too, then check it ran once.
    await until('the paid hook', () => h.paid.length > 0);
    expect(h.paid).toEqual([p.id]);
  });

  it('a callback kept while the push answer commits is still applied (the key lock: neither misses the other)', async () => {
    const h = await harness();
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    h.provider.onCollect(async () => {
      await answered;
      return { accepted: true, providerReference: 'ws_CO_race' };
    });
    const p = await purchase();
    const requesting = h.lifecycle.requestPayment(p);
    await until('the row is written', () => payments.getByPurchase(p.id));
    // A slow notice insert (a test trigger waits on an advisory lock the test holds): the
    // callback's statement has begun when the push answer commits and looks for early notices.
    await t.db.query(`CREATE FUNCTION hold_notice() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock_shared(4242); RETURN NEW; END $$`);
    await t.db.query(
      'CREATE TRIGGER hold_notice BEFORE INSERT ON payment_notices FOR EACH ROW EXECUTE FUNCTION hold_notice()',
    );
    let unlock!: () => void;
    const unlocked = new Promise<void>((resolve) => (unlock = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = t.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(4242)');
      locked();
      await unlocked;
    });
    try {
      await isLocked;
      const callback = h.lifecycle.onCallback({
        type: 'payment',
        state: 'successful',
        providerReference: 'ws_CO_race',
        amount: p.intent.amount,
        receipt: 'RKT0003',
      });
      await until('the notice waits', async () => {
        const waiting = await t.db.query(
          "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND NOT granted",
        );
        return waiting.rows.length > 0;
      });
      // The callback holds the provider key's lock: the answer's write waits for its commit.
      release();
      await until('the answer waits for the key', async () => {
        const waiting = await t.db.query(
          "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid <> 4242 AND NOT granted",
        );
        return waiting.rows.length > 0;
      });
      expect((await paymentOf(p.id)).state).toBe('requested');
      unlock();
      await holding;
      // The callback's statement saw no key yet: kept unmatched, then applied by the answer.
      expect(await callback).toEqual({ outcome: 'unmatched', paymentId: null });
      await requesting;
      expect((await paymentOf(p.id)).state).toBe('successful');
      expect(h.paid).toEqual([p.id]);
    } finally {
      unlock();
      await holding.catch(() => undefined);
      await t.db.query('DROP TRIGGER IF EXISTS hold_notice ON payment_notices');
      await t.db.query('DROP FUNCTION IF EXISTS hold_notice()');
    }
  });

  it('callback lost: the status query finds the success', async () => {
    const h = await harness();
    let polls = 0;
    h.provider.answerStatus = async () => (++polls < 3 ? { state: 'pending' } : { state: 'successful' });
    const p = await purchase();
    await h.lifecycle.requestPayment(p);
    await until('paid by query', async () => (await paymentOf(p.id)).state === 'successful');
    // The hook runs after the row's commit: wait for it too, then check it ran once.
    await until('the paid hook', () => h.paid.length > 0);
    expect(h.paid).toEqual([p.id]);
  });

  it('out of order: a failure after the success changes nothing; the success stays', async () => {
    const h = await harness();
    const p = await purchase();
    const payment = await h.lifecycle.requestPayment(p);
    await h.lifecycle.onCallback(paidNotice(payment));
    const late = await h.lifecycle.onCallback({ ...paidNotice(payment), state: 'failed', reason: 'expired' });
    expect(late.outcome).toBe('duplicate');
    expect((await paymentOf(p.id)).state).toBe('successful');
    expect(h.unpaid).toEqual([]);
  });

  it('declined: the purchase is ended unpaid and never confirmed', async () => {
    const h = await harness();
    const p = await purchase();
    const payment = await h.lifecycle.requestPayment(p);
    await h.lifecycle.onCallback({
      type: 'payment',
      state: 'failed',
      reason: 'declined',
      providerReference: payment.providerReference!,
    });
    expect(h.unpaid).toEqual([{ purchaseId: p.id, reason: 'declined' }]);
    expect((await purchases.get(p.id))!.state).toBe('failed');
    expect(await paymentDiscrepancies(t.db)).toEqual([]);
  });
});

describe('payment lifecycle: a success only the provider itself vouches for', () => {
  const noticeOutcomes = async (paymentId: string) =>
    (await payments.noticesOf(paymentId)).map((n) => n.outcome);

  it('MoMo: a success callback with our URL key but no money behind it (forged) never marks it paid; its status refutes it', async () => {
    const h = await harness('momo');
    // Nobody paid: MoMo says pending until the payer declines.
    let declined = false;
    h.provider.answerStatus = async () =>
      declined ? { state: 'failed', reason: 'declined' } : { state: 'pending' };
    const p = await purchase();
    const payment = await h.lifecycle.requestPayment(p);
    const forged = await h.lifecycle.onCallback(paidNotice(payment, { reference: payment.id }));
    expect(forged).toEqual({ outcome: 'unverified', paymentId: payment.id });
    // Asked about (MoMo says pending: nobody paid), and still not paid.
    await until('its status asked', () => h.provider.statuses.length >= 2);
    expect((await paymentOf(p.id)).state).toBe('pending');
    expect(h.paid).toEqual([]);
    await expect(tryConfirm(p.id)).rejects.toThrow(/its payment is pending/);
    // The payer declines: the payment fails, the forged notice is refuted, nothing was ever paid.
    declined = true;
    await until('failed', async () => (await paymentOf(p.id)).state === 'failed');
    await until('the forged notice refuted', async () =>
      (await noticeOutcomes(payment.id)).includes('refuted'),
    );
    expect(h.paid).toEqual([]);
    expect(h.unpaid).toEqual([{ purchaseId: p.id, reason: 'declined' }]);
    expect(h.provider.refunds).toEqual([]);
  });

  it('MoMo: a real success callback is applied once its status says paid: told once, with its receipt', async () => {
    const h = await harness('momo');
    const p = await purchase();
    const payment = await h.lifecycle.requestPayment(p);
    h.provider.answerStatus = async () => ({
      state: 'successful',
      amount: payment.amount,
      receipt: 'MOMO-1',
    });
    expect((await h.lifecycle.onCallback(paidNotice(payment, { reference: payment.id }))).outcome).toBe(
      'unverified',
    );
    await until('paid', async () => (await paymentOf(p.id)).state === 'successful');
    await until('the paid hook', () => h.paid.length > 0);
    expect(h.paid).toEqual([p.id]);
    // Applied once its status said so, or moot when the payment's own poll asked first.
    await until('the notice settled', async () =>
      ['applied', 'duplicate'].includes((await noticeOutcomes(payment.id))[0]),
    );
    expect(['RKT0001', 'MOMO-1']).toContain((await paymentOf(p.id)).receipt);
  });

  it('MoMo: a forged success for a payment already failed is refuted: no refund of money never taken', async () => {
    const h = await harness('momo');
    const p = await purchase();
    const payment = await h.lifecycle.requestPayment(p);
    h.provider.answerStatus = async () => ({ state: 'failed', reason: 'declined' });
    await h.lifecycle.onCallback({
      ...paidNotice(payment, { reference: payment.id }),
      state: 'failed',
      reason: 'declined',
    });
    expect((await paymentOf(p.id)).state).toBe('failed');
    expect((await h.lifecycle.onCallback(paidNotice(payment, { reference: payment.id }))).outcome).toBe(
      'unverified',
    );
    await until('refuted', async () => (await noticeOutcomes(payment.id)).includes('refuted'));
    expect((await paymentOf(p.id)).state).toBe('failed');
    expect(h.provider.refunds).toEqual([]);
  });
});

describe('payment lifecycle: success signals a payment did not take are care items', () => {
  const listed = async () => (await payments.unmatchedSuccesses(0, 50)).notices;

  it.each(['failed', 'unknown'] as const)(
    'a success callback of another amount for a %s payment is listed for care, with its payment',
    async (state) => {
      const h = await harness();
      const p = await purchase();
      const payment = await h.lifecycle.requestPayment(p);
      if (state === 'failed')
        await h.lifecycle.onCallback({ ...paidNotice(payment), state: 'failed', reason: 'expired' });
      else
        await until('unknown', async () => (await paymentOf(p.id)).state === 'unknown', { timeoutMs: 5_000 });
      const wrong = { currency: p.intent.amount.currency, minor: p.intent.amount.minor + 1 };
      expect((await h.lifecycle.onCallback(paidNotice(payment, { amount: wrong }))).outcome).toBe('mismatch');
      await until('listed', async () => (await listed()).length === 1);
      expect(await listed()).toEqual([
        expect.objectContaining({
          why: 'mismatch',
          paymentId: payment.id,
          paymentState: state,
          amount: wrong,
          receipt: 'RKT0001',
        }),
      ]);
      expect((await paymentOf(p.id)).state).toBe(state);
      expect(h.paid).toEqual([]);
    },
  );

  it('a success status answer dropped because a failure callback landed first is listed for care', async () => {
    const h = await harness();
    let asked!: () => void;
    const isAsked = new Promise<void>((resolve) => (asked = resolve));
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    h.provider.answerStatus = async () => {
      asked();
      await answered;
      return { state: 'successful' };
    };
    const p = await purchase();
    const payment = await h.lifecycle.requestPayment(p);
    await isAsked;
    // While the status query is out, the provider's failure callback lands and decides it.
    await h.lifecycle.onCallback({ ...paidNotice(payment), state: 'failed', reason: 'declined' });
    expect((await paymentOf(p.id)).state).toBe('failed');
    answer();
    await until('listed', async () => (await listed()).length === 1);
    expect(await listed()).toEqual([
      expect.objectContaining({
        why: 'overruled',
        paymentId: payment.id,
        paymentState: 'failed',
        amount: p.intent.amount,
        providerReference: payment.providerReference,
      }),
    ]);
    // Nothing moved: the failure stands until a person decides.
    expect((await paymentOf(p.id)).state).toBe('failed');
    expect(h.provider.refunds).toEqual([]);
    // Resolved by care, it leaves the list.
    const [item] = await listed();
    const resolved = await payments.resolveUnmatched(
      item.id,
      'ops-anna',
      'checked with Safaricom: not paid',
      0,
    );
    expect(resolved.resolved).toBe(true);
    expect(await listed()).toEqual([]);
  });
});

describe('payment lifecycle: refunds', () => {
  async function paidThenVendFailed(h: Harness): Promise<PurchaseRecord> {
    const p = await purchase();
    const payment = await h.lifecycle.requestPayment(p);
    await h.lifecycle.onCallback(paidNotice(payment));
    const confirming = await tryConfirm(p.id);
    if (!confirming.ok) throw new Error('confirm refused');
    // The purchase service refused the vend: failed, charged: false (definitive).
    await purchases.transition(p.id, ['confirming'], 'failed', confirming.record.version, {
      failure: { code: 'meter_blocked', message: 'Meter is blocked', charged: false },
    });
    return p;
  }

  it('paid, then the vend failed definitively: one refund, even asked five times at once', async () => {
    const h = await harness();
    h.provider.answerRefund = async () => ({ state: 'successful', providerReference: 'AG_9' });
    const p = await paidThenVendFailed(h);
    await Promise.all(Array.from({ length: 5 }, () => h.lifecycle.refundIfDue(p.id)));
    expect(h.provider.refunds).toHaveLength(1);
    expect(h.provider.refunds[0]).toMatchObject({ amount: p.intent.amount, receipt: 'RKT0001' });
    expect((await paymentOf(p.id)).state).toBe('refunded');
    expect(h.refunded).toEqual([p.id]);
    const rows = await t.db.query('SELECT state FROM payment_refunds WHERE purchase_id = $1', [p.id]);
    expect(rows.rows).toEqual([{ state: 'refunded' }]);
  });

  it('two instances refunding at once: one refund row, one provider call', async () => {
    const a = await harness();
    const b = await harness('mpesa', a.provider);
    a.provider.answerRefund = async () => ({ state: 'successful', providerReference: 'AG_8' });
    const p = await paidThenVendFailed(a);
    await Promise.all([
      a.lifecycle.refundIfDue(p.id),
      b.lifecycle.refundIfDue(p.id),
      a.lifecycle.refundIfDue(p.id),
    ]);
    expect(a.provider.refunds).toHaveLength(1);
  });

  it('never for a purchase that might have issued a token (vend outcome unknown)', async () => {
    const h = await harness();
    const p = await purchase();
    const payment = await h.lifecycle.requestPayment(p);
    await h.lifecycle.onCallback(paidNotice(payment));
    const confirming = await tryConfirm(p.id);
    if (!confirming.ok) throw new Error('confirm refused');
    await purchases.transition(p.id, ['confirming'], 'unknown', confirming.record.version);
    expect((await h.lifecycle.refundIfDue(p.id))!.state).toBe('successful');
    expect(h.provider.refunds).toHaveLength(0);
  });

  it('money after the purchase was ended (a late success) is given back automatically', async () => {
    const h = await harness();
    const p = await purchase();
    const payment = await h.lifecycle.requestPayment(p);
    // No answer in the window: unknown, the purchase ended unpaid.
    await until('unknown', async () => (await paymentOf(p.id)).state === 'unknown', { timeoutMs: 5_000 });
    await until('the purchase is ended', async () => (await purchases.get(p.id))!.state === 'failed');
    h.provider.answerRefund = async () => ({ state: 'successful', providerReference: 'AG_7' });
    expect((await h.lifecycle.onCallback(paidNotice(payment))).outcome).toBe('applied');
    await until('refunded', async () => (await paymentOf(p.id)).state === 'refunded');
    expect(h.paid).toEqual([]);
    expect((await paymentOf(p.id)).refund?.reason).toBe('late_payment');
    expect(await paymentDiscrepancies(t.db)).toEqual([]);
  });

  it('a refund the provider refuses, or never answers, goes to care', async () => {
    const h = await harness();
    h.provider.answerRefund = async () => ({ state: 'failed', providerReference: null, detail: 'R000002' });
    const refused = await paidThenVendFailed(h);
    await h.lifecycle.refundIfDue(refused.id);
    expect((await paymentOf(refused.id)).state).toBe('refund_failed');
    h.provider.answerRefund = async () => ({ state: 'pending', providerReference: 'AG_silent' });
    const silent = await paidThenVendFailed(h);
    await h.lifecycle.refundIfDue(silent.id);
    await until('needs attention', async () => (await paymentOf(silent.id)).state === 'needs_attention');
    expect(h.care).toEqual([refused.id, silent.id]);
    // A late answer by callback still settles it.
    const late = await h.lifecycle.onCallback({
      type: 'refund',
      state: 'successful',
      providerReference: 'AG_silent',
    });
    expect(late.outcome).toBe('applied');
    expect((await paymentOf(silent.id)).state).toBe('refunded');
  });

  it('a crash after the sweep found money kept for an ended purchase: the sweep gives it back once', async () => {
    const h = await harness();
    h.provider.answerRefund = async () => ({ state: 'successful', providerReference: 'AG_6' });
    const p = await paidThenVendFailed(h);
    await Promise.all([h.lifecycle.resumeStuck(), h.lifecycle.resumeStuck()]);
    await until('refunded', async () => (await paymentOf(p.id)).state === 'refunded');
    expect(h.provider.refunds).toHaveLength(1);
  });
});
