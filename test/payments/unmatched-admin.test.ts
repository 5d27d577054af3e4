import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import type { PaymentNotice } from '../../src/payments/port';
import { EMBEDDED_CALLBACK_SECRET } from '../../src/payments/setup';
import { SqlPaymentStore } from '../../src/payments/store/sql';
import { startTestGateway } from '../e2e/harness';
import { testRecordsEnv } from '../support/database';

/**
 * `GET /admin/payments/unmatched`, `POST /admin/payments/unmatched/:id/resolve` and the
 * `payment_notices_unmatched` gauge on a real gateway (its embedded M-Pesa sandbox, records in a
 * schema of the test PostgreSQL): a Daraja callback naming no payment of ours, posted to the real
 * callback route, is young and not listed; notices kept a day and more ago (by the store, as that
 * route keeps them) are, newest first, the payer masked; one resolved leaves the list and the
 * gauge, in the audit trail under the operator's name.
 */

const ADMIN = 'unmatched-admin-token-0123456789';
const ALICE = 'unmatched-alice-token-0123456789';
const auth = { headers: { authorization: `Bearer ${ADMIN}` }, validateStatus: () => true };
const HOUR = 3_600_000;
const PAYER = '26771230001';
const records = testRecordsEnv('unmatched_admin');

let gateway: Gateway;

const paid = (ref: string, payerMsisdn: string, minor: number): PaymentNotice => ({
  type: 'payment',
  state: 'successful',
  providerReference: ref,
  amount: { currency: 'BWP', minor },
  receipt: `RC${ref.slice(-4).toUpperCase()}`,
  payerMsisdn,
});

/** Kept `age` ago, as the callback route keeps a notice. */
async function keptAgo(age: number, notice: PaymentNotice): Promise<string> {
  const store = new SqlPaymentStore({ db: gateway.records, clock: () => new Date(Date.now() - age) });
  return (await store.keepNotice('mpesa', notice)).id;
}

const unmatched = (query = '') => axios.get(`${gateway.url}/admin/payments/unmatched${query}`, auth);
const gauge = async () =>
  Number(
    /^payment_notices_unmatched (\d+)$/m.exec(
      (await axios.get(`${gateway.url}/metrics`)).data as string,
    )?.[1],
  );

let older: string;
let old: string;
let declined: string;

beforeAll(async () => {
  gateway = await startTestGateway({ ...records.env, ADMIN_TOKEN: ADMIN, ADMIN_TOKENS: `alice:${ALICE}` });
  older = await keptAgo(30 * HOUR, paid('ws_CO_older', '26771230002', 5_000));
  old = await keptAgo(25 * HOUR, paid('ws_CO_old1', PAYER, 10_150));
  // Old but no money: never listed.
  declined = await keptAgo(26 * HOUR, {
    type: 'payment',
    state: 'failed',
    reason: 'declined',
    providerReference: 'ws_CO_declined',
  });
});

afterAll(async () => {
  await gateway?.close();
  await records.drop();
});

