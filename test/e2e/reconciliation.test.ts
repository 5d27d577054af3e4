import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { localDay } from '../../src/i18n/local-time';
import { main } from '../../src/cli/main';
import { formatMoney } from '../../src/vas/money';
import { TEST_METERS } from '../../src/sandbox';
import { testRecordsEnv } from '../support/database';
import { until } from '../support/wait';
import { dialogue, newPhone, startTestGateway } from './harness';

/**
 * The operator's books end to end: purchases paid over the payment sandbox's M-Pesa face, its
 * statement imported (and pulled), the purchase sandbox's wallet read at the boundaries. A clean
 * day closes with 0 mismatches; then each class is produced with the sandboxes — a paid purchase
 * whose vend was lost, a prompt paid twice, a refund the provider dropped, money in with no
 * payment of ours, a wallet debited outside the gateway — and exactly those are open.
 */

const ADMIN = 'reconciliation-admin-token-0123456789';
const admin = { headers: { authorization: `Bearer ${ADMIN}` } };
// A zone where it is not near midnight now: the test's day must not change under it.
const TZ = new Date().getUTCHours() >= 1 && new Date().getUTCHours() <= 21 ? 'UTC' : 'Pacific/Honolulu';
const records = testRecordsEnv('recon');
let gateway: Gateway;
let day: string;

beforeAll(async () => {
  gateway = await startTestGateway(
    {
      ...records.env,
      TZ,
      ADMIN_TOKEN: ADMIN,
      SPEND_DAY_MAX_COUNT: '100',
      PURCHASE_API_CONFIRM_TIMEOUT_MS: '1000',
      PURCHASE_API_TIMEOUT_MS: '1000',
    },
    {
      paymentSandbox: { approveDelayMs: 50, refundDelayMs: 50 },
      paymentLifecycle: { pollBaseMs: 300, pollMaxMs: 600 },
      purchaseLifecycle: { inFlightMarginMs: 200, maxDelayMs: 300, recheckEveryMs: 300 },
    },
  );
  day = localDay(new Date(), TZ);
});

afterAll(async () => {
  await gateway?.close();
  await records.drop();
});

/** One electricity purchase over USSD by a new number; resolves once it has settled. */
async function buy(amount: string, settled: string[] = ['succeeded']) {
  const phone = newPhone();
  await dialogue(gateway, `recon-${phone}`, phone, ['1', TEST_METERS.active, '1', amount, '1']);
  const [purchase] = await gateway.desk.listByMsisdn(phone);
  return until(
    `purchase of ${phone} ${settled.join('/')}`,
    async () => {
      const record = await gateway.desk.get(purchase.id);
      const payment = await gateway.payments!.store.getByPurchase(purchase.id);
      return record && settled.includes(record.state) && payment ? { record, payment, phone } : null;
    },
    { timeoutMs: 20_000 },
  );
}

const sandbox = () => gateway.paymentSandbox!.url;
// The portal's export of the day (its times in East Africa Time, as the real one).
/** The portal's export of the day: its header carries the second it was made (`Report Date`). */
const exportStatement = async () =>
  (
    await axios.get<string>(`${sandbox()}/sandbox/statements/mpesa`, {
      params: { date: day, tz: TZ },
      responseType: 'text',
    })
  ).data;
const importCsv = (csv: string) =>
  axios.post(`${gateway.url}/admin/reconciliation/statements`, csv, {
    ...admin,
    headers: { ...admin.headers, 'content-type': 'text/csv' },
  });
const importStatement = async () => importCsv(await exportStatement());
const balance = () => axios.post(`${gateway.url}/admin/reconciliation/balances`, {}, admin);
const reconcile = async () =>
  (await axios.get(`${gateway.url}/admin/reconciliation`, { ...admin, params: { date: day } })).data;

