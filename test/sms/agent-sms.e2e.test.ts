import { captureLogs } from '../support/logs';
import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { dialogue, ledger, newPhone, outbox, startTestGateway, waitForSms } from '../e2e/harness';
import { keysUnder, testRedis, type TestRedis } from '../support/redis';

/**
 * A field agent sells by SMS: `SELL ELEC <meter> <amount> <customer>` → a quote with the float
 * after the sale → `YES <code> <PIN>` → the customer's token SMS, the agent's receipt, the float
 * debited once and one debit in the sandbox ledger. `BAL`, `SALES`, `PIN` and `BLOCK` too; and
 * no PIN anywhere — Redis keys and values, logs, admin responses.
 */

const ADMIN = 'agent-admin-token-0123456789';
const auth = { headers: { authorization: `Bearer ${ADMIN}` } };
let gateway: Gateway;
let redis: TestRedis;
let logs: ReturnType<typeof captureLogs>;
let seq = 0;

beforeAll(async () => {
  redis = testRedis('agent-sms');
  gateway = await startTestGateway({
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    ADMIN_TOKEN: ADMIN,
    SMS_REPLIES_PER_MIN: '50',
    SMS_RATE_PER_MIN: '50',
  });
  logs = captureLogs();
});
afterAll(async () => {
  logs.stop();
  await gateway.close();
  await redis.cleanup();
});

async function sms(from: string, text: string): Promise<void> {
  await axios.post(
    `${gateway.url}/sms/africastalking`,
    new URLSearchParams({
      id: `ag-${process.pid}-${++seq}`,
      from: `+${from}`,
      to: '12345',
      text,
      date: 'now',
    }),
  );
}

/** Register a float agent with a PIN of its own and a top-up; returns the PIN. */
async function floatAgent(msisdn: string, topUp: string): Promise<string> {
  const added = await axios.post(
    `${gateway.url}/admin/agents`,
    { msisdn, name: 'Kgosi Shop', float: true },
    auth,
  );
  const oneTime = added.data.oneTimePin as string;
  await axios.post(
    `${gateway.url}/admin/agents/${msisdn}/credits`,
    { amount: topUp, reference: `top-${msisdn}` },
    auth,
  );
  await sms(msisdn, `PIN ${oneTime} 482613`);
  expect((await waitForSms(gateway, msisdn, 1))[0].message).toBe('Your PIN is changed.');
  return '482613';
}

