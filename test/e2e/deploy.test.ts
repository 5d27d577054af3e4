import { Redis } from 'ioredis';
import type { UssdMachines } from '../../machines/ussd-versions';
import type { Gateway } from '../../src/gateway/app';
import { startSandbox, TEST_METERS, type RunningSandbox } from '../../src/sandbox';
import { sessionKeys } from '../../src/ussd/engine/store';
import { testRecordsEnv } from '../support/database';
import { DEPLOY } from '../support/next-ussd-machine';
import { deleteKeysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';
import { sandboxServiceEnv } from '../support/sandbox-env';
import { until } from '../support/wait';
import { hop, ledger, newPhone, type Reply, startTestGateway } from './harness';

/**
 * A machine change deployed while subscribers are mid-purchase (machines/README.md, "Shipping a
 * machine change"): whole gateways on one Redis and one PostgreSQL schema, as a rolling deploy
 * runs them. A dialogue goes on
 * on the machine version it started with on whichever instance its hop reaches, and its purchase
 * completes once. The next version is the gateway's machine with its quote state renamed
 * (test/support/next-ussd-machine.ts): it cannot restore the current version's quote snapshot.
 */

const prefix = testPrefix('deploy');
const records = testRecordsEnv('deploy');
let sandbox: RunningSandbox;
let redis: Redis;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
  redis = new Redis(TEST_REDIS_URL);
});

afterAll(async () => {
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
  await sandbox.close();
  await records.drop();
});

const gatewayOf = (machines: UssdMachines) =>
  startTestGateway(
    { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix, ...records.env, ...sandboxServiceEnv(sandbox.url) },
    { ussdMachines: machines },
  );

const meter = TEST_METERS.active;
/** An electricity purchase, hop by hop (Africa's Talking's cumulative text; the token to this phone), Buy last. */
const PURCHASE = ['', '1', `1*${meter}`, `1*${meter}*1`, `1*${meter}*1*100`, `1*${meter}*1*100*1`];

async function storedVersion(session: string): Promise<string> {
  const key = sessionKeys(prefix, { aggregator: 'africastalking', sessionId: session }).record;
  return JSON.parse((await redis.get(key))!).machineVersion;
}

/** Plays `texts` on `gateways` in turn; the replies and the record's version after each hop. */
async function play(gateways: Gateway[], session: string, phone: string, texts: string[]) {
  const replies: Reply[] = [];
  const versions: string[] = [];
  for (const [i, text] of texts.entries()) {
    replies.push(await hop(gateways[i % gateways.length], session, phone, text));
    versions.push(await storedVersion(session));
  }
  return { replies, versions };
}

/** One purchase for `phone`, fulfilled by the lifecycle, one debit in the service's ledger. */
async function expectOnePurchase(gateway: Gateway, phone: string): Promise<void> {
  const [record] = await until('the purchase fulfilled', async () => {
    const found = await gateway.desk.listByMsisdn(phone);
    return found.length > 0 && found[0].state === 'succeeded' ? found : null;
  });
  expect(await gateway.desk.listByMsisdn(phone)).toHaveLength(1);
  const rows = (await ledger(sandbox.url)).filter((r) => r.external_reference === record.externalReference);
  expect(rows).toHaveLength(1);
}

it('a dialogue started on version N is finished by a gateway built with N+1 as current: on N, one purchase', async () => {
  const phone = newPhone();
  const session = `deploy-n-${phone}`;
  const old = await gatewayOf(DEPLOY.before);
  let started;
  try {
    started = await play([old], session, phone, PURCHASE.slice(0, 4));
  } finally {
    await old.close();
  }
  const upgraded = await gatewayOf(DEPLOY.switch);
  try {
    const rest = await play([upgraded], session, phone, PURCHASE.slice(4));
    expect(started.replies[3].screen).toContain('Enter the amount');
    expect(rest.replies[0].screen).toContain('Total: BWP 101.50');
    expect(rest.replies[1]).toMatchObject({ end: true, screen: expect.stringContaining('Thank you') });
    expect(new Set([...started.versions, ...rest.versions])).toEqual(new Set([DEPLOY.before.start.version]));
    await expectOnePurchase(upgraded, phone);
  } finally {
    await upgraded.close();
  }
});

it('two gateways of a rolling deploy alternating hops on Redis: dialogues started on either finish on their own version', async () => {
  const old = await gatewayOf(DEPLOY.expand);
  const fresh = await gatewayOf(DEPLOY.switch);
  try {
    for (const [first, second, version] of [
      [old, fresh, DEPLOY.expand.start.version],
      [fresh, old, DEPLOY.switch.start.version],
    ] as const) {
      const phone = newPhone();
      const session = `deploy-alt-${phone}`;
      const { replies, versions } = await play([first, second], session, phone, PURCHASE);
      expect(replies.slice(0, 5).every((r) => !r.end && r.status === 200)).toBe(true);
      expect(replies[4].screen).toContain('Total: BWP 101.50');
      expect(replies[5]).toMatchObject({ end: true, screen: expect.stringContaining('Thank you') });
      expect(new Set(versions)).toEqual(new Set([version]));
      await expectOnePurchase(second, phone);
    }
  } finally {
    await Promise.all([old.close(), fresh.close()]);
  }
});
