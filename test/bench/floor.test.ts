import { Redis } from 'ioredis';
import { floorEngine } from '../../bench/floor-engine';
import type { Gateway } from '../../src/gateway/app';
import { startSandbox, TEST_METERS, type RunningSandbox } from '../../src/sandbox';
import { sessionKeys } from '../../src/ussd/engine/store';
import { hop, ledger, newPhone, startTestGateway } from '../e2e/harness';
import { deleteKeysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';
import { until } from '../support/wait';
import { sandboxServiceEnv } from '../support/sandbox-env';

/**
 * The benchmark's floor (bench/floor-engine.ts) does the work it is measured for: served by the
 * real gateway on Redis, its dialogue validates the quote with the purchase service and hands
 * one purchase to the desk, which the lifecycle fulfils; every hop's record is in Redis; a
 * re-sent Buy is replayed, not bought again; a hop of another number is refused.
 */

const prefix = testPrefix('floor');
let sandbox: RunningSandbox;
let redis: Redis;
let gateway: Gateway;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
  redis = new Redis(TEST_REDIS_URL);
  gateway = await startTestGateway(
    {
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      ...sandboxServiceEnv(sandbox.url),
    },
    { hopEngine: floorEngine },
  );
});

afterAll(async () => {
  await gateway.close();
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
  await sandbox.close();
});

it('plays the bench dialogue: a record per hop, the quoted intent, one purchase fulfilled, the Buy replayed when re-sent', async () => {
  const phone = newPhone();
  const session = `floor-${phone}`;
  const meter = TEST_METERS.active;
  const record = async () =>
    JSON.parse(
      (await redis.get(sessionKeys(prefix, { aggregator: 'africastalking', sessionId: session }).record))!,
    );

  const steps = ['', '1', `1*${meter}`, `1*${meter}*10`];
  for (const [i, text] of steps.entries()) {
    const reply = await hop(gateway, session, phone, text);
    expect(reply.end).toBe(false);
    expect(await record()).toMatchObject({ hops: i + 1, status: 'active', lastText: text });
  }
  expect((await record()).snapshot.intent).toMatchObject({
    subscriberIdentifier: meter,
    amount: { minor: 1000 },
  });

  // Another number on the same session is refused and changes nothing.
  expect((await hop(gateway, session, newPhone(), `1*${meter}*10*1`)).end).toBe(true);
  expect(await record()).toMatchObject({ hops: 4, status: 'active' });

  const bought = await hop(gateway, session, phone, `1*${meter}*10*1`);
  expect(bought).toMatchObject({ end: true, screen: expect.stringContaining('Thank you') });
  expect(await hop(gateway, session, phone, `1*${meter}*10*1`)).toEqual(bought);
  expect(await record()).toMatchObject({ hops: 5, status: 'final', snapshot: null });

  const [purchase] = await until('the purchase fulfilled', async () => {
    const found = await gateway.desk.listByMsisdn(phone);
    return found.length > 0 && found[0].state === 'succeeded' ? found : null;
  });
  expect(await gateway.desk.listByMsisdn(phone)).toHaveLength(1);
  expect(purchase.intent).toMatchObject({
    subscriberIdentifier: meter,
    amount: { currency: 'BWP', minor: 1000 },
  });
  const debits = (await ledger(sandbox.url)).filter(
    (row) => row.external_reference === purchase.externalReference,
  );
  expect(debits).toHaveLength(1);
});
