import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { ledgerDiscrepancies } from '../../src/agents/ledger/sql';
import { TEST_PAYERS } from '../../src/payments/sandbox';
import { startTestGateway, waitForSms } from '../e2e/harness';
import { until } from '../support/wait';

/**
 * An agent's own float top-up (issue 32 §2) on a gateway with the embedded payment sandbox over
 * real HTTP (mpesa adapter, callback routes): `TOPUP <amount> <PIN>` asks the agent's own number
 * to pay; approved → the float credited once (a duplicated callback too) and an SMS with the new
 * balance; declined → nothing credited, an SMS says so; one payment request per request.
 */

const ADMIN = 'agent-topup-admin-token-0123456789';
const auth = { headers: { authorization: `Bearer ${ADMIN}` } };
const payer = (behaviour: string) => TEST_PAYERS.find((p) => p.behaviour === behaviour)!.msisdn;
let gateway: Gateway;
let seq = 0;

beforeAll(async () => {
  gateway = await startTestGateway(
    { ADMIN_TOKEN: ADMIN, SMS_REPLIES_PER_MIN: '50', SMS_RATE_PER_MIN: '50' },
    {
      paymentSandbox: { approveDelayMs: 50, refundDelayMs: 50, promptExpiryMs: 500 },
      paymentLifecycle: { pollBaseMs: 300, pollMaxMs: 600 },
    },
  );
});
afterAll(async () => {
  await gateway?.close();
});

/** An inbound SMS; `id` given: the provider delivering that message again. */
async function sms(from: string, text: string, id = `topup-${process.pid}-${++seq}`): Promise<void> {
  await axios.post(
    `${gateway.url}/sms/africastalking`,
    new URLSearchParams({ id, from: `+${from}`, to: '12345', text, date: 'now' }),
  );
}

/** The SMS to `to` (oldest first) once there are `count`. */
async function messages(to: string, count: number): Promise<string[]> {
  return (await waitForSms(gateway, to, count)).map((m) => m.message).reverse();
}

async function agent(msisdn: string): Promise<string> {
  const added = await axios.post(`${gateway.url}/admin/agents`, { msisdn, name: 'Shop', float: true }, auth);
  await sms(msisdn, `PIN ${added.data.oneTimePin} 482613`);
  expect((await messages(msisdn, 1))[0]).toBe('Your PIN is changed.');
  return '482613';
}

const topUpEntries = async (msisdn: string) =>
  (
    await gateway.records.query<{ amount_minor: string; reference: string }>(
      `SELECT amount_minor::text, reference FROM float_entries WHERE msisdn = $1 AND kind = 'topup'`,
      [msisdn],
    )
  ).rows;

const paymentsOf = async (msisdn: string) =>
  (
    await gateway.records.query<{ state: string }>(
      'SELECT state FROM payments WHERE payer_msisdn = $1 AND topup_id IS NOT NULL',
      [msisdn],
    )
  ).rows;

const topUpState = async (msisdn: string) =>
  (
    await gateway.records.query<{ state: string }>('SELECT state FROM agent_topups WHERE msisdn = $1', [
      msisdn,
    ])
  ).rows;

it('approved (the provider calls back twice): the float is credited once, and the agent told its balance', async () => {
  const phone = payer('duplicate_callback');
  const pin = await agent(phone);
  const id = `topup-${process.pid}-redelivered`;
  await sms(phone, `TOPUP 200 ${pin}`, id);
  const told = await messages(phone, 3);
  expect(told).toContain(
    'Approve the payment of BWP 200.00 on your phone. Your float is credited when it is paid.',
  );
  const credited = told.find((m) => m.startsWith('Top-up of'))!;
  expect(credited).toMatch(/^Top-up of BWP 200\.00 received \(ref \S+\)\. Your float: BWP 200\.00\.$/);

  // The same message delivered again: no second payment request, nothing credited twice.
  await sms(phone, `TOPUP 200 ${pin}`, id);
  await until('both callbacks applied', async () => {
    const notices = await gateway.records.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM payment_notices n JOIN payments p ON p.id = n.payment_id
        WHERE p.payer_msisdn = $1`,
      [phone],
    );
    return Number(notices.rows[0].n) >= 2 || null;
  });
  expect(await paymentsOf(phone)).toEqual([{ state: 'successful' }]);
  expect(await topUpEntries(phone)).toEqual([
    { amount_minor: '20000', reference: expect.stringMatching(/^topup:/) },
  ]);
  expect(await topUpState(phone)).toEqual([{ state: 'credited' }]);
  const account = await gateway.records.query<{ balance_minor: string }>(
    'SELECT balance_minor::text FROM float_accounts WHERE msisdn = $1',
    [phone],
  );
  expect(account.rows).toEqual([{ balance_minor: '20000' }]);
  // A sweep tells nobody again.
  await gateway.payments!.sweep();
  expect(await messages(phone, 3)).toHaveLength(3);
  expect(await ledgerDiscrepancies(gateway.records)).toEqual([]);
});

it('declined: nothing credited, and the agent told why', async () => {
  const phone = payer('decline');
  const pin = await agent(phone);
  await sms(phone, `TOPUP 50 ${pin}`);
  const told = await messages(phone, 3);
  expect(told).toContain(
    'Your top-up of BWP 50.00 was not paid (declined). Nothing was credited to your float.',
  );
  expect(await paymentsOf(phone)).toEqual([{ state: 'failed' }]);
  expect(await topUpEntries(phone)).toEqual([]);
  expect(await topUpState(phone)).toEqual([{ state: 'failed' }]);
  await gateway.payments!.sweep();
  expect(await messages(phone, 3)).toHaveLength(3);
});

it('one request asked from several places at once: one payment request, one credit', async () => {
  const phone = payer('approve');
  await agent(phone);
  const request = {
    requestKey: `sms:retried-${process.pid}`,
    msisdn: phone,
    amount: { currency: 'BWP', minor: 7_500 },
  };
  const asked = await Promise.all([1, 2, 3].map(() => gateway.payments!.lifecycle.requestTopUp(request)));
  expect(asked.filter((a) => a.created)).toHaveLength(1);
  expect(new Set(asked.map((a) => a.record.id)).size).toBe(1);
  await until('credited', async () => ((await topUpState(phone))[0]?.state === 'credited' ? true : null));
  expect(await paymentsOf(phone)).toEqual([{ state: 'successful' }]);
  expect(await topUpEntries(phone)).toHaveLength(1);
  const { data } = await axios.get<{ payments: { msisdn: string }[] }>(
    `${gateway.paymentSandbox!.url}/sandbox/payments`,
  );
  expect(data.payments.filter((p) => p.msisdn === phone)).toHaveLength(1);
});
