import { main, EXIT } from '../../src/cli/main';
import { createAgents, type Agents } from '../../src/agents';
import { OutboxSender } from '../../src/messaging/outbox/driver';
import { MemoryOutboxStore } from '../../src/messaging/outbox/store';
import { BullmqSmsQueue } from '../../src/messaging/queue/bullmq';
import { SqlMessageStore } from '../../src/messaging/store/sql';
import type { Database } from '../../src/records/database';
import { bullPrefix } from '../../src/redis/connection';
import { testDatabase } from '../support/database';
import { testRedis, type TestRedis } from '../support/redis';
import { until } from '../support/wait';
import { AGENTS_CONFIG, PIN_SECRET } from './harness';

/**
 * A DEPOSIT approved or rejected from the CLI's direct mode (DATABASE_URL, no gateway asked) tells
 * the agent by SMS as /admin does: the same text and id, once per deposit and decision, kept in
 * the gateway's message store; with Redis it is queued, and a gateway's SMS worker sends it.
 */

let db: Database;
let schema: string;
let url: string;
let dropSchema: () => Promise<void>;
let agents: Agents;
let redis: TestRedis;

beforeAll(async () => {
  ({ db, schema, url, cleanup: dropSchema } = await testDatabase('agents_cli_sms'));
  agents = createAgents(db, AGENTS_CONFIG, { pinSecret: Buffer.from(PIN_SECRET) });
  redis = testRedis('cli-deposit');
});
afterAll(async () => {
  await redis.cleanup();
  await dropSchema();
});

async function run(argv: string[], env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const code = await main(['agent', ...argv], {
    stdout: (l) => out.push(l),
    stderr: (l) => out.push(l),
    env: { NODE_ENV: 'test', DATABASE_URL: url, DATABASE_SCHEMA: schema, ...env },
  });
  return { code, out: out.join('\n') };
}

/** An agent on a float with a deposit reported (DEPOSIT by SMS does the same). */
async function reported(msisdn: string, reference: string): Promise<string> {
  const { agent } = await agents.registry.add({ msisdn, name: 'Depositor', funding: { kind: 'float' } });
  const deposit = await agents.float.reportDeposit(agent, agents.float.money(25_000), reference);
  if (!deposit) throw new Error('deposit not reported');
  return String(deposit.id);
}

const messagesTo = async (to: string) =>
  (
    await db.query<{ id: string; status: string; message: string; kind: string }>(
      'SELECT id, status, message, kind FROM sms_messages WHERE recipient = $1',
      [to],
    )
  ).rows.map((row) => ({ ...row, message: db.sealer.open(row.message) }));

it('without Redis: the approval SMS is kept queued in the message store, once however often it is asked', async () => {
  const msisdn = '26775000001';
  const id = await reported(msisdn, 'BANK-CLI-1');
  expect((await run(['approve-deposit', '--id', id], {})).code).toBe(EXIT.ok);
  // Asked again: decided before, nothing changed, no second SMS.
  expect((await run(['approve-deposit', '--id', id], {})).out).toMatch(
    /was approved before: nothing changed/,
  );
  expect(await messagesTo(msisdn)).toEqual([
    {
      id: expect.stringContaining(`deposit%3A${id}%3Aapproved`),
      status: 'queued',
      kind: 'sms-reply',
      message: 'Deposit BWP 250.00 ref BANK-CLI-1 approved. Your float: BWP 250.00.',
    },
  ]);
});

it('with Redis: the rejection SMS is queued for the gateway, whose SMS worker sends it', async () => {
  const msisdn = '26775000002';
  const id = await reported(msisdn, 'BANK-CLI-2');
  const rejected = await run(['reject-deposit', '--id', id, '--note', 'no such transfer'], {
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
  });
  expect(rejected.code).toBe(EXIT.ok);
  // The gateway's worker: the same store and queue, with the outbox as its SMS provider.
  const outbox = new MemoryOutboxStore();
  const worker = new BullmqSmsQueue({
    connection: { url: redis.url, maxRetriesPerRequest: null },
    prefix: bullPrefix(redis.prefix, false),
    store: new SqlMessageStore(db),
    sender: new OutboxSender(outbox),
  });
  try {
    const sent = await until('the rejection sent', async () => {
      const rows = await messagesTo(msisdn);
      return rows[0]?.status === 'sent' ? rows : null;
    });
    expect(sent).toHaveLength(1);
    expect((await outbox.list()).map((m) => [m.to, m.message])).toEqual([[msisdn, sent[0].message]]);
    expect(sent[0].message).toMatch(/BANK-CLI-2/);
  } finally {
    await worker.close();
  }
});
