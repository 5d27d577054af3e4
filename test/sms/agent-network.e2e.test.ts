import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { ledgerDiscrepancies } from '../../src/agents/ledger/sql';
import { TEST_METERS } from '../../src/sandbox';
import { newPhone, startTestGateway, waitForSms } from '../e2e/harness';
import { testRedis, type TestRedis } from '../support/redis';

/**
 * The agent network by SMS on a gateway (issue 32): a dealer funds its retailer by TRANSFER
 * (each side told its balance), the retailer sells with commission (split with the dealer), the
 * dealer sees its retailers (AGENTS), a bank DEPOSIT waits for the operator, SUMMARY tells the
 * day, DISABLE stops a retailer; in English and Setswana.
 */

const ADMIN = 'agent-network-admin-token-0123456789';
const auth = { headers: { authorization: `Bearer ${ADMIN}` } };
let gateway: Gateway;
let redis: TestRedis;
let seq = 0;

beforeAll(async () => {
  redis = testRedis('agent-network');
  gateway = await startTestGateway({
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    ADMIN_TOKEN: ADMIN,
    SMS_REPLIES_PER_MIN: '50',
    SMS_RATE_PER_MIN: '50',
    AGENT_COMMISSION: 'ELECTRICITY:2%',
    AGENT_DEALER_SHARE: '25%',
  });
});
afterAll(async () => {
  await gateway.close();
  await redis.cleanup();
});

async function sms(from: string, text: string): Promise<void> {
  await axios.post(
    `${gateway.url}/sms/africastalking`,
    new URLSearchParams({
      id: `net-${process.pid}-${++seq}`,
      from: `+${from}`,
      to: '12345',
      text,
      date: 'now',
    }),
  );
}

/** The newest SMS to `to`, once there are `count`. */
async function nth(to: string, count: number): Promise<string> {
  return (await waitForSms(gateway, to, count))[0].message;
}

/** Registers an agent (a retailer with `dealer`) and sets its PIN by SMS. */
async function agent(msisdn: string, name: string, extra: object = {}): Promise<string> {
  const added = await axios.post(
    `${gateway.url}/admin/agents`,
    { msisdn, name, float: true, ...extra },
    auth,
  );
  await sms(msisdn, `PIN ${added.data.oneTimePin} 482613`);
  expect(await nth(msisdn, 1)).toBe('Your PIN is changed.');
  return '482613';
}

