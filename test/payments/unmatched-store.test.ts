import { randomUUID } from 'node:crypto';
import { paymentLifecycleSettings } from '../../src/payments/lifecycle/settings';
import type { PaymentNotice, ProviderNotice } from '../../src/payments/port';
import { SqlPaymentStore } from '../../src/payments/store/sql';
import { newPaymentRecord } from '../../src/payments/store/types';
import {
  matchableForMs,
  UnmatchedNotFoundError,
  UnmatchedPayments,
  UnmatchedStateError,
} from '../../src/payments/unmatched';
import { SqlAuditTrail } from '../../src/purchases/care/audit-sql';
import { CareInputError } from '../../src/purchases/care/care';
import { SqlPurchaseStore } from '../../src/purchases/store';
import type { Database } from '../../src/records/database';
import { record } from '../purchases/fixtures';
import { testDatabase, testPglite } from '../support/database';

/**
 * The view of success notices no payment of ours took (src/payments/unmatched.ts over
 * `SqlPaymentStore.unmatchedSuccesses`) and care's resolution of one (`resolveUnmatched`), on
 * both engines: notices kept by the store as the callback route keeps them, at set times, then
 * settled as the lifecycle settles them.
 */

const HOUR = 3_600_000;
/** The store's "now": every notice's age is exact, whatever the machine's speed. */
const NOW = new Date('2026-11-25T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const MPESA = paymentLifecycleSettings('mpesa');

const paid = (ref: string, payer: string, minor: number): PaymentNotice => ({
  type: 'payment',
  state: 'successful',
  providerReference: ref,
  amount: { currency: 'KES', minor },
  receipt: `R${ref.slice(-6).toUpperCase()}`,
  payerMsisdn: payer,
  detail: '0 The service request is processed successfully.',
});

it('the default age is the longest a notice may still be matched: + the re-checks where a push is sent once', () => {
  // Daraja: a lost push's callback is adopted by payer and amount while its payment is unknown.
  expect(matchableForMs(MPESA)).toBe(90_000 + 60_000 + 24 * HOUR);
  // MoMo echoes our reference: matched as it comes, or never.
  expect(matchableForMs(paymentLifecycleSettings('momo'))).toBe(300_000 + 60_000);
});

describe.each([
  ['PostgreSQL', async () => testDatabase('unmatched')],
  ['PGlite', async () => testPglite()],
])('on %s', (_engine, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  let view: UnmatchedPayments;
  let store: SqlPaymentStore;
  let audit: SqlAuditTrail;
  let paymentId: string;
  const ids: Record<string, string> = {};

  /** Keep a notice as the callback route does, received `age` before NOW. */
  const keep = async (name: string, age: number, notice: ProviderNotice) => {
    const at = new SqlPaymentStore({ db, clock: () => ago(age) });
    ids[name] = (await at.keepNotice('mpesa', notice)).id;
  };

  beforeAll(async () => {
    ({ db, cleanup } = await open());
    store = new SqlPaymentStore({ db, clock: () => NOW });
    audit = new SqlAuditTrail(db, () => NOW);
    view = new UnmatchedPayments(store, matchableForMs(MPESA), audit);
    // A payment of ours, for the notices that were matched to it.
    const purchase = (await new SqlPurchaseStore({ db }).create(record())).record;
    const payment = newPaymentRecord({
      id: randomUUID(),
      purchaseId: purchase.id,
      provider: 'mpesa',
      payerMsisdn: purchase.intent.requesterMsisdn,
      amount: purchase.intent.amount,
      description: 'Electricity',
      requestedAt: ago(30 * HOUR).toISOString(),
      expiresAt: ago(30 * HOUR - 150_000).toISOString(),
    });
    expect((await store.create(payment)).created).toBe(true);
    paymentId = payment.id;

    await keep('oldest', 30 * HOUR, paid('ws_CO_oldest', '254700000001', 10_000));
    await keep('old', 25 * HOUR, paid('ws_CO_old', '254700000002', 25_050));
    // Young: a lost push's payment may still adopt it (its re-checks last a day).
    await keep('young', HOUR, paid('ws_CO_young', '254700000003', 5_000));
    // Old enough, but no money: a decline names no payment of ours either.
    await keep('declined', 26 * HOUR, {
      type: 'payment',
      state: 'failed',
      reason: 'declined',
      providerReference: 'ws_CO_declined',
    });
    // A refund's result no refund of ours took: not a buyer's payment.
    await keep('refund', 26 * HOUR, {
      type: 'refund',
      state: 'successful',
      providerReference: 'AG_refund',
      amount: { currency: 'KES', minor: 10_000 },
    });
    // Successes that were taken, each as the lifecycle notes it.
    for (const outcome of ['applied', 'duplicate', 'mismatch'] as const) {
      await keep(outcome, 27 * HOUR, paid(`ws_CO_${outcome}`, '254700000009', 10_000));
      await store.settleNotice(ids[outcome], paymentId, outcome);
    }
  });
  afterAll(() => cleanup());

  it('lists unmatched successes past their matching time, newest first, with what a person needs', async () => {
    const listed = await view.list();
    expect(listed).toEqual({
      olderThanMs: matchableForMs(MPESA),
      total: 2,
      count: 2,
      notices: [
        {
          id: ids.old,
          provider: 'mpesa',
          why: 'no_payment',
          paymentId: null,
          paymentState: null,
          receivedAt: ago(25 * HOUR).toISOString(),
          providerReference: 'ws_CO_old',
          reference: null,
          amount: { currency: 'KES', minor: 25_050 },
          receipt: 'RCO_OLD',
          payerMsisdn: '254700000002',
        },
        expect.objectContaining({ id: ids.oldest, providerReference: 'ws_CO_oldest' }),
      ],
    });
    // The provider's own words are not part of it.
    expect(JSON.stringify(listed)).not.toContain('processed successfully');
  });

  it('a limit shows the newest; the total counts them all; the gauge reads the total', async () => {
    const one = await view.list({ limit: 1 });
    expect(one).toMatchObject({ total: 2, count: 1, notices: [{ id: ids.old }] });
    expect(await view.count()).toBe(2);
  });

  it('a shorter age lists the young one too (asked for: it may still be matched)', async () => {
    const all = await view.list({ olderThanMs: 0 });
    expect(all.notices.map((n) => n.id)).toEqual([ids.young, ids.old, ids.oldest]);
    expect((await store.unmatchedSuccesses(2 * HOUR, 10)).notices.map((n) => n.id)).toEqual([
      ids.old,
      ids.oldest,
    ]);
  });

  it('a notice matched later leaves the view', async () => {
    const before = await view.count();
    await keep('late', 40 * HOUR, paid('ws_CO_late', '254700000004', 1_000));
    expect(await view.count()).toBe(before + 1);
    await store.settleNotice(ids.late, paymentId, 'applied');
    expect(await view.count()).toBe(before);
  });

  /** What a refusal must leave alone: every notice's standing and the whole audit trail. */
  const everything = async () => ({
    notices: (
      await db.query(
        `SELECT id::text, payment_id::text, outcome, notice, resolved_at, resolved_by, resolution
           FROM payment_notices ORDER BY id`,
      )
    ).rows,
    audit: (await db.query('SELECT count(*)::int AS n FROM care_audit')).rows,
  });

  it('resolved with a note: out of the list and the gauge, who, when and why kept, audited with the payer masked', async () => {
    await keep('returned', 28 * HOUR, paid('ws_CO_returned', '254700000005', 7_500));
    const before = await view.count();
    const listedBefore = (await view.list({ olderThanMs: 0, limit: 500 })).notices.map((n) => n.id);
    expect(listedBefore).toContain(ids.returned);

    const resolved = await view.resolve(
      ids.returned,
      '  Reversed RTURNED on the M-Pesa portal  ',
      'ops-anna',
    );
    expect(resolved).toEqual({
      id: ids.returned,
      provider: 'mpesa',
      why: 'no_payment',
      paymentId: null,
      paymentState: null,
      receivedAt: ago(28 * HOUR).toISOString(),
      providerReference: 'ws_CO_returned',
      reference: null,
      amount: { currency: 'KES', minor: 7_500 },
      receipt: 'RTURNED',
      payerMsisdn: '254700000005',
      resolution: { by: 'ops-anna', at: NOW.toISOString(), note: 'Reversed RTURNED on the M-Pesa portal' },
    });
    expect(await view.count()).toBe(before - 1);
    const listedAfter = (await view.list({ olderThanMs: 0, limit: 500 })).notices.map((n) => n.id);
    expect(listedAfter).toEqual(listedBefore.filter((id) => id !== ids.returned));

    // The notice as received and its outcome stay: only the resolution is added.
    const row = await db.query<Record<string, unknown>>(
      `SELECT payment_id, outcome, notice ->> 'receipt' AS receipt, resolved_at, resolved_by, resolution
         FROM payment_notices WHERE id = $1`,
      [ids.returned],
    );
    expect(row.rows[0]).toEqual({
      payment_id: null,
      outcome: 'unmatched',
      receipt: 'RTURNED',
      resolved_at: NOW,
      resolved_by: 'ops-anna',
      resolution: 'Reversed RTURNED on the M-Pesa portal',
    });

    const [entry] = await audit.list({ limit: 1 });
    expect(entry).toMatchObject({
      at: NOW.toISOString(),
      actor: 'ops-anna',
      action: 'resolve_unmatched',
      purchaseId: null,
      note: 'Reversed RTURNED on the M-Pesa portal',
      detail:
        'payment notice ' +
        ids.returned +
        ' (no payment): mpesa ws_CO_returned, KES 75.00, receipt RTURNED, payer 254*****0005',
    });
    expect(JSON.stringify(entry)).not.toContain('254700000005');
  });

  it('each refusal says why and changes nothing: resolved already, taken, no payment success, still matchable, unknown, a bad note', async () => {
    await keep('twice', 29 * HOUR, paid('ws_CO_twice', '254700000006', 2_000));
    await view.resolve(ids.twice, 'Given back', 'ops-anna');
    const before = await everything();
    const refusedWith = async (id: string, note: unknown) => {
      try {
        await view.resolve(id, note, 'ops-ben');
      } catch (error) {
        return error as Error;
      }
      throw new Error(`notice ${id} was resolved`);
    };

    const twice = await refusedWith(ids.twice, 'Given back');
    expect(twice).toBeInstanceOf(UnmatchedStateError);
    expect(twice).toMatchObject({ reason: 'already_resolved' });
    expect(twice.message).toBe(
      `payment notice ${ids.twice} was resolved already, by ops-anna at ${NOW.toISOString()}`,
    );
    for (const name of ['applied', 'duplicate', 'mismatch', 'declined', 'refund']) {
      const refused = await refusedWith(ids[name], 'Given back');
      expect({ name, refused }).toEqual({ name, refused: expect.any(UnmatchedStateError) });
      expect({ name, reason: (refused as UnmatchedStateError).reason }).toEqual({
        name,
        reason: 'not_unmatched_success',
      });
    }
    expect((await refusedWith(ids.applied, 'Given back')).message).toContain(
      `was taken by payment ${paymentId} (applied)`,
    );
    expect((await refusedWith(ids.declined, 'Given back')).message).toContain(
      "is no payment's success (payment failed, unmatched)",
    );
    // Young: a lost push's payment may still adopt it, and confirm or refund it itself.
    const young = await refusedWith(ids.young, 'Given back');
    expect(young).toMatchObject({ reason: 'still_matchable' });
    expect(young.message).toContain(
      `may still take it until ${new Date(ago(HOUR).getTime() + matchableForMs(MPESA)).toISOString()}`,
    );
    for (const unknown of ['999999999', '0', 'abc', '-1', '1.5', '12345678901234567890'])
      expect(await refusedWith(unknown, 'Given back')).toEqual(new UnmatchedNotFoundError(unknown));
    for (const note of [undefined, '', '   ', 'x'.repeat(501), 42])
      expect(await refusedWith(ids.old, note)).toBeInstanceOf(CareInputError);

    expect(await everything()).toEqual(before);
  });

  it('two operators at once: one resolves it, the other is told it was', async () => {
    await keep('race', 31 * HOUR, paid('ws_CO_race', '254700000007', 3_000));
    const age = matchableForMs(MPESA);
    const both = await Promise.all([
      store.resolveUnmatched(ids.race, 'ops-anna', 'Reversed', age),
      store.resolveUnmatched(ids.race, 'ops-ben', 'Reversed', age),
    ]);
    expect(both.filter((r) => r.resolved)).toHaveLength(1);
    expect(both.filter((r) => !r.resolved)).toEqual([
      expect.objectContaining({ refusal: 'already_resolved' }),
    ]);
  });

  it('the database refuses a resolution without its note, or with a blank or too long one', async () => {
    await keep('raw', 32 * HOUR, paid('ws_CO_raw', '254700000008', 3_000));
    for (const [by, note] of [
      ['ops', null],
      ['ops', ' \t '],
      ['ops', 'x'.repeat(501)],
      ['', 'Reversed'],
    ])
      await expect(
        db.query(
          'UPDATE payment_notices SET resolved_at = now(), resolved_by = $2, resolution = $3 WHERE id = $1',
          [ids.raw, by, note],
        ),
      ).rejects.toThrow(/payment_notices_resolution_whole/);
    expect(await store.unmatchedSuccesses(0, 500)).toMatchObject({
      notices: expect.arrayContaining([expect.objectContaining({ id: ids.raw })]),
    });
  });
});
