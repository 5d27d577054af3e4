import axios from 'axios';
import { Cluster, type Redis } from 'ioredis';
import type { Gateway } from '../../src/gateway/app';
import { bullPrefix } from '../../src/redis/connection';
import { hashSlot } from '../../src/redis/keys';
import { TEST_METERS } from '../../src/sandbox';
import { dialogue, ledger, newPhone, outbox, startTestGateway, waitForSms } from '../e2e/harness';
import { OwnRedisCluster } from '../support/redis-cluster';
import { testPrefix } from '../support/redis';
import { runEveryScript } from '../support/every-script';
import { until } from '../support/wait';

/**
 * The gateway on a local 3-master Redis Cluster (`REDIS_CLUSTER=true`): a USSD purchase, an
 * SMS-MO purchase and an agent sale end to end, BullMQ under its hash-tagged prefix, and every
 * store script run on it. Proof that no multi-key command ever crossed slots: each master's
 * `INFO errorstats` counts no CROSSSLOT error at the end.
 */

const ADMIN = 'cluster-admin-token-0123456789';
const auth = { headers: { authorization: `Bearer ${ADMIN}` } };
const cluster = new OwnRedisCluster();
const prefix = testPrefix('cluster');
let gateway: Gateway;
let client: Cluster;

beforeAll(async () => {
  await cluster.start();
  client = new Cluster([{ host: '127.0.0.1', port: cluster.ports[0] }]);
  gateway = await startTestGateway({
    REDIS_URL: cluster.url,
    REDIS_CLUSTER: 'true',
    REDIS_PREFIX: prefix,
    ADMIN_TOKEN: ADMIN,
    SMS_REPLIES_PER_MIN: '50',
  });
});

afterAll(async () => {
  await gateway?.close();
  client?.disconnect();
  await cluster.destroy();
});

/** Every key under `prefix` on every master, and the slots they fall in. */
async function keysEverywhere(match: string): Promise<string[]> {
  const keys: string[] = [];
  for (const node of client.nodes('master')) keys.push(...(await node.keys(match)));
  return keys;
}

async function debitsFor(identifier: string): Promise<number> {
  return (await ledger(gateway.purchaseServiceUrl)).filter(
    (row) => row.subscriber_identifier === identifier && row.debited_minor > 0,
  ).length;
}

it('a USSD purchase: token SMS, one debit', async () => {
  const phone = newPhone();
  const before = await debitsFor(TEST_METERS.active);
  const replies = await dialogue(gateway, `cl-${phone}`, phone, ['1', TEST_METERS.active, '1', '100', '1']);
  expect(replies[4].screen).toContain('Total: BWP 101.50');
  expect(replies.at(-1)?.end).toBe(true);
  expect((await waitForSms(gateway, phone))[0].message).toMatch(/Token: [\d ]+/);
  expect(await debitsFor(TEST_METERS.active)).toBe(before + 1);
});

it('an SMS-MO purchase: quote, YES <code>, token SMS, one debit', async () => {
  const phone = newPhone();
  const meter = TEST_METERS.active13;
  const before = await debitsFor(meter);
  const send = (id: string, text: string) =>
    axios.post(`${gateway.url}/sms/inbound`, { id, from: phone, to: '12345', text, receivedAt: 'now' });
  await send(`mo-${phone}-1`, `ELEC ${meter} 50`);
  const quote = (await waitForSms(gateway, phone, 1))[0].message;
  const code = /YES (\d{4})/.exec(quote)![1];
  await send(`mo-${phone}-2`, `YES ${code}`);
  // The token SMS, whatever else the purchase says to the phone on the way.
  await until('the token SMS', async () =>
    (await outbox(gateway, phone)).find((sms) => /Token: [\d ]+/.test(sms.message)),
  );
  expect(await debitsFor(meter)).toBe(before + 1);
});

it('an agent sale over USSD: the customer’s token, one debit, the float debited', async () => {
  const agent = newPhone();
  const customer = newPhone();
  const meter = TEST_METERS.tariffCharge;
  const added = await axios.post(
    `${gateway.url}/admin/agents`,
    { msisdn: agent, name: 'Mma', float: true },
    auth,
  );
  await axios.post(
    `${gateway.url}/admin/agents/${agent}/credits`,
    { amount: 'BWP 300.00', reference: `t-${agent}` },
    auth,
  );
  await axios.post(`${gateway.url}/sms/inbound`, {
    id: `pin-${agent}`,
    from: agent,
    to: '1',
    text: `PIN ${added.data.oneTimePin} 5937`,
    receivedAt: 'now',
  });
  expect((await waitForSms(gateway, agent, 1))[0].message).toBe('Your PIN is changed.');
  const before = await debitsFor(meter);
  const replies = await dialogue(gateway, `ag-${agent}`, agent, ['5937', '1', meter, '100', customer, '1']);
  expect(replies.at(-1)?.end).toBe(true);
  expect((await waitForSms(gateway, customer, 1))[0].message).toMatch(/Token: /);
  expect((await waitForSms(gateway, agent, 2))[0].message).toMatch(/Float: BWP 198.50/);
  expect(await debitsFor(meter)).toBe(before + 1);
});

it('BullMQ keeps every key of its queues in one slot, under the hash-tagged prefix', async () => {
  const bull = await keysEverywhere(`${bullPrefix(prefix, true)}*`);
  expect(bull.length).toBeGreaterThan(0);
  expect(new Set(bull.map(hashSlot)).size).toBe(1);
});

it("ready on the Cluster, and the queues' backlog read from it (before the CROSSSLOT check)", async () => {
  const ready = await fetch(`${gateway.url}/readyz`);
  expect([ready.status, await ready.json()]).toEqual([
    200,
    { status: 'ready', role: 'gateway', checks: { records: 'ok', migrations: 'ok', redis: 'ok' } },
  ]);
  const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
  expect(metrics).toContain('readiness_check_ok{check="redis"} 1');
  expect(metrics).toMatch(/^queue_jobs\{queue="purchases",state="waiting"\} \d+$/m);
  expect(metrics).toMatch(/^queue_oldest_waiting_seconds\{queue="sms-notify"\} [\d.]+$/m);
});

it('every store script runs on the Cluster', async () => {
  await runEveryScript(client as unknown as Redis, `${prefix}-scripts`);
});

it('no command ever crossed slots: no CROSSSLOT error on any master', async () => {
  for (const node of client.nodes('master')) {
    const stats = await node.info('errorstats');
    expect({
      node: node.options.port,
      crossslot: /errorstat_CROSSSLOT:count=(\d+)/.exec(stats)?.[1] ?? '0',
    }).toEqual({
      node: node.options.port,
      crossslot: '0',
    });
  }
  // And the gateway's keys really are spread over the three masters.
  const masters = await Promise.all(
    client.nodes('master').map(async (node) => (await node.keys(`${prefix}*`)).length),
  );
  expect(masters.filter((count) => count > 0).length).toBeGreaterThan(1);
});