/** The CLI in this process, on the gateway's records. */
async function cli(...argv: string[]): Promise<{ code: number; out: string[] }> {
  const out: string[] = [];
  const code = await main(argv, {
    stdout: (line) => out.push(line),
    stderr: (line) => out.push(line),
    env: {
      ...records.env,
      TZ,
      NODE_ENV: 'test',
      PURCHASE_API_BASE_URL: gateway.purchaseServiceUrl,
      PURCHASE_API_CLIENT_ID: 'x',
      PURCHASE_API_CLIENT_SECRET: 'x',
      PURCHASE_API_USERNAME: 'x',
      PURCHASE_API_PASSWORD: 'x',
      PURCHASE_API_ORG_CODE: 'x',
    },
  });
  return { code, out };
}

it('a clean day closes with 0 mismatches; then each class is found, exactly those, once', async () => {
  // --- A clean day: two sales, the wallet read before and after, the statement imported.
  const opening = (await balance()).data;
  await buy('100');
  await buy('50');
  await balance();
  expect((await importStatement()).status).toBe(201);
  const clean = await reconcile();
  expect(clean).toMatchObject({ status: 'closed', openCount: 0, found: 0, matched: 2, missing: [] });
  expect(clean.wallet).toMatchObject({
    accountId: opening.accountId,
    drift: expect.stringMatching(/ 0\.00$/),
    salesCount: 2,
  });
  expect((await cli('reconcile', 'day', '--date', day)).code).toBe(0);

  // --- Each mismatch class, produced with the sandboxes.
  // 1. A paid purchase whose vend was lost: the confirm never reached the service; "no charge
  //    found" is re-checked for 24 h, so the buyer's money is kept and nothing is sold.
  await axios.post(`${gateway.purchaseServiceUrl}/sandbox/faults`, {
    endpoint: 'confirm',
    fault: 'drop',
    count: 1,
    completes: false,
  });
  const lost = await buy('30', ['failed']);
  // 2. A prompt paid twice: the payer's wallet charged a second time for it.
  const twice = await buy('20');
  await axios.post(`${sandbox()}/sandbox/payments/${twice.payment.providerReference}/charge-again`);
  // 3. A refund the provider dropped: the vend failed, the refund was reported done, the money never moved.
  await axios.post(`${gateway.purchaseServiceUrl}/sandbox/faults`, {
    endpoint: 'confirm',
    fault: 'provider_unavailable',
    count: 1,
  });
  const refunded = await buy('40', ['failed']);
  await until(
    'the refund',
    async () =>
      (await gateway.payments!.store.getByPurchase(refunded.record.id))?.state === 'refunded' || null,
    { timeoutMs: 20_000 },
  );
  const sandboxRefund = (await axios.get(`${sandbox()}/sandbox/refunds`)).data.refunds.find(
    (r: { paymentId: string }) => r.paymentId === refunded.payment.providerReference,
  );
  await axios.post(`${sandbox()}/sandbox/refunds/${sandboxRefund.id}/drop`);
  // 4. Money in that no payment of ours holds: a payer paid the paybill directly.
  await axios.post(`${sandbox()}/sandbox/direct-payments`, {
    wire: 'daraja',
    msisdn: newPhone(),
    amount: '42.00',
    accountReference: 'WALKIN',
  });
  // 5. The wallet debited outside the gateway.
  await axios.post(`${gateway.purchaseServiceUrl}/sandbox/accounts/${opening.accountId}/adjust`, {
    amount: '-75.00',
    note: 'back office',
  });
  await balance();

  // A file in a format not read here is refused and changes nothing.
  const refused = await axios.post(
    `${gateway.url}/admin/reconciliation/statements`,
    'Date,Description,Debit\r\n',
    {
      ...admin,
      validateStatus: () => true,
    },
  );
  expect(refused.status).toBe(400);
  expect(refused.data.message).toMatch(/expected an M-Pesa organisation portal statement/);
  const statement = await exportStatement();
  expect((await importCsv(statement)).status).toBe(201);
  // The same file again changes nothing (two exports a second apart are two files: their Report
  // Date differs; their lines are added once); a pull of the day brings the same lines (no new one).
  expect((await importCsv(statement)).data).toMatchObject({ duplicate: true, added: 0 });
  expect((await importStatement()).data).toMatchObject({ added: 0 });
  const pulled = await axios.post(`${gateway.url}/admin/reconciliation/pull`, { date: day }, admin);
  expect(pulled.data.added).toBe(0);
  expect(pulled.data.lines).toBeGreaterThanOrEqual(6);

  const found = await reconcile();
  expect(found.open).toEqual({
    paid_not_vended: 1,
    paid_twice: 1,
    refund_not_in_statement: 1,
    statement_payment_unknown: 1,
    wallet_drift: 1,
  });
  expect(found).toMatchObject({ status: 'open', openCount: 5, added: 5 });
  const list = (await axios.get(`${gateway.url}/admin/reconciliation/mismatches`, admin)).data
    .mismatches as Array<{
    id: number;
    reason: string;
    purchaseId: string | null;
    amount: string;
    suggestedAction: string;
  }>;
  const by = Object.fromEntries(list.map((m) => [m.reason, m]));
  expect(by.paid_not_vended).toMatchObject({ purchaseId: lost.record.id, suggestedAction: 'refund' });
  expect(by.paid_twice).toMatchObject({
    purchaseId: twice.record.id,
    suggestedAction: 'refund',
    amount: formatMoney(twice.payment.amount), // what the buyer pays: the amount and its charges
  });
  expect(by.refund_not_in_statement).toMatchObject({ purchaseId: refunded.record.id });
  expect(by.statement_payment_unknown).toMatchObject({ purchaseId: null, amount: 'BWP 42.00' });
  expect(by.wallet_drift).toMatchObject({ amount: 'BWP -75.00' });

  // Again: the same answer, no second mismatch for a fact.
  const again = await reconcile();
  expect(again).toMatchObject({ open: found.open, added: 0, cleared: 0, found: 5 });
  const count = await gateway.records.query<{ n: string }>(
    'SELECT count(*)::text AS n FROM reconciliation_mismatches',
  );
  expect(count.rows[0].n).toBe('5');

  // The gauge and the CLI say so; exit 1 while anything is open.
  const metrics = (await axios.get<string>(`${gateway.url}/metrics`, { responseType: 'text' })).data;
  expect(metrics).toMatch(/reconciliation_mismatches_open\{reason="paid_twice"\} 1/);
  expect(metrics).toMatch(/reconciliation_mismatches_open\{reason="vended_not_paid"\} 0/);
  const day1 = await cli('reconcile', 'day', '--date', day);
  expect(day1.code).toBe(1);
  expect(day1.out.join('\n')).toMatch(/OPEN[\s\S]*paid_twice 1/);

  // Worked like a case: assigned, noted, closed with a decision — each audited.
  const id = by.wallet_drift.id;
  await axios.post(
    `${gateway.url}/admin/reconciliation/mismatches/${id}/assign`,
    { assignee: 'finance.jo' },
    admin,
  );
  expect(
    (await cli('reconcile', 'note', String(id), '--note', 'back office debit of 75.00, ticket 4411')).code,
  ).toBe(0);
  const closed = await axios.post(
    `${gateway.url}/admin/reconciliation/mismatches/${id}/close`,
    { decision: 'written_off', note: 'charged back to the back office' },
    admin,
  );
  expect(closed.data.mismatch).toMatchObject({
    state: 'closed',
    decision: 'written_off',
    assignee: 'finance.jo',
  });
  const twiceClosed = await axios.post(
    `${gateway.url}/admin/reconciliation/mismatches/${id}/close`,
    { decision: 'other', note: 'x' },
    {
      ...admin,
      validateStatus: () => true,
    },
  );
  expect(twiceClosed.status).toBe(409);
  const audit = await gateway.records.query<{ action: string; actor: string }>(
    `SELECT action, actor FROM care_audit WHERE action LIKE 'mismatch_%' ORDER BY seq`,
  );
  expect(audit.rows.map((r) => r.action)).toEqual(['mismatch_assign', 'mismatch_note', 'mismatch_close']);
  // Closed stays closed on the next run: still one row for the fact, four open.
  expect((await reconcile()).openCount).toBe(4);
  // Seven purchases one after another on a shared, loaded machine: a budget, not a wait.
}, 180_000);
