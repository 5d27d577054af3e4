import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { Spend, SqlSpendStore, type SpendStore } from '../../src/spend';
import { loadConfig } from '../../src/config';
import type { PurchaseIntent } from '../../src/purchases/types';
import { dialogue, ledger, newPhone, startTestGateway, waitForSms } from './harness';
import { testDatabase, testPglite } from '../support/database';

/**
 * Spend is bounded for everyone who reaches the short code: an amount range per product on the
 * amount screen (before any quote), per-number daily limits counted atomically, and a blocklist
 * managed by the operator — the same rules over USSD and SMS.
 */

const ADMIN = 'spend-admin-token-0123456789';
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startTestGateway({
    ADMIN_TOKEN: ADMIN,
    SPEND_LIMITS: 'ELECTRICITY=10-1000',
    SPEND_DAY_MAX_VALUE: '250',
    SPEND_DAY_MAX_COUNT: '3',
  });
});
afterAll(() => gateway.close());

const debits = async (meter: string) =>
  (await ledger(gateway.purchaseServiceUrl)).filter(
    (r) => r.subscriber_identifier === meter && r.debited_minor > 0,
  ).length;

it('refuses an amount out of range on the amount screen, naming the limit, before any quote', async () => {
  const phone = newPhone();
  // "Send the token to": 1 This phone.
  const replies = await dialogue(gateway, `sp-${phone}`, phone, [
    '1',
    TEST_METERS.active,
    '1',
    '999999999999',
  ]);
  // The amount screen names the range; the refusal keeps the caller there, with no quote.
  expect(replies[3].screen).toMatch(/^Enter the amount \(BWP 10.00 to BWP 1000.00\):/);
  expect(replies[4].end).toBe(false);
  expect(replies[4].screen).not.toMatch(/Total/);
  expect(replies[4].screen).toContain('The amount must be at most BWP 1000.00.');
  const other = newPhone();
  const low = await dialogue(gateway, `sp2-${other}`, other, ['1', TEST_METERS.active, '1', '5']);
  expect(low[4].screen).toContain('The amount must be at least BWP 10.00.');
});

