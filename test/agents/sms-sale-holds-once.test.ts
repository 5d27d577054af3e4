import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import type { Database, Queryable } from '../../src/records/database';
import { TEST_METERS } from '../../src/sandbox';
import { newPhone, outbox, OUTBOX_ADMIN_TOKEN, startTestGateway } from '../e2e/harness';
import { testDatabase } from '../support/database';
import { until } from '../support/wait';

/**
 * An agent's sale by SMS holds its float once: the YES holds the total before it claims the quote
 * (a refusal leaves the quote for a corrected YES), and the Buy takes no second hold of its own —
 * one float_reserve per sale, and the sale goes through as before.
 */

const auth = { headers: { authorization: `Bearer ${OUTBOX_ADMIN_TOKEN}` } };
let db: Database;
let cleanup: () => Promise<void>;
let gateway: Gateway;
/** Every statement the gateway sent to its records, transactions included. */
const statements: string[] = [];

/** `db` with every statement it runs written down. */
function counted(inner: Database): Database {
  const watch = (q: Queryable): Queryable => ({
    query: (text, params) => {
      statements.push(text);
      return q.query(text, params);
    },
  });
  return new Proxy(inner, {
    get(target, name, receiver) {
      if (name === 'query') return watch(target).query;
      if (name === 'transaction')
        return <T>(work: (tx: Queryable) => Promise<T>) => target.transaction((tx) => work(watch(tx)));
      const value = Reflect.get(target, name, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

beforeAll(async () => {
  ({ db, cleanup } = await testDatabase('sms_hold_once'));
  gateway = await startTestGateway(
    { ADMIN_TOKEN: OUTBOX_ADMIN_TOKEN, SMS_REPLIES_PER_MIN: '200', SMS_RATE_PER_MIN: '200' },
    { records: counted(db) },
  );
});
afterAll(async () => {
  await gateway?.close();
  await cleanup();
});

let seq = 0;
async function send(from: string, text: string): Promise<string> {
  const before = (await outbox(gateway, from)).length;
  await axios.post(`${gateway.url}/sms/inbound`, {
    from: `+${from}`,
    to: '12345',
    text,
    receivedAt: 'now',
    id: `hold-once-${process.pid}-${++seq}`,
  });
  const messages = await until(`an answer to ${from}`, async () => {
    const all = await outbox(gateway, from);
    return all.length > before ? all : null;
  });
  return messages[0].message;
}

it('holds the float once per SMS sale (one float_reserve), and the sale is written', async () => {
  const agent = newPhone();
  const added = await axios.post(
    `${gateway.url}/admin/agents`,
    { msisdn: agent, name: 'Kgosi', float: true },
    auth,
  );
  await axios.post(
    `${gateway.url}/admin/agents/${agent}/credits`,
    { amount: 'BWP 5000.00', reference: `top-${agent}` },
    auth,
  );
  expect(await send(agent, `PIN ${added.data.oneTimePin as string} 480273`)).toBe('Your PIN is changed.');
  const quote = await send(agent, `SELL ELEC ${TEST_METERS.active} 100 ${newPhone()}`);
  const code = /YES (\d{4}) <PIN>/.exec(quote)?.[1];
  if (!code) throw new Error(`no quote: ${quote}`);

  statements.length = 0;
  await axios.post(`${gateway.url}/sms/inbound`, {
    from: `+${agent}`,
    to: '12345',
    text: `YES ${code} 480273`,
    receivedAt: 'now',
    id: `hold-once-${process.pid}-${++seq}`,
  });
  // The purchase written: every hold of the YES is behind it.
  await until('the sale to be a purchase', async () => {
    const { rows } = await db.query('SELECT 1 FROM purchases WHERE agent_msisdn = $1', [agent]);
    return rows.length === 1;
  });
  const { rows } = await db.query<{ state: string }>(`SELECT state FROM float_holds WHERE msisdn = $1`, [
    agent,
  ]);
  expect(rows.map((row) => row.state)).toEqual([expect.stringMatching(/^(held|settled)$/)]);
  expect(statements.filter((text) => text.includes('float_reserve(')).length).toBe(1);
}, 60_000);
