import { randomUUID } from 'node:crypto';
import {
  decidePayment,
  type PaymentEvent,
  type PaymentLifecycleSettings,
} from '../../src/payments/lifecycle/machine';
import { maskPaymentPersonalData, paymentDiscrepancies } from '../../src/payments/store/checks';
import { ledgerCheck } from '../../src/reports/ledger-check';
import { RefundNotAllowedError, SqlPaymentStore } from '../../src/payments/store/sql';
import { newPaymentRecord, type PaymentRecord } from '../../src/payments/store/types';
import { SqlPurchaseStore } from '../../src/purchases/store';
import type { PurchaseIntent, PurchaseRecord } from '../../src/purchases/types';
import { testDatabase, type TestDatabase } from '../support/database';
import { intent, record } from '../purchases/fixtures';

const settings: PaymentLifecycleSettings = {
  requestTimeoutMs: 30_000,
  lostMarginMs: 5_000,
  windowMs: 90_000,
  marginMs: 30_000,
  pollBaseMs: 8_000,
  pollMaxMs: 60_000,
  resendSafe: false,
  maxRequestAttempts: 2,
  refundDeadlineMs: 1_800_000,
  recheckForMs: 86_400_000,
  recheckEveryMs: 300_000,
};

let t: TestDatabase;
let payments: SqlPaymentStore;
let purchases: SqlPurchaseStore;

beforeAll(async () => {
  t = await testDatabase('payments');
  payments = new SqlPaymentStore({ db: t.db });
  purchases = new SqlPurchaseStore({ db: t.db });
});
afterAll(() => t.cleanup());

const now = () => new Date().toISOString();

async function purchase(over: Partial<PurchaseRecord> = {}): Promise<PurchaseRecord> {
  const created = await purchases.create(record(over));
  return created.record;
}

function paymentFor(p: PurchaseRecord, id = randomUUID()): PaymentRecord {
  return newPaymentRecord({
    id,
    purchaseId: p.id,
    provider: 'mpesa',
    payerMsisdn: p.intent.requesterMsisdn,
    amount: p.intent.amount,
    description: 'Electricity',
    requestedAt: now(),
    expiresAt: new Date(Date.now() + 120_000).toISOString(),
  });
}

/** Feed events to the machine and write each decision, as the lifecycle does. */
async function drive(payment: PaymentRecord, ...events: PaymentEvent[]): Promise<PaymentRecord> {
  let current = payment;
  for (const event of events) {
    const decision = decidePayment(current, event, settings);
    if (!decision) throw new Error(`${current.state} does not take ${event.type}`);
    const written = await payments.transition(current, decision.next);
    if (!written.ok) throw new Error('lost a race');
    current = written.record;
  }
  return current;
}

const accepted: PaymentEvent = { type: 'REQUEST_ACCEPTED', providerReference: null, at: now(), random: 0 };
const paidStatus: PaymentEvent = { type: 'STATUS', status: { state: 'successful' }, at: now(), random: 0 };
const refundStart = (): PaymentEvent => ({
  type: 'REFUND_START',
  refundId: randomUUID(),
  reason: 'vend_failed',
  at: now(),
});

async function paidPayment(p: PurchaseRecord): Promise<PaymentRecord> {
  const created = await payments.create(paymentFor(p));
  if (!created.record) throw new Error('no payment');
  return drive(created.record, accepted, paidStatus);
}

/** The purchase side's own moves, written with its store (no machine needed for these). */
async function move(p: PurchaseRecord, to: PurchaseRecord['state'], patch: Partial<PurchaseRecord> = {}) {
  const moved = await purchases.transition(p.id, [p.state], to, p.version, patch);
  if (!moved.ok) throw new Error(`purchase ${p.id} did not move`);
  return moved.record;
}

