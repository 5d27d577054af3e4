import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Database, Queryable } from '../../src/records/database';
import type { Gateway } from '../../src/gateway/app';
import { startSandbox, TEST_METERS, type RunningSandbox } from '../../src/sandbox';
import { METERED_PRODUCTS, SqlSavedMeters } from '../../src/subscribers/saved-meters';
import { hop, newPhone, startTestGateway } from '../e2e/harness';
import { testDatabase, type TestDatabase } from '../support/database';
import { deleteKeysUnder, testRedis, type TestRedis } from '../support/redis';
import { sandboxServiceEnv } from '../support/sandbox-env';

/**
 * Issue 29, Performance: a hop that calls no service does not touch PostgreSQL. The gateway's
 * records are a real PostgreSQL schema seen through a counter of every statement and transaction
 * sent to it; the purchase service is the sandbox behind a counter of requests. Menus and prompts
 * (a product, Back, Home, the language menu, an identifier typed) then cost no round trip.
 */

/** Every statement (and transaction) the gateway sends to its records, in order. */
const sent: string[] = [];

function counted(db: Database): Database {
  const statements = (on: Queryable, tag: string): Queryable => ({
    query: (text, params) => {
      sent.push(`${tag}${text.replace(/\s+/g, ' ').slice(0, 80)}`);
      return on.query(text, params);
    },
  });
  const direct = statements(db, '');
  return {
    kind: db.kind,
    sealer: db.sealer,
    query: direct.query,
    transaction: (work) => {
      sent.push('BEGIN');
      return db.transaction((tx) => work(statements(tx, '  ')));
    },
    transactionInOneTrip: (work) => {
      sent.push('BEGIN (one trip)');
      return db.transactionInOneTrip((tx) => work(statements(tx, '  ')));
    },
    withAdvisoryLock: (key, work) => {
      sent.push(`advisory lock ${key}`);
      return db.withAdvisoryLock(key, (session) => work(statements(session, '  ')));
    },
    close: () => db.close(),
  };
}

let serviceRequests = 0;
let sandbox: RunningSandbox;
let service: http.Server;
let records: TestDatabase;
let redis: TestRedis;
let gateway: Gateway;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
  // The purchase service as the gateway sees it: the sandbox, each request counted.
  service = http.createServer((req, res) => {
    serviceRequests += 1;
    const upstream = http.request(
      { host: '127.0.0.1', port: sandbox.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  records = await testDatabase('hops');
  redis = testRedis('hops');
  gateway = await startTestGateway(
    {
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      // The HTTP process alone: no worker's sweep reads the records in the background.
      GATEWAY_WORKERS: 'false',
      ...sandboxServiceEnv(`http://127.0.0.1:${(service.address() as AddressInfo).port}`),
    },
    { records: counted(records.db) },
  );
});

afterAll(async () => {
  await gateway.close();
  await records.cleanup();
  await deleteKeysUnder(redis.redis, redis.prefix);
  await redis.cleanup();
  await new Promise((resolve) => service.close(resolve));
  await sandbox.close();
});

it('answers menus and prompts without a statement to PostgreSQL', async () => {
  // Electricity, Back, Airtime, Back, Water, Home, Language, Back, Electricity, a meter typed.
  const inputs = ['1', '0', '2', '0', '3', '00', '5', '0', '1', TEST_METERS.active];
  for (const dialogue of [1, 2, 3]) {
    const phone = newPhone();
    const session = `no-records-${dialogue}-${phone}`;
    // The dial loads the catalogue and asks whether the caller is an agent: a service call.
    expect((await hop(gateway, session, phone, '')).end).toBe(false);
    for (let typed = 1; typed <= inputs.length; typed += 1) {
      const text = inputs.slice(0, typed).join('*');
      const [statementsBefore, requestsBefore] = [sent.length, serviceRequests];
      const reply = await hop(gateway, session, phone, text);
      expect({ text, end: reply.end, service: serviceRequests - requestsBefore }).toEqual({
        text,
        end: false,
        service: 0,
      });
      expect({ text, statements: sent.slice(statementsBefore) }).toEqual({ text, statements: [] });
    }
  }
});

it("reads a repeat buyer's saved meters once, on the dial; My meters shows them and a removal is one statement", async () => {
  const phone = newPhone();
  const meters = new SqlSavedMeters(records.db); // the records themselves: not counted
  await meters.remember(phone, 'ELECTRICITY', TEST_METERS.active, 'KABELO M', '2026-01-01T10:00:00.000Z');
  await meters.remember(phone, 'WATER', '5550000001', null, '2026-01-01T10:01:00.000Z');
  const session = `meters-${phone}`;
  const onHop = async (text: string) => {
    const before = sent.length;
    const reply = await hop(gateway, session, phone, text);
    return { reply, statements: sent.slice(before) };
  };

  const dial = await onHop('');
  // One statement on the dial: is the caller an agent, and its saved meters (caller-on-dial.ts).
  expect(dial.statements).toHaveLength(1);
  expect(dial.statements[0]).toMatch(/^SELECT \(SELECT row_to_json\(agent\) FROM \(SELECT msisdn, /);
  const line = (screen: string, label: RegExp) =>
    screen
      .split('\n')
      .find((l) => label.test(l))!
      .split(' ')[0];
  const elec = line(dial.reply.screen, /Electricity/);
  const myMeters = line(dial.reply.screen, /My meters/);

  // Electricity offers the saved meter; Back; My meters lists both products: no statement.
  const offered = await onHop(elec);
  expect(offered.reply.screen).toContain(`1 ${TEST_METERS.active} KABELO M`);
  expect(offered.statements).toEqual([]);
  expect((await onHop(`${elec}*0`)).statements).toEqual([]);
  const list = await onHop(`${elec}*0*${myMeters}`);
  expect(list.reply.screen).toMatch(new RegExp(`1 ${TEST_METERS.active} KABELO M\\n2 5550000001`));
  expect(list.statements).toEqual([]);
  const one = await onHop(`${elec}*0*${myMeters}*2`);
  expect(one.statements).toEqual([]);
  // Remove: one statement, which answers the list shown after it.
  const removed = await onHop(`${elec}*0*${myMeters}*2*1`);
  expect(removed.statements).toHaveLength(1);
  expect(removed.statements[0]).toMatch(/DELETE FROM saved_meters/);
  expect(removed.reply.screen).toContain(`1 ${TEST_METERS.active} KABELO M`);
  expect(removed.reply.screen).not.toContain('5550000001');
  expect(await meters.listOf(phone, METERED_PRODUCTS)).toHaveLength(1);
});