it('a dealer funds its retailer, the retailer sells with commission, and the day adds up', async () => {
  const dealer = newPhone();
  const retailer = newPhone();
  const stranger = newPhone();
  const customer = newPhone();
  const pin = await agent(dealer, 'Dealer');
  await agent(retailer, 'Kgosi Shop', { dealer });
  await agent(stranger, 'Not Mine');
  await axios.post(
    `${gateway.url}/admin/agents/${dealer}/credits`,
    { amount: 'BWP 1000.00', reference: 'bank-1' },
    auth,
  );

  // TRANSFER: both sides told their new balance; never beyond the float, never to another's agent.
  await sms(dealer, `TRANSFER ${retailer} 300 ${pin}`);
  expect(await nth(dealer, 2)).toBe(`Sent BWP 300.00 to Kgosi Shop (${retailer}). Your float: BWP 700.00.`);
  expect(await nth(retailer, 2)).toBe('Dealer sent you BWP 300.00 of float. Your float: BWP 300.00.');
  await sms(dealer, `TRANSFER ${retailer} 900 ${pin}`);
  expect(await nth(dealer, 3)).toBe('Not sent: your float is BWP 700.00.');
  await sms(dealer, `TRANSFER ${stranger} 10 ${pin}`);
  expect(await nth(dealer, 4)).toBe(`${stranger} is not one of your retailers.`);

  // A sale: 2% of 100.00 is 2.00 commission, 0.50 of it the dealer's.
  await sms(retailer, `SELL ELEC ${TEST_METERS.active} 100 ${customer}`);
  const code = /YES (\d{4})/.exec(await nth(retailer, 3))![1];
  await sms(retailer, `YES ${code} ${pin}`);
  await waitForSms(gateway, customer, 1);
  // The receipt says what the sale earned.
  expect(await nth(retailer, 4)).toMatch(/\nCommission: BWP 1\.50$/);
  await sms(retailer, `BAL ${pin}`);
  expect(await nth(retailer, 5)).toBe(
    'Float: BWP 200.00 available, BWP 0.00 held for sales in progress.\nCommission today: BWP 1.50, this month: BWP 1.50.',
  );

  await sms(dealer, `AGENTS ${pin}`);
  expect(await nth(dealer, 5)).toBe(`${retailer} Kgosi Shop: float BWP 200.00, today 1 sales BWP 100.00`);

  // A deposit waits for the operator, then is credited once.
  await sms(retailer, `DEPOSIT 50 FNB-777 ${pin}`);
  expect(await nth(retailer, 6)).toMatch(
    /^Deposit BWP 50.00 ref FNB-777 received \(no\. \d+\)\. Your float is credited once the operator approves it\.$/,
  );
  const queue = await axios.get(`${gateway.url}/admin/agents/deposits`, auth);
  const deposit = queue.data.deposits.find((d: { bankReference: string }) => d.bankReference === 'FNB-777');
  expect(deposit).toMatchObject({ state: 'pending', amountMinor: 5_000 });
  const approved = await axios.post(`${gateway.url}/admin/agents/deposits/${deposit.id}/approve`, {}, auth);
  expect(approved.data.status).toBe('approved');
  // The agent is told, once: approving again changes nothing and sends nothing more.
  expect(await nth(retailer, 7)).toBe('Deposit BWP 50.00 ref FNB-777 approved. Your float: BWP 250.00.');
  expect(
    (await axios.post(`${gateway.url}/admin/agents/deposits/${deposit.id}/approve`, {}, auth)).data.status,
  ).toBe('already');

  // A rejected deposit: nothing credited, the agent told.
  await sms(retailer, `DEPOSIT 20 FNB-778 ${pin}`);
  await nth(retailer, 8);
  const pending = (await axios.get(`${gateway.url}/admin/agents/deposits`, auth)).data.deposits.find(
    (d: { bankReference: string }) => d.bankReference === 'FNB-778',
  );
  await axios.post(
    `${gateway.url}/admin/agents/deposits/${pending.id}/reject`,
    { note: 'no such transfer' },
    auth,
  );
  expect(await nth(retailer, 9)).toBe('Deposit BWP 20.00 ref FNB-778 was not approved. Call the operator.');

  // The day's summary, in English and (asked in Setswana) in Setswana.
  await sms(retailer, `SUMMARY ${pin}`);
  expect(await nth(retailer, 10)).toMatch(
    /^Summary \d{4}-\d{2}-\d{2}: 1 sales, BWP 100.00\. Commission: BWP 1.50\. Float in: BWP 350.00, out: BWP 0.00\. Float now: BWP 250.00\.$/,
  );
  await sms(dealer, `KAKARETSO ${pin}`);
  expect(await nth(dealer, 6)).toMatch(
    /^Kakaretso \d{4}-\d{2}-\d{2}: dithekiso 0, BWP 0.00\. Khomishene: BWP 0.50\. Madi a tsenang: BWP 1000.00, a tswang: BWP 300.00\. Madi jaanong: BWP 700.50\.$/,
  );

  // The dealer stops its retailer, which then sells nothing.
  await sms(dealer, `DISABLE ${retailer} ${pin}`);
  expect(await nth(dealer, 7)).toBe(`Kgosi Shop (${retailer}) is disabled.`);
  await sms(retailer, `BAL ${pin}`);
  expect(await nth(retailer, 11)).toMatch(/disabled/);
  const told = (await waitForSms(gateway, retailer, 11)).filter((m) =>
    /^Deposit .* (approved|was not)/.test(m.message),
  );
  expect(told).toHaveLength(2);

  expect(await ledgerDiscrepancies(gateway.records!)).toEqual([]);
});