describe('payments in the records: one request per purchase', () => {
  it('two instances writing the payment of one purchase at once: one row, one sender', async () => {
    const p = await purchase();
    const results = await Promise.all(Array.from({ length: 6 }, () => payments.create(paymentFor(p))));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const winner = results.find((r) => r.created)!.record!;
    for (const r of results) expect(r.record?.id).toBe(winner.id);
    const rows = await t.db.query('SELECT id FROM payments WHERE purchase_id = $1', [p.id]);
    expect(rows.rows).toHaveLength(1);
  });

  it('the database itself refuses a second payment row for a purchase', async () => {
    const p = await purchase();
    await payments.create(paymentFor(p));
    await expect(
      t.db.query(
        `INSERT INTO payments (id, purchase_id, provider, payer_msisdn, currency, amount_minor, state, version,
           requested_at, updated_at, expires_at, record)
         VALUES ($1, $2, 'mpesa', '1', 'BWP', 100, 'requested', 1, now(), now(), now(), '{}')`,
        [randomUUID(), p.id],
      ),
    ).rejects.toThrow(/payments_purchase_id_key/);
  });

  it('no payment for a purchase that is not created, or was ever confirmed', async () => {
    const agentSale = await purchase();
    const confirming = await move(agentSale, 'confirming', { confirmAttempts: 1 });
    expect(await payments.create(paymentFor(confirming))).toEqual({ created: false, record: null });
    expect(await payments.create(paymentFor(record({ id: 'no-such-purchase' })))).toEqual({
      created: false,
      record: null,
    });
  });

  it('asking for the payment marks the purchase payment_required, which is never cleared', async () => {
    const p = await purchase();
    await payments.create(paymentFor(p));
    const row = await t.db.query<{ payment_required: boolean }>(
      'SELECT payment_required FROM purchases WHERE id = $1',
      [p.id],
    );
    expect(row.rows[0].payment_required).toBe(true);
    await expect(
      t.db.query('UPDATE purchases SET payment_required = false WHERE id = $1', [p.id]),
    ).rejects.toThrow(/cannot be cleared/);
  });
});

describe('payments in the records: never confirm before the payment is successful', () => {
  const paying = (): PurchaseIntent => ({ ...intent(), paymentRequired: true }) as PurchaseIntent;

  it('a purchase written with intent.paymentRequired is guarded from its first commit', async () => {
    const p = await purchase({ intent: paying() });
    // No payment at all yet: the database refuses the confirm step.
    await expect(
      purchases.transition(p.id, ['created'], 'confirming', 1, { confirmAttempts: 1 }),
    ).rejects.toThrow(/cannot be confirmed: its payment is not requested/);
    expect((await purchases.get(p.id))!.state).toBe('created');
  });

  it.each<[string, PaymentEvent[]]>([
    ['requested', []],
    ['pending', [accepted]],
    ['failed', [{ type: 'STATUS', status: { state: 'failed', reason: 'declined' }, at: now(), random: 0 }]],
    ['unknown', [accepted, { type: 'DEADLINE', at: new Date(Date.now() + 200_000).toISOString() }]],
  ])('refused while the payment is %s', async (state, events) => {
    const p = await purchase({ intent: paying() });
    const created = await payments.create(paymentFor(p));
    const moved = await drive(created.record!, ...(state === 'failed' ? [accepted, ...events] : events));
    expect(moved.state).toBe(state);
    await expect(
      purchases.transition(p.id, ['created'], 'confirming', 1, { confirmAttempts: 1 }),
    ).rejects.toThrow(`its payment is ${state}`);
  });

  it('allowed once the payment is successful; a purchase without collection (agent sale) as today', async () => {
    const p = await purchase({ intent: paying() });
    await paidPayment(p);
    expect((await purchases.transition(p.id, ['created'], 'confirming', 1, { confirmAttempts: 1 })).ok).toBe(
      true,
    );
    const agentSale = await purchase();
    expect((await purchases.transition(agentSale.id, ['created'], 'confirming', 1)).ok).toBe(true);
  });

  it('refused while the payment is being refunded', async () => {
    const p = await purchase({ intent: paying() });
    const paid = await paidPayment(p);
    const failed = await move(p, 'failed', {
      failure: { code: 'payment_failed', message: 'x', charged: false },
    });
    await drive(paid, refundStart());
    // Even a purchase put back by hand to created is not confirmed with its money on the way back.
    await t.db.query(`UPDATE purchases SET state = 'created' WHERE id = $1`, [failed.id]);
    await expect(
      t.db.query(`UPDATE purchases SET state = 'confirming' WHERE id = $1`, [failed.id]),
    ).rejects.toThrow(/its payment is refund_requested/);
  });
});

