import { Redis } from 'ioredis';
import type { Gateway } from '../../src/gateway/app';
import { startSandbox, TEST_METERS, type RunningSandbox } from '../../src/sandbox';
import { hop, ledger, newPhone, OUTBOX_ADMIN_TOKEN, startTestGateway, waitForSms } from './harness';
import { testRecordsEnv } from '../support/database';
import { TEST_REDIS_URL, testPrefix } from '../support/redis';
import { sandboxServiceEnv } from '../support/sandbox-env';

/**
 * With REDIS_URL the dialogue and the outbox live in Redis, the purchase in PostgreSQL
 * (DATABASE_URL): a gateway that stops between two hops of a dialogue is replaced by a new one
 * that continues it, and the purchase completes exactly once. Both gateways share one schema, as
 * two runs of one deployment share their database.
 */

const prefix = testPrefix('e2e');
const records = testRecordsEnv('restart');
let sandbox: RunningSandbox;
let redis: Redis;

function gatewayEnv(): Record<string, string> {
  return {
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    ...records.env,
    ...sandboxServiceEnv(sandbox.url),
    DEV_ROUTES: 'true', // the outbox, where the test reads the SMS (behind the admin token here)
    ADMIN_TOKEN: OUTBOX_ADMIN_TOKEN,
  };
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
  redis = new Redis(TEST_REDIS_URL);
});

afterAll(async () => {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
  await sandbox.close();
  await records.drop();
});

it('a gateway restart between two hops: the next gateway continues the dialogue and buys once', async () => {
  const phone = newPhone();
  const session = `restart-${phone}`;
  const meter = TEST_METERS.active;

  let gateway: Gateway = await startTestGateway(gatewayEnv());
  try {
    expect((await hop(gateway, session, phone, '')).screen).toContain('Welcome!');
    expect((await hop(gateway, session, phone, '1')).screen).toMatch(/Enter meter number/i);
  } finally {
    await gateway.close();
  }

  gateway = await startTestGateway(gatewayEnv());
  try {
    expect((await hop(gateway, session, phone, `1*${meter}`)).screen).toContain('Send the token to:');
    expect((await hop(gateway, session, phone, `1*${meter}*1`)).screen).toContain(
      'Enter the amount (BWP 5.00 to BWP 5000.00)',
    );
    const quote = await hop(gateway, session, phone, `1*${meter}*1*100`);
    expect(quote.screen).toContain('Total: BWP 101.50');
    const done = await hop(gateway, session, phone, `1*${meter}*1*100*1`);
    expect(done.end).toBe(true);
    // A re-delivery of the last hop after the purchase answers the same and buys nothing more.
    expect((await hop(gateway, session, phone, `1*${meter}*1*100*1`)).body).toBe(done.body);

    const [sms] = await waitForSms(gateway, phone);
    expect(sms.message).toMatch(/Token: [\d ]+/);
    const [record] = await gateway.desk.listByMsisdn(phone);
    expect(record.state).toBe('succeeded');
    const rows = (await ledger(sandbox.url)).filter(
      (row) => row.external_reference === record.externalReference,
    );
    expect(rows).toHaveLength(1);
  } finally {
    await gateway.close();
  }
});

it('the outbox and "My tokens" survive a restart too', async () => {
  const phone = newPhone();
  let gateway: Gateway = await startTestGateway(gatewayEnv());
  try {
    const steps = [
      '',
      '1',
      `1*${TEST_METERS.active13}`,
      `1*${TEST_METERS.active13}*1`,
      `1*${TEST_METERS.active13}*1*50`,
      `1*${TEST_METERS.active13}*1*50*1`,
    ];
    for (const text of steps) await hop(gateway, `buy-${phone}`, phone, text);
    await waitForSms(gateway, phone);
  } finally {
    await gateway.close();
  }

  gateway = await startTestGateway(gatewayEnv());
  try {
    expect(await waitForSms(gateway, phone)).toHaveLength(1);
    const menu = await hop(gateway, `mine-${phone}`, phone, '');
    const myTokens = /(\d+) My purchases/.exec(menu.screen)![1];
    const list = await hop(gateway, `mine-${phone}`, phone, myTokens);
    expect(list.screen).toContain('BWP 50.00');
  } finally {
    await gateway.close();
  }
});

it('with a real purchase service, /dev/sms (it holds tokens) answers only the admin token', async () => {
  const gateway = await startTestGateway(gatewayEnv());
  try {
    const open = await fetch(`${gateway.url}/dev/sms`);
    expect(open.status).toBe(401);
    const wrong = await fetch(`${gateway.url}/dev/sms`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    const allowed = await fetch(`${gateway.url}/dev/sms`, {
      headers: { authorization: `Bearer ${OUTBOX_ADMIN_TOKEN}` },
    });
    expect(allowed.status).toBe(200);
  } finally {
    await gateway.close();
  }
});
