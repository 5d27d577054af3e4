import axios from 'axios';
import { localDay } from '../../src/i18n/local-time';
import { DARAJA_DEFAULTS, startPaymentSandbox, type RunningPaymentSandbox } from '../../src/payments/sandbox';
import { readStatement } from '../../src/reconciliation/statements/read';
import { pullDarajaDay } from '../../src/reconciliation/statements/pull';

/**
 * The payment sandbox's statements, read back by the gateway's readers: M-Pesa's portal export,
 * MoMo's export and Daraja's Pull API all show the same ledger, in their own formats.
 */

let sandbox: RunningPaymentSandbox;
const TZ = 'UTC';
/** When the sandbox took the money: the days asked are that moment's (never the clock's later). */
let paidAt: Date;
const day = () => localDay(paidAt, 'Africa/Nairobi');

beforeAll(async () => {
  sandbox = await startPaymentSandbox({
    port: 0,
    silent: true,
    daraja: { currency: 'BWP', wholeUnits: false },
  });
  const paid = await axios.post(`${sandbox.url}/sandbox/direct-payments`, {
    wire: 'daraja',
    msisdn: '254711000001',
    amount: '42.50',
    accountReference: 'WALKIN',
  });
  paidAt = new Date(paid.data.completedAt);
  await axios.post(`${sandbox.url}/sandbox/direct-payments`, {
    wire: 'momo',
    msisdn: '256771000002',
    amount: '1500',
    currency: 'UGX',
  });
});

afterAll(async () => {
  await sandbox.close();
});

const options = { mpesaCurrency: 'BWP', momoZone: TZ };

it("M-Pesa's portal export of the day carries the payment, read back exactly", async () => {
  const csv = (
    await axios.get<string>(`${sandbox.url}/sandbox/statements/mpesa`, {
      params: { date: day() },
      responseType: 'text',
    })
  ).data;
  const s = readStatement(csv, options);
  expect(s.format).toBe('mpesa-portal-csv');
  expect(s.lines).toEqual([
    expect.objectContaining({
      kind: 'payment',
      amount: { currency: 'BWP', minor: 4250 },
      payer: '254711000001',
      accountReference: 'WALKIN',
    }),
  ]);
});

it("MoMo's export in the operator's zone, read back in the same zone", async () => {
  const csv = (
    await axios.get<string>(`${sandbox.url}/sandbox/statements/momo`, {
      params: { date: localDay(paidAt, TZ), tz: TZ },
      responseType: 'text',
    })
  ).data;
  const s = readStatement(csv, options);
  expect(s.format).toBe('momo-portal-csv');
  expect(s.lines).toEqual([
    expect.objectContaining({
      kind: 'payment',
      amount: { currency: 'UGX', minor: 150000 },
      payer: '256771000002',
    }),
  ]);
  expect(Math.abs(s.lines[0].completedAt.getTime() - Date.now())).toBeLessThan(120_000);
});

it("Daraja's Pull Transactions API, every page of the day, as one statement", async () => {
  const answer = await pullDarajaDay(
    {
      baseUrl: sandbox.url,
      consumerKey: DARAJA_DEFAULTS.consumerKey,
      consumerSecret: DARAJA_DEFAULTS.consumerSecret,
      shortcode: DARAJA_DEFAULTS.shortcode,
      timeoutMs: 5000,
    },
    day(),
    'Africa/Nairobi',
  );
  const s = readStatement(answer, options);
  expect(s.format).toBe('daraja-pull-json');
  expect(s.lines).toEqual([
    expect.objectContaining({
      kind: 'payment',
      amount: { currency: 'BWP', minor: 4250 },
      accountReference: 'WALKIN',
    }),
  ]);
  // Pulled again, the same content: the same statement.
  expect(
    await pullDarajaDay(
      { baseUrl: sandbox.url, ...DARAJA_DEFAULTS, timeoutMs: 5000 },
      day(),
      'Africa/Nairobi',
    ),
  ).toBe(answer);
});

it("M-Pesa's export of another zone's day still writes East Africa Time: each line read back at the moment it was paid", async () => {
  // Honolulu is 13 hours behind Nairobi: a time written in the day's own zone and read as the
  // portal's would land 13 hours early, out of the day the gateway reconciles.
  const csv = (
    await axios.get<string>(`${sandbox.url}/sandbox/statements/mpesa`, {
      params: { date: localDay(paidAt, 'Pacific/Honolulu'), tz: 'Pacific/Honolulu' },
      responseType: 'text',
    })
  ).data;
  const [line] = readStatement(csv, options).lines;
  expect(line).toMatchObject({ accountReference: 'WALKIN' });
  // The portal writes whole seconds.
  expect(line.completedAt.getTime()).toBe(Math.floor(paidAt.getTime() / 1000) * 1000);
});

it('a date that is not one is refused in one line', async () => {
  const answer = await axios.get(`${sandbox.url}/sandbox/statements/mpesa`, {
    params: { date: '1.12.2026' },
    validateStatus: () => true,
  });
  expect(answer.status).toBe(400);
  expect(answer.data).toEqual({ error: 'date must be YYYY-MM-DD' });
});