it('a callback naming no payment is kept unmatched and, while it may still be matched, not listed', async () => {
  const callback = await axios.post(
    `${gateway.url}/payments/callback/payment?key=${EMBEDDED_CALLBACK_SECRET}`,
    {
      Body: {
        stkCallback: {
          MerchantRequestID: 'm-unmatched',
          CheckoutRequestID: 'ws_CO_young',
          ResultCode: 0,
          ResultDesc: 'ok',
          CallbackMetadata: {
            Item: [
              { Name: 'Amount', Value: 20 },
              { Name: 'MpesaReceiptNumber', Value: 'RCYOUNG' },
              { Name: 'PhoneNumber', Value: Number(PAYER) },
            ],
          },
        },
      },
    },
  );
  expect(callback.data).toMatchObject({ outcome: 'unmatched' });

  const listed = await unmatched();
  expect(listed.status).toBe(200);
  // The default age: the embedded M-Pesa's window + margin + a day of re-checks.
  expect(listed.data).toMatchObject({ olderThanMs: 90_000 + 60_000 + 24 * HOUR, total: 2, count: 2 });
  expect(listed.data.notices.map((n: { id: string }) => n.id)).toEqual([old, older]);
  expect(listed.data.notices[0]).toEqual({
    id: old,
    provider: 'mpesa',
    why: 'no_payment',
    paymentId: null,
    paymentState: null,
    receivedAt: expect.any(String),
    providerReference: 'ws_CO_old1',
    reference: null,
    amount: { currency: 'BWP', minor: 10_150 },
    receipt: 'RCOLD1',
    payerMsisdn: expect.stringMatching(/^267\*{4}0001#[0-9a-f]{4}$/),
  });
  // Masked like every admin answer: the payer's number never whole.
  expect(JSON.stringify(listed.data)).not.toContain(PAYER);

  // Asked for younger ones too, the callback's notice comes first.
  const all = await unmatched('?olderThanMs=0');
  expect(all.data.notices[0]).toMatchObject({
    providerReference: 'ws_CO_young',
    amount: { currency: 'BWP', minor: 2_000 },
    receipt: 'RCYOUNG',
  });
  expect(all.data.total).toBe(3);
});

it('limit shows the newest; the gauge counts them all', async () => {
  const one = await unmatched('?limit=1');
  expect(one.data).toMatchObject({ total: 2, count: 1, notices: [{ id: old }] });
  expect(await gauge()).toBe(2);
});

it('a bad limit or age is a 400 naming it, and changes nothing', async () => {
  for (const [query, error] of [
    ['?limit=0', 'invalid_limit'],
    ['?limit=501', 'invalid_limit'],
    ['?limit=ten', 'invalid_limit'],
    ['?limit=1&limit=2', 'invalid_limit'],
    ['?olderThanMs=-1', 'invalid_older_than_ms'],
    ['?olderThanMs=1.5', 'invalid_older_than_ms'],
  ]) {
    const bad = await unmatched(query);
    expect({ query, status: bad.status, error: bad.data.error }).toEqual({ query, status: 400, error });
    expect(bad.data.message).toMatch(
      /^(limit must be a whole number from 1 to 500|olderThanMs must be a whole number of milliseconds from 0 to a year \(366 days\))$/,
    );
  }
  expect((await unmatched()).data).toMatchObject({ total: 2, count: 2 });
  expect(await gauge()).toBe(2);
});

it('needs the admin token; a reveal shows the number (audited first)', async () => {
  const refused = await axios.get(`${gateway.url}/admin/payments/unmatched`, { validateStatus: () => true });
  expect(refused.status).toBe(401);
  const revealed = await unmatched('?reveal=true&limit=1');
  expect(revealed.status).toBe(200);
  expect(revealed.data.notices[0].payerMsisdn).toBe(PAYER);
  const trail = await gateway.records.query<{ detail: string }>(
    "SELECT detail FROM care_audit WHERE action = 'reveal' ORDER BY seq DESC LIMIT 1",
  );
  expect(trail.rows[0]?.detail).toContain('/admin/payments/unmatched');
});

describe('POST /admin/payments/unmatched/:id/resolve', () => {
  const resolve = (id: string, body: unknown, token = ALICE) =>
    axios.post(`${gateway.url}/admin/payments/unmatched/${id}/resolve`, body, {
      headers: { authorization: `Bearer ${token}` },
      validateStatus: () => true,
    });
  /** Every notice's standing and the whole audit trail: what a refusal must leave alone. */
  const everything = async () => ({
    notices: (
      await gateway.records.query(
        'SELECT id, payment_id, outcome, notice, resolved_at, resolved_by, resolution FROM payment_notices ORDER BY id',
      )
    ).rows,
    audit: (await gateway.records.query('SELECT count(*)::int AS n FROM care_audit')).rows,
  });

  it('closes one with a note: out of the list and the gauge, who did it in the audit trail, the payer masked', async () => {
    expect(await gauge()).toBe(2);
    const done = await resolve(old, { note: `Reversed RCOLD1 for ${PAYER} on the M-Pesa portal` });
    expect(done.status).toBe(200);
    expect(done.data.notice).toEqual({
      id: old,
      provider: 'mpesa',
      why: 'no_payment',
      paymentId: null,
      paymentState: null,
      receivedAt: expect.any(String),
      providerReference: 'ws_CO_old1',
      reference: null,
      amount: { currency: 'BWP', minor: 10_150 },
      receipt: 'RCOLD1',
      payerMsisdn: expect.stringMatching(/^267\*{4}0001#[0-9a-f]{4}$/),
      resolution: {
        by: 'alice',
        at: expect.any(String),
        note: expect.stringMatching(/^Reversed RCOLD1 for 267\*{4}0001 on the M-Pesa portal$/),
      },
    });
    expect(JSON.stringify(done.data)).not.toContain(PAYER);

    expect((await unmatched()).data).toMatchObject({ total: 1, count: 1, notices: [{ id: older }] });
    expect(await gauge()).toBe(1);

    const trail = await gateway.records.query<Record<string, unknown>>(
      'SELECT actor, action, purchase_id, note, detail FROM care_audit ORDER BY seq DESC LIMIT 1',
    );
    expect(trail.rows[0]).toEqual({
      actor: 'alice',
      action: 'resolve_unmatched',
      purchase_id: null,
      note: `Reversed RCOLD1 for ${PAYER} on the M-Pesa portal`,
      detail: `payment notice ${old} (no payment): mpesa ws_CO_old1, BWP 101.50, receipt RCOLD1, payer 267****0001`,
    });
    // The care trail over HTTP has it, masked as every admin answer.
    const audit = await axios.get(`${gateway.url}/admin/purchases/audit?limit=1`, auth);
    expect(audit.data.entries[0]).toMatchObject({ actor: 'alice', action: 'resolve_unmatched' });
    expect(JSON.stringify(audit.data)).not.toContain(PAYER);
  });

  it('each refusal answers why and changes nothing', async () => {
    const young = (await unmatched('?olderThanMs=0')).data.notices.find(
      (n: { providerReference: string }) => n.providerReference === 'ws_CO_young',
    ).id as string;
    const before = await everything();
    for (const [id, body, status, error] of [
      [older, {}, 400, 'invalid_request'],
      [older, { note: '' }, 400, 'invalid_request'],
      [older, { note: '   ' }, 400, 'invalid_request'],
      [older, { note: 'x'.repeat(501) }, 400, 'invalid_request'],
      [older, { note: 42 }, 400, 'invalid_request'],
      [older, 'not json', 400, 'bad_request'],
      ['999999999', { note: 'Reversed' }, 404, 'not_found'],
      ['abc', { note: 'Reversed' }, 404, 'not_found'],
      [old, { note: 'Reversed again' }, 409, 'already_resolved'],
      [declined, { note: 'Reversed' }, 409, 'not_unmatched_success'],
      [young, { note: 'Reversed' }, 409, 'still_matchable'],
    ] as const) {
      const refused =
        body === 'not json'
          ? await axios.post(`${gateway.url}/admin/payments/unmatched/${id}/resolve`, '{note', {
              headers: { authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
              validateStatus: () => true,
            })
          : await resolve(id, body);
      expect({ id, body, status: refused.status, error: refused.data.error }).toEqual({
        id,
        body,
        status,
        error,
      });
    }
    expect((await resolve(old, { note: 'Reversed again' })).data.message).toMatch(
      new RegExp(`^payment notice ${old} was resolved already, by alice at \\S+Z$`),
    );
    expect((await resolve(older, {})).data).toMatchObject({ field: 'note' });
    expect((await resolve(older, { note: 'Reversed' }, 'not-a-token')).status).toBe(401);

    expect(await everything()).toEqual(before);
    expect((await unmatched()).data).toMatchObject({ total: 1, notices: [{ id: older }] });
    expect(await gauge()).toBe(1);
  });
});