it("counts a number's day over USSD and SMS, and says when the limit resets", async () => {
  const phone = newPhone();
  const meter = TEST_METERS.tariffCharge;
  const before = await debits(meter);
  // 200 by USSD: bought.
  const bought = await dialogue(gateway, `d1-${phone}`, phone, ['1', meter, '1', '200', '1']);
  expect(bought[5].end).toBe(true);
  await waitForSms(gateway, phone, 1);
  // 100 more by SMS: over the value limit of 250, refused at the quote with the reset day.
  await axios.post(`${gateway.url}/sms/inbound`, {
    id: `sp-${phone}`,
    from: phone,
    to: '1',
    text: `ELEC ${meter} 100`,
    receivedAt: 'now',
  });
  const [reply] = await waitForSms(gateway, phone, 2);
  expect(reply.message).toMatch(
    /^You have reached today's limit of BWP 250.00\. You can buy again from \d{4}-\d{2}-\d{2}\.$/,
  );
  // And over USSD the same: a closing screen that says why.
  const refused = await dialogue(gateway, `d2-${phone}`, phone, ['1', meter, '1', '100']);
  expect(refused[4].end).toBe(true);
  expect(refused[4].screen).toMatch(/reached today's limit of BWP 250.00/);
  expect(await debits(meter)).toBe(before + 1);
});

it("an agent's customer shares the customer's day: a sale past it is refused, the float keeps its money", async () => {
  const auth = { headers: { authorization: `Bearer ${ADMIN}` } };
  const agent = newPhone();
  const customer = newPhone();
  const meter = TEST_METERS.subAccountSplit;
  const added = await axios.post(
    `${gateway.url}/admin/agents`,
    { msisdn: agent, name: 'Agent', float: true },
    auth,
  );
  await axios.post(
    `${gateway.url}/admin/agents/${agent}/credits`,
    { amount: 'BWP 500.00', reference: `sp-${agent}` },
    auth,
  );
  await axios.post(`${gateway.url}/sms/inbound`, {
    id: `sp-pin-${agent}`,
    from: agent,
    to: '1',
    text: `PIN ${added.data.oneTimePin} 5937`,
    receivedAt: 'now',
  });
  await waitForSms(gateway, agent, 1);
  // The customer buys 200 of the day's 250 on their own…
  const own = await dialogue(gateway, `ac1-${customer}`, customer, ['1', meter, '1', '200', '1']);
  expect(own[5].end).toBe(true);
  // Its confirm runs in a job: count the debits once its token SMS says it has landed.
  await waitForSms(gateway, customer, 1);
  const before = await debits(meter);
  // …so an agent's sale of 100 to that customer is over the customer's day.
  const sale = await dialogue(gateway, `ac2-${agent}`, agent, ['5937', '1', meter, '100', customer, '1']);
  expect(sale.some((reply) => /reached today's limit of BWP 250.00/.test(reply.screen))).toBe(true);
  expect(await debits(meter)).toBe(before);
  const statement = (await axios.get(`${gateway.url}/admin/agents/${agent}/statement`, auth)).data;
  expect(JSON.stringify(statement)).toMatch(/"derivedMinor":50000/);
});

it('blocks a number and a meter through the admin API; unblocked, it buys again', async () => {
  const phone = newPhone();
  const auth = { headers: { authorization: `Bearer ${ADMIN}` } };
  expect(
    (await axios.post(`${gateway.url}/admin/blocklist`, { kind: 'msisdn', value: phone }, auth)).status,
  ).toBe(201);
  expect((await axios.get(`${gateway.url}/admin/blocklist?reveal=true`, auth)).data.msisdn).toContain(phone);
  const replies = await dialogue(gateway, `b1-${phone}`, phone, ['1', TEST_METERS.active, '1', '20']);
  expect(replies[4]).toMatchObject({ end: true });
  expect(replies[4].screen).toMatch(/not allowed here/);
  const bad = await axios.post(
    `${gateway.url}/admin/blocklist`,
    { kind: 'car', value: 'x' },
    { ...auth, validateStatus: () => true },
  );
  expect([bad.status, bad.data.error]).toEqual([400, expect.stringMatching(/kind/)]);
  await axios.delete(`${gateway.url}/admin/blocklist/msisdn/${phone}`, auth);
  const again = await dialogue(gateway, `b2-${phone}`, phone, ['1', TEST_METERS.active, '1', '20']);
  expect(again[4].screen).toMatch(/Total/);
  // A blocked meter: no quote for any caller.
  const meter = TEST_METERS.active13;
  await axios.post(`${gateway.url}/admin/blocklist`, { kind: 'identifier', value: meter }, auth);
  const other = newPhone();
  const blockedMeter = await dialogue(gateway, `b3-${other}`, other, ['1', meter, '1', '20']);
  expect(blockedMeter.at(-1)!.screen).toMatch(/not allowed here/);
  expect(blockedMeter.some((reply) => /Total/.test(reply.screen))).toBe(false);
  await axios.delete(`${gateway.url}/admin/blocklist/identifier/${meter}`, auth);
  const unblocked = await dialogue(gateway, `b4-${other}`, other, ['1', meter, '1', '20']);
  expect(unblocked[4].screen).toMatch(/Total/);
});

describe.each([
  [
    'postgres',
    async () => {
      const t = await testDatabase('spend_limits');
      return { store: new SqlSpendStore(t.db) as SpendStore, done: () => t.cleanup() };
    },
  ],
  [
    'pglite',
    async () => {
      const t = await testPglite();
      return { store: new SqlSpendStore(t.db) as SpendStore, done: () => t.cleanup() };
    },
  ],
])('daily limits under concurrency (%s store)', (_name, make) => {
  it('never counts past the limit, and counts a retried key once', async () => {
    const { store, done } = await make();
    const rules = { ...loadConfig({}).spend, daily: { maxValueMinor: 10_000, maxCount: 1000 } };
    const spend = new Spend(store, rules);
    const intent: PurchaseIntent = {
      productType: 'ELECTRICITY',
      providerCode: 'BPC',
      subscriberIdentifier: TEST_METERS.active,
      amount: { currency: 'BWP', minor: 1_000 },
      debitedAccountId: 1001,
      beneficiaryMsisdn: '26771111111',
      requesterMsisdn: '26771111111',
      language: 'en-BW',
      channel: 'USSD',
    };
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => spend.reserve(intent, `k${i}`)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    const counted = results.findIndex((r) => r.status === 'fulfilled');
    await spend.reserve(intent, `k${counted}`); // already counted: no refusal, no second count
    expect(await spend.check(intent)).toMatchObject({ code: 'spend_daily_value' });
    await done();
  });
});