describe('payments in the records: a refund only when no token can have been issued, once', () => {
  async function refundOf(p: PurchaseRecord): Promise<PaymentRecord> {
    const paid = (await payments.getByPurchase(p.id)) ?? (await paidPayment(p));
    return drive(paid, refundStart());
  }

  it.each<[string, Partial<PurchaseRecord> & { state: PurchaseRecord['state'] }]>([
    ['created', { state: 'created' }],
    ['confirming', { state: 'confirming', confirmAttempts: 1 }],
    ['succeeded', { state: 'succeeded', confirmAttempts: 1 }],
    [
      'failed, charged unknown',
      {
        state: 'failed',
        confirmAttempts: 1,
        failure: { code: 'reconcile_deadline', message: 'x', charged: 'unknown' },
      },
    ],
    [
      'failed "no charge found", still re-checked',
      {
        state: 'failed',
        confirmAttempts: 1,
        failure: { code: 'transaction_not_found', message: 'x', charged: false },
        recheckUntil: new Date(Date.now() + 3600_000).toISOString(),
      },
    ],
    ['needs_attention', { state: 'needs_attention', confirmAttempts: 1 }],
  ])('refused for a purchase %s', async (_label, purchaseState) => {
    const p = await purchase();
    const paid = await paidPayment(p);
    const { state, ...patch } = purchaseState;
    // The purchase side's moves, written directly (this test is about what the database allows).
    await t.db.query(`UPDATE purchases SET state = $2, record = record || $3::jsonb WHERE id = $1`, [
      p.id,
      state,
      JSON.stringify({ ...patch, state }),
    ]);
    await expect(drive(paid, refundStart())).rejects.toThrow(RefundNotAllowedError);
    expect((await payments.get(paid.id))!.state).toBe('successful');
    expect(
      (await t.db.query('SELECT 1 FROM payment_refunds WHERE payment_id = $1', [paid.id])).rows,
    ).toHaveLength(0);
  });

  it.each<[string, Partial<PurchaseRecord>]>([
    ['never confirmed (ended unpaid, money came late)', { confirmAttempts: 0 }],
    [
      'failed definitively (charged: false)',
      { confirmAttempts: 1, failure: { code: 'meter_blocked', message: 'x', charged: false } },
    ],
    [
      '"no charge found" whose re-checks are over',
      {
        confirmAttempts: 1,
        failure: { code: 'transaction_not_found', message: 'x', charged: false },
        recheckUntil: new Date(Date.now() - 1000).toISOString(),
      },
    ],
  ])('allowed for a purchase %s, and only once', async (_label, patch) => {
    const p = await purchase();
    const paid = await paidPayment(p);
    await t.db.query(`UPDATE purchases SET state = 'failed', record = record || $2::jsonb WHERE id = $1`, [
      p.id,
      JSON.stringify({
        failure: { code: 'payment_failed', message: 'x', charged: false },
        ...patch,
        state: 'failed',
      }),
    ]);
    const refunding = await refundOf(p);
    expect(refunding.state).toBe('refund_requested');
    const row = await t.db.query<{ state: string; amount_minor: string }>(
      'SELECT state, amount_minor::text FROM payment_refunds WHERE payment_id = $1',
      [paid.id],
    );
    expect(row.rows).toEqual([{ state: 'requested', amount_minor: String(p.intent.amount.minor) }]);
    // A stale copy of the successful payment cannot start a second refund: the compare-and-set
    // refuses it, and a raw second row is refused by the database.
    const stale = decidePayment(paid, refundStart(), settings)!;
    expect((await payments.transition(paid, stale.next)).ok).toBe(false);
    await expect(
      t.db.query(
        `INSERT INTO payment_refunds (id, payment_id, purchase_id, state, currency, amount_minor, reason, requested_at, updated_at)
         VALUES ($1, $2, $3, 'requested', 'BWP', $4, 'vend_failed', now(), now())`,
        [randomUUID(), paid.id, p.id, p.intent.amount.minor],
      ),
    ).rejects.toThrow(/payment_refunds_payment_id_key/);
  });

  it('a late success and a refund exclude each other: whichever commits first wins', async () => {
    const noChargeFound = {
      confirmAttempts: 1,
      failure: { code: 'transaction_not_found', message: 'x', charged: false },
      recheckUntil: new Date(Date.now() - 1000).toISOString(),
      state: 'failed',
    };
    // The refund first: the purchase cannot become succeeded any more.
    const refundedFirst = await purchase();
    await paidPayment(refundedFirst);
    await t.db.query(`UPDATE purchases SET state = 'failed', record = record || $2::jsonb WHERE id = $1`, [
      refundedFirst.id,
      JSON.stringify(noChargeFound),
    ]);
    expect((await refundOf(refundedFirst)).state).toBe('refund_requested');
    await expect(
      t.db.query(`UPDATE purchases SET state = 'succeeded' WHERE id = $1`, [refundedFirst.id]),
    ).rejects.toThrow(/cannot succeed: its payment is being refunded/);
    // The late success noted first: no refund can start.
    const lateFirst = await purchase();
    const paid = await paidPayment(lateFirst);
    await t.db.query(`UPDATE purchases SET state = 'failed', record = record || $2::jsonb WHERE id = $1`, [
      lateFirst.id,
      JSON.stringify(noChargeFound),
    ]);
    const store = new SqlPurchaseStore({ db: t.db });
    expect(
      await store.noteLateSuccess(lateFirst.id, {
        at: new Date().toISOString(),
        reference: 'TOP/1',
        transactionId: 1,
      }),
    ).toBe(true);
    await expect(drive(paid, refundStart())).rejects.toThrow(RefundNotAllowedError);
    expect(
      (await t.db.query('SELECT 1 FROM payment_refunds WHERE payment_id = $1', [paid.id])).rows,
    ).toHaveLength(0);
  });

  it('a refund of another amount is refused', async () => {
    const p = await purchase({ confirmAttempts: 0 });
    const paid = await paidPayment(p);
    await t.db.query(`UPDATE purchases SET state = 'failed' WHERE id = $1`, [p.id]);
    await expect(
      t.db.query(
        `INSERT INTO payment_refunds (id, payment_id, purchase_id, state, currency, amount_minor, reason, requested_at, updated_at)
         VALUES ($1, $2, $3, 'requested', 'BWP', 1, 'vend_failed', now(), now())`,
        [randomUUID(), paid.id, p.id],
      ),
    ).rejects.toThrow(/whole payment/);
  });

  it('the refund row follows the payment to refunded', async () => {
    const p = await purchase();
    const paid = await paidPayment(p);
    await move(p, 'failed', { failure: { code: 'payment_failed', message: 'x', charged: false } });
    const refunding = await drive(paid, refundStart());
    const refunded = await drive(refunding, {
      type: 'REFUND_ANSWER',
      status: { state: 'successful', providerReference: 'AG_1' },
      at: now(),
      random: 0,
    });
    expect(refunded.state).toBe('refunded');
    const row = await t.db.query<{ state: string; provider_reference: string }>(
      'SELECT state, provider_reference FROM payment_refunds WHERE payment_id = $1',
      [paid.id],
    );
    expect(row.rows).toEqual([{ state: 'refunded', provider_reference: 'AG_1' }]);
    expect(
      (await payments.getByRefund({ provider: 'mpesa', refundReference: refunded.refund!.id }))?.id,
    ).toBe(paid.id);
    expect((await payments.getByRefund({ provider: 'mpesa', providerReference: 'AG_1' }))?.id).toBe(paid.id);
    // Another provider's key of the same text names nothing of this provider's.
    expect(await payments.getByRefund({ provider: 'momo', providerReference: 'AG_1' })).toBeNull();
  });

  it("a refund whose own key is unknown is found by its payment's receipt, of that provider only", async () => {
    const p = await purchase();
    const created = await payments.create(paymentFor(p));
    const receipt = `RCPT${Date.now().toString(36).toUpperCase()}`;
    const paid = await drive(created.record!, accepted, {
      ...paidStatus,
      status: { state: 'successful', receipt },
    });
    await move(p, 'failed', { failure: { code: 'payment_failed', message: 'x', charged: false } });
    await drive(paid, refundStart());
    // The reversal's answer (its key) never came: the result names the payment's receipt.
    expect((await payments.getByRefund({ provider: 'mpesa', paymentReceipt: receipt }))?.id).toBe(paid.id);
    expect(await payments.getByRefund({ provider: 'momo', paymentReceipt: receipt })).toBeNull();
    expect(await payments.getByRefund({ provider: 'mpesa', paymentReceipt: `${receipt}X` })).toBeNull();
  });
});