it('sells electricity by SMS with the PIN: token to the customer, receipt to the agent, float debited once', async () => {
  const agent = newPhone();
  const customer = newPhone();
  const pin = await floatAgent(agent, 'BWP 500.00');
  const meter = TEST_METERS.active;
  const before = (await ledger(gateway.purchaseServiceUrl)).filter(
    (r) => r.subscriber_identifier === meter,
  ).length;

  await sms(agent, `SELL ELEC ${meter} 100 ${customer}`);
  const quote = (await waitForSms(gateway, agent, 2))[0].message;
  expect(quote).toMatch(
    /^Sale: Electricity 01234567890 .* for \d+\nAmount: BWP 100.00\nCharges: BWP 1.50\nTotal: BWP 101.50\nFloat after sale: BWP 398.50\nReply YES \d{4} <PIN> to sell/,
  );
  const code = /YES (\d{4})/.exec(quote)![1];

  // Without the PIN: asked for it; a wrong PIN: attempts left; then the right one sells.
  await sms(agent, `YES ${code}`);
  expect((await waitForSms(gateway, agent, 3))[0].message).toBe(`Add your PIN: YES ${code} <PIN>.`);
  await sms(agent, `YES ${code} 9999`);
  expect((await waitForSms(gateway, agent, 4))[0].message).toBe('Wrong PIN. Attempts left: 2.');
  await sms(agent, `YES ${code} ${pin}`);
  const token = (await waitForSms(gateway, customer, 1))[0].message;
  expect(token).toMatch(/Token: /);
  const receipt = (await waitForSms(gateway, agent, 5))[0].message;
  expect(receipt).toMatch(
    /^Sale .*: Electricity 01234567890 for 267\*+\d{4}\nTotal: BWP 101.50\n[\d ]+\nFloat: BWP 398.50$/,
  );
  expect(receipt).toContain(/Token: ([\d ]+)/.exec(token)![1].trim());
  const rows = (await ledger(gateway.purchaseServiceUrl)).filter((r) => r.subscriber_identifier === meter);
  expect(rows.length).toBe(before + 1);

  // A second YES sells nothing more; BAL and SALES answer with the PIN.
  await sms(agent, `YES ${code} ${pin}`);
  expect((await waitForSms(gateway, agent, 6))[0].message).toMatch(/^Already bought/);
  await sms(agent, `BAL ${pin}`);
  expect((await waitForSms(gateway, agent, 7))[0].message).toBe(
    'Float: BWP 398.50 available, BWP 0.00 held for sales in progress.',
  );
  await sms(agent, `SALES ${pin}`);
  expect((await waitForSms(gateway, agent, 8))[0].message).toMatch(
    /Electricity 01234567890 BWP 101.50 succeeded/,
  );
  const statement = await axios.get(`${gateway.url}/admin/agents/${agent}/statement`, auth);
  expect(JSON.stringify(statement.data)).toMatch(/"derivedMinor":39850/);

  // Over USSD too (the engine masks the PIN in the session it stores in Redis).
  const ussd = await dialogue(gateway, `agent-ussd-${agent}`, agent, [pin, '4']);
  expect(ussd[2].screen).toMatch(/^Float: BWP 398.50 available/);

  // A refused PIN change: the error names the problem, never the PIN.
  await sms(agent, `PIN ${pin} 1111`);
  expect((await waitForSms(gateway, agent, 9))[0].message).toMatch(/^New PIN refused: /);
  // The PIN where the code belongs (`YES <PIN>`): dropped at the intake, never queued.
  await sms(agent, `YES ${pin}`);
  expect((await waitForSms(gateway, agent, 10))[0].message).toMatch(/^Already bought/);

  // Never a PIN in Redis (sessions, SMS jobs, the agent), logs, metrics, SMS replies or admin responses.
  const metrics = String((await axios.get(`${gateway.url}/metrics`, { responseType: 'text' })).data);
  expect(metrics).toContain('# HELP');
  const replies = (await outbox(gateway, agent)).map((m) => m.message).join('\n');
  const keys = await keysUnder(redis.redis, redis.prefix);
  const values = await Promise.all(
    keys.map(async (k) => {
      const type = await redis.redis.type(k);
      if (type === 'string') return redis.redis.get(k);
      if (type === 'hash') return JSON.stringify(await redis.redis.hgetall(k));
      if (type === 'list') return JSON.stringify(await redis.redis.lrange(k, 0, -1));
      if (type === 'zset') return JSON.stringify(await redis.redis.zrange(k, '0', '-1'));
      if (type === 'set') return JSON.stringify(await redis.redis.smembers(k));
      if (type === 'stream') return JSON.stringify(await redis.redis.xrange(k, '-', '+'));
      return '';
    }),
  );
  const admin = JSON.stringify((await axios.get(`${gateway.url}/admin/agents/${agent}`, auth)).data);
  for (const where of [keys.join('\n'), values.join('\n'), logs.lines.join('\n'), admin, metrics, replies])
    expect(where).not.toMatch(new RegExp(`(^|[^0-9])${pin}([^0-9]|$)`));
});

it('BLOCK disables the agent at once, without a PIN; a non-agent cannot sell', async () => {
  const agent = newPhone();
  await floatAgent(agent, 'BWP 100.00');
  await sms(agent, 'BLOCK');
  expect((await waitForSms(gateway, agent, 2))[0].message).toBe(
    'Your agent account is blocked. Call the operator to unblock it.',
  );
  await sms(agent, `SELL ELEC ${TEST_METERS.active} 10 ${newPhone()}`);
  expect((await waitForSms(gateway, agent, 3))[0].message).toBe(
    'Your agent account is disabled. Please contact the operator.',
  );
  const stranger = newPhone();
  await sms(stranger, `SELL ELEC ${TEST_METERS.active} 10 ${newPhone()}`);
  expect((await waitForSms(gateway, stranger, 1))[0].message).toBe(
    'This number is not registered as an agent.',
  );
  expect(await outbox(gateway, stranger)).toHaveLength(1);
});