describe('payments in the records: history, notices, checks', () => {
  it('keeps every transition, append-only', async () => {
    const p = await purchase();
    const paid = await paidPayment(p);
    const history = await t.db.query<{ version: number; from_state: string | null; to_state: string }>(
      'SELECT version, from_state, to_state FROM payment_transitions WHERE payment_id = $1 ORDER BY version',
      [paid.id],
    );
    expect(history.rows).toEqual([
      { version: 1, from_state: null, to_state: 'requested' },
      { version: 2, from_state: 'requested', to_state: 'pending' },
      { version: 3, from_state: 'pending', to_state: 'successful' },
    ]);
    await expect(
      t.db.query(`UPDATE payment_transitions SET to_state = 'failed' WHERE payment_id = $1`, [paid.id]),
    ).rejects.toThrow(/append-only/);
  });

  it('keeps notices: an unmatched one waits for its provider reference', async () => {
    const id = await payments.recordNotice('mpesa', {
      type: 'payment',
      state: 'successful',
      providerReference: 'ws_CO_early',
    });
    expect(await payments.unmatchedNotices('mpesa', 'ws_CO_early')).toEqual([
      { id, notice: { type: 'payment', state: 'successful', providerReference: 'ws_CO_early' } },
    ]);
    const p = await purchase();
    const paid = await paidPayment(p);
    await payments.settleNotice(id, paid.id, 'applied');
    expect(await payments.unmatchedNotices('mpesa', 'ws_CO_early')).toEqual([]);
    expect(await payments.noticesOf(paid.id)).toHaveLength(1);
  });

  it('a callback in two writes (issue 29): kept with the payment it names read, then noted applied by the move', async () => {
    const p = await purchase();
    const pending = await drive((await payments.create(paymentFor(p))).record!, accepted);
    const notice = { type: 'payment' as const, state: 'successful' as const, reference: pending.id };
    const kept = await payments.keepNotice('mpesa', notice);
    expect(kept.payment).toEqual(pending);
    // A stale move writes nothing and notes nothing: the notice stays unmatched.
    const paid = decidePayment(pending, paidStatus, settings)!;
    const stale = { ...pending, version: pending.version - 1 };
    expect((await payments.transition(stale, paid.next, kept.id)).ok).toBe(false);
    expect(await payments.noticesOf(pending.id)).toEqual([]);
    // The move and its note commit together.
    const moved = await payments.transition(pending, paid.next, kept.id);
    expect(moved.ok && moved.record.state).toBe('successful');
    expect(await payments.noticesOf(pending.id)).toEqual([{ outcome: 'applied', notice }]);
    // Handled again (the callback's re-read and the push answer's early-notice look both found
    // it): `applied` stays, a later `duplicate` does not overwrite what the notice did.
    await payments.settleNotice(kept.id, pending.id, 'duplicate');
    expect(await payments.noticesOf(pending.id)).toEqual([{ outcome: 'applied', notice }]);
    // Named by the provider's key when the reference is not ours; a refund's notice is only kept.
    const byKey = await payments.keepNotice('mpesa', {
      type: 'payment',
      state: 'successful',
      providerReference: 'none-such',
    });
    expect(byKey.payment).toBeNull();
    const refund = await payments.keepNotice('mpesa', {
      type: 'refund',
      state: 'successful',
      refundReference: pending.id,
      providerReference: null,
    });
    expect(refund.payment).toBeNull();
  });

  it('paymentDiscrepancies: collected − refunded equals what was sold (0 or the total)', async () => {
    await t.db.query('TRUNCATE purchases CASCADE');
    const paying = { intent: { ...intent(), paymentRequired: true } as PurchaseIntent };
    // sold and paid
    const sold = await purchase(paying);
    await paidPayment(sold);
    const confirming = await move(sold, 'confirming', { confirmAttempts: 1 });
    await move(confirming, 'succeeded');
    // not paid, not sold
    const unpaid = await purchase(paying);
    const declined = await payments.create(paymentFor(unpaid));
    await drive(declined.record!, {
      type: 'CALLBACK',
      notice: { type: 'payment', state: 'failed', reason: 'declined' },
      vouched: true,
      at: now(),
    });
    await move(unpaid, 'failed', { failure: { code: 'payment_failed', message: 'x', charged: false } });
    // paid late, not sold, not refunded yet
    const late = await purchase(paying);
    const latePaid = await paidPayment(late);
    await move(late, 'failed', { failure: { code: 'payment_failed', message: 'x', charged: false } });
    // paid, not sold, refunded
    const returned = await purchase(paying);
    const returnedPaid = await paidPayment(returned);
    await move(returned, 'failed', { failure: { code: 'payment_failed', message: 'x', charged: false } });
    await drive(returnedPaid, refundStart(), {
      type: 'REFUND_ANSWER',
      status: { state: 'successful', providerReference: null },
      at: now(),
      random: 0,
    });

    const found = await paymentDiscrepancies(t.db);
    expect(found).toEqual([
      expect.objectContaining({
        purchaseId: late.id,
        paymentId: latePaid.id,
        kind: 'refund_owed',
        collectedMinor: 10000,
        refundedMinor: 0,
        soldMinor: 0,
      }),
    ]);
    // `npm run cli -- ledger check` reports it too.
    const problems = await ledgerCheck(t.db, { paymentsSettledBefore: new Date(Date.now() + 60_000) });
    expect(problems).toEqual([expect.objectContaining({ kind: 'purchase_payment', purchaseId: late.id })]);
    // Once its refund is confirmed, nothing is left.
    await drive(latePaid, refundStart(), {
      type: 'REFUND_ANSWER',
      status: { state: 'successful', providerReference: null },
      at: now(),
      random: 0,
    });
    expect(await paymentDiscrepancies(t.db)).toEqual([]);
    // Before a date: only purchases settled earlier are judged.
    expect(await paymentDiscrepancies(t.db, { settledBefore: new Date(0) })).toEqual([]);
  });

  it('masks the payer of decided payments, keeping the money', async () => {
    const p = await purchase();
    const paid = await paidPayment(p);
    expect(await maskPaymentPersonalData(t.db, new Date(Date.now() + 1000))).toBeGreaterThanOrEqual(1);
    const masked = await payments.get(paid.id);
    expect(masked).toMatchObject({ payerMsisdn: '***', amount: p.intent.amount, state: 'successful' });
  });
});
