import { Client } from 'pg';
import type { Gateway, GatewayOptions } from '../../src/gateway/app';
import { migrate } from '../../src/records/migrate';
import {
  countTransactions,
  openPostgres,
  type Database,
  type TransactionCounts,
} from '../../src/records/database';
import { startSandbox, TEST_METERS, type RunningSandbox } from '../../src/sandbox';
import { hop, newPhone, startTestGateway } from '../e2e/harness';
import { TEST_DATABASE_URL } from '../support/database';
import { deleteKeysUnder, testRedis, type TestRedis } from '../support/redis';
import { sandboxServiceEnv } from '../support/sandbox-env';
import { until } from '../support/wait';

/**
 * Issue 29, Performance: "aim for no more than three commits per purchase". The gateway keeps its
 * records in a PostgreSQL database of its own, so `pg_stat_database.xact_commit` counts its commits
 * and nothing else (every autocommit statement, reads included, is one). A whole USSD purchase is
 * played end to end — dial, menu, meter, amount, quote, Buy on the HTTP path, then the worker's
 * confirm, outcome and token SMS — and its commits are counted once every backend has ended (a
 * backend reports its counts when it exits).
 *
 * The aim is not reached yet: this holds what has been merged (18.6 commits a purchase, then
 * 13.3, now 8.5 without the payment step; docs/performance.md says which remain) and prints each transaction, write or
 * read-only (`countTransactions`), per purchase.
 */

const PURCHASES = 16;

/** A gateway on a database of its own, whose commits are counted and sorted. */
interface Counted {
  name: string;
  url: string;
  records: Database;
  counted: { db: Database; counts: TransactionCounts };
  sent: Map<string, number>;
  counting: boolean;
  gateway: Gateway;
}

let admin: Client;
let sandbox: RunningSandbox;
let redis: TestRedis;
const started: Counted[] = [];

/** The database's commits and sessions so far, all of them: its backends are ended first. */
async function commits(name: string): Promise<{ commits: number; sessions: number }> {
  await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [name],
  );
  await until('the database to have no connections', async () => {
    const { rows } = await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [
      name,
    ]);
    return rows[0].n === 0;
  });
  const read = async () => {
    await admin.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await admin.query(
      `SELECT xact_commit::bigint::text AS n, sessions::bigint::text AS s
         FROM pg_stat_database WHERE datname = $1`,
      [name],
    );
    return { commits: Number(rows[0].n), sessions: Number(rows[0].s) };
  };
  // An exiting backend reports as it goes: read until two reads agree.
  let last = await read();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = await read();
    if (now.commits === last.commits && now.sessions === last.sessions) return now;
    last = now;
  }
}

/** Purchases settled and their token SMS sent, read on a connection the count then leaves out. */
async function finished(url: string): Promise<{ done: number; probeCommits: number }> {
  const probe = new Client({ connectionString: urlWithUser(url) });
  await probe.connect();
  try {
    const { rows } = await probe.query(
      `SELECT count(*)::int AS n FROM purchases p
        WHERE p.state = 'succeeded' AND p.notified
          AND EXISTS (SELECT 1 FROM sms_messages m WHERE m.purchase_id = p.id AND m.status = 'sent')`,
    );
    // The session's start is a transaction of its own, then the statement.
    return { done: rows[0].n, probeCommits: 2 };
  } finally {
    await probe.end();
  }
}

function urlWithUser(connection: string): string {
  const parsed = new URL(connection);
  if (!parsed.username) parsed.username = process.env.PGUSER || process.env.USER || 'postgres';
  return parsed.toString();
}

const head = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A gateway whose records are counted: each transaction by its statements, write or read. */
async function countedGateway(
  label: string,
  env: Record<string, string>,
  options: Omit<GatewayOptions, 'records'> = {},
): Promise<Counted> {
  const name = `commits_${label}_${process.pid}_${Date.now().toString(36)}`;
  const parsed = new URL(TEST_DATABASE_URL);
  parsed.pathname = `/${name}`;
  const url = parsed.toString();
  await admin.query(`CREATE DATABASE ${name}`);
  const records = await openPostgres({ url, applicationName: 'commits-test' });
  await migrate(records);
  // Autovacuum's own transactions count in the database's commits: none during the count.
  const tables = await records.query<{ name: string }>(
    `SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public'`,
  );
  for (const { name: table } of tables.rows)
    await records.query(
      `ALTER TABLE ${table} SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)`,
    );
  const sent = new Map<string, number>();
  const c = { name, url, records, sent, counting: false } as Counted;
  c.counted = countTransactions(records, (kind, statements) => {
    if (!c.counting) return;
    const what =
      statements.length === 1
        ? `${kind}: ${head(statements[0]).slice(0, 70)}`
        : `${kind}: BEGIN ${statements.map((text) => head(text).slice(0, 40).trim()).join(' ; ')}`;
    sent.set(what, (sent.get(what) ?? 0) + 1);
  });
  started.push(c);
  c.gateway = await startTestGateway(
    {
      REDIS_URL: redis.url,
      REDIS_PREFIX: `${redis.prefix}${label}:`,
      // The worker in this process, and no periodic sweep reading the records while they are counted.
      PURCHASE_SWEEP_INTERVAL_MS: '3600000',
      ...env,
    },
    { ...options, records: c.counted.db },
  );
  return c;
}

beforeAll(async () => {
  admin = new Client({ connectionString: urlWithUser(TEST_DATABASE_URL) });
  await admin.connect();
  sandbox = await startSandbox({ port: 0, silent: true });
  redis = testRedis('commits');
});

afterAll(async () => {
  for (const c of started) {
    await c.gateway?.close();
    await c.records.close();
    await admin.query(`DROP DATABASE IF EXISTS ${c.name} WITH (FORCE)`);
  }
  await deleteKeysUnder(redis.redis, redis.prefix);
  await redis.cleanup();
  await sandbox?.close();
  await admin.end();
}, 60_000);

/** One whole purchase by USSD: electricity, the meter, BWP 10, Buy. */
async function buy(gateway: Gateway): Promise<void> {
  const phone = newPhone();
  const session = `commits-${phone}`;
  const typed: string[] = [];
  let reply = await hop(gateway, session, phone, '');
  for (const input of ['1', TEST_METERS.active, '10', '1']) {
    // A build that asks who gets the token (USSD_ASK_TOKEN_RECIPIENT) is answered "This phone".
    if (reply.screen.startsWith('Send the token to')) {
      typed.push('1');
      reply = await hop(gateway, session, phone, typed.join('*'));
    }
    typed.push(input);
    reply = await hop(gateway, session, phone, typed.join('*'));
  }
  expect(reply.end).toBe(true);
}

/** What `PURCHASES` whole purchases commit, each: all, writes, reads, and by transaction. */
async function measure(c: Counted) {
  // A first purchase warms what is done once per process (the catalogue, the worker's queues).
  await buy(c.gateway);
  await until('the first purchase to be told', async () => (await finished(c.url)).done === 1, {
    timeoutMs: 30_000,
  });
  const before = await commits(c.name);
  const counts = { ...c.counted.counts };
  c.counting = true;
  for (let i = 0; i < PURCHASES; i += 1) await buy(c.gateway);
  let probeCommits = 0;
  let probes = 0;
  await until(
    'every purchase settled and its token SMS sent',
    async () => {
      const look = await finished(c.url);
      probeCommits += look.probeCommits;
      probes += 1;
      return look.done === PURCHASES + 1;
    },
    { timeoutMs: 60_000, everyMs: 100 },
  );
  const after = await commits(c.name);
  const perPurchase = (after.commits - before.commits - probeCommits) / PURCHASES;
  c.counting = false;
  const writes = (c.counted.counts.writes - counts.writes) / PURCHASES;
  const reads = (c.counted.counts.reads - counts.reads) / PURCHASES;
  // What the gateway committed per purchase (a transaction is one commit, whatever it holds).
  const table = [...c.sent].map(([what, n]) => `${(n / PURCHASES).toFixed(2)}  ${what}`).join('\n');
  // Printed for docs/performance.md: the figures, whatever the assertions say.
  process.stdout.write(
    `${c.name.split('_')[1]}: commits per purchase, end to end: ${perPurchase.toFixed(2)} ` +
      `(${writes.toFixed(2)} write transactions, ${reads.toFixed(2)} read-only)\n${table}\n`,
  );
  // Every commit the database counted is one the instrumentation sorted, or a session's start (one
  // commit each: the pool's connections reopened after the count, or after 10 s idle).
  const sessions = after.sessions - before.sessions - probes;
  // (Within ten: on a busy machine some land outside the count's window.) An
  // unsorted commit per purchase would be 16.
  expect(writes + reads).toBeLessThanOrEqual(perPurchase + 0.01);
  const unsorted = Math.round((perPurchase - writes - reads) * PURCHASES);
  process.stdout.write(`commits not sorted: ${unsorted}, sessions started: ${sessions}\n`);
  // With the payment step some commits come from outside the instrumented pool (17 to 67 in a
  // run, not explained yet): only the sorted figures are held there.
  if (!c.name.startsWith('commits_pay_')) expect(unsorted).toBeLessThanOrEqual(sessions + 10);
  const per = (start: string) =>
    [...c.sent].filter(([what]) => what.startsWith(start)).reduce((sum, [, n]) => sum + n, 0) / PURCHASES;
  return { perPurchase, writes, reads, per, sent: c.sent };
}

/** The Buy's transaction (the purchase, its spend reservation, its history row; its payment row). */
const BUY = 'write: WITH existing AS ( SELECT record FROM purchases WHERE idempotency_key';
const LOCKED =
  'write: BEGIN SELECT record FROM purchases WHERE id = ; WITH current AS ( SELECT id, state FROM';

/** What every purchase commits once, with or without the payment step. */
function expectTheMerges(per: (start: string) => number, sent: Map<string, number>) {
  // The dial: is the caller an agent, and its saved meters, in one statement (caller-on-dial.ts).
  expect(per('read: SELECT (SELECT row_to_json(agent) FROM (SELECT msisdn, name')).toBe(1);
  expect(per('read: SELECT msisdn, name, language')).toBe(0);
  expect(per('read: SELECT product_type, identifier, name, last_bought_at')).toBe(0);
  // The quote's spending check is one statement, the Buy one transaction (no read of its key first),
  // the confirm's read and `created → confirming` one transaction.
  expect(per('read: SELECT EXISTS (SELECT 1 FROM blocklist')).toBe(1);
  // (With the payment step, the Buy's transaction also writes the payment row.)
  expect(per(BUY) + per('write: BEGIN WITH existing AS ( SELECT record FROM pu')).toBe(1);
  expect(per('read: SELECT record FROM purchases WHERE idempotency_key')).toBe(0);
  expect(sent.get(LOCKED)! / PURCHASES).toBe(1);
  // The paid hook reads no purchase: the payment's move read it (PurchaseGlance).
  expect(per('read: SELECT record FROM purchases WHERE id = ')).toBe(0);
  // The success, the note that it was told, its saved meter and its SMS rows: one transaction, no
  // transition alone, no saved meter alone.
  const outcome = `${LOCKED} ; SAVEPOINT saved_meter`;
  expect(per(outcome)).toBe(1);
  expect(
    [...sent].some(
      ([what, n]) => what.startsWith(outcome) && what.includes('INSERT INTO sms_messages') && n === PURCHASES,
    ),
  ).toBe(true);
  expect(per('write: WITH current AS ( SELECT id, state FROM purchases')).toBe(0);
  expect(per('write: INSERT INTO sms_messages')).toBe(0);
  expect(per('write: BEGIN SELECT pg_advisory_xact_lock(hashtext($1 ; INSERT INTO saved_meters')).toBe(0);
  // The token SMS is written claimed for its first attempt (`sending`) with the outcome: its job
  // reads and marks nothing before the send; only its `sent` mark is a commit of its own.
  expect(per('write: WITH found AS ( SELECT id AS found_id, status AS previous FROM sms_mes')).toBe(0);
  expect(per('read: SELECT id, kind, purchase_id')).toBe(0);
  expect(per("write: BEGIN UPDATE sms_messages SET status = 'sent'")).toBe(1);
}

it(`counts the PostgreSQL commits of a purchase end to end, no payment step (${PURCHASES} purchases)`, async () => {
  // The sale on the operator's wallet (no mobile-money step).
  const { perPurchase, writes, reads, per, sent } = await measure(
    await countedGateway('nopay', { ...sandboxServiceEnv(sandbox.url), PAYMENT_PROVIDER: 'none' }),
  );
  expectTheMerges(per, sent);
  // Issue 29 aims at 3: the worker's are 3 (confirm start, outcome, sent mark), the HTTP path's 1
  // write and the dialogue's 3 reads (docs/performance.md). A new commit per purchase fails here.
  expect(writes).toBe(4);
  expect(reads).toBe(3);
  expect(perPurchase).toBeLessThanOrEqual(8);
});

it(`counts them with the payment step: collected by mobile money, its callback (${PURCHASES} purchases)`, async () => {
  // The embedded sandboxes: the payment sandbox approves an unlisted number's prompt and calls back.
  const { writes, reads, per, sent } = await measure(
    await countedGateway('pay', {}, { paymentSandbox: { approveDelayMs: 10 } }),
  );
  expectTheMerges(per, sent);
  // What the token SMS says was paid is read inside the outcome's transaction, not on its own.
  expect(per('read: SELECT record FROM payments WHERE purchase_id')).toBe(0);
  expect(
    [...sent].some(
      ([what, n]) =>
        what.includes('SAVEPOINT saved_meter') &&
        what.includes('SELECT record FROM payments WHERE purcha') &&
        n === PURCHASES,
    ),
  ).toBe(true);
  // The paid callback in one transaction: the provider key's lock, the notice kept with the payment
  // it names read, the move to `successful` with the notice noted applied.
  const lock = 'write: BEGIN SELECT pg_advisory_xact_lock(hashtextext ; ';
  expect(
    per(`${lock}WITH kept AS ( INSERT INTO payment_notic ; WITH moved AS ( UPDATE payments SET stat`),
  ).toBe(1);
  // The collect's answer: the key's lock, then the move to `pending` that also reads the notices
  // kept under the key before it (a callback that beat the answer): no read of its own.
  expect(per(`${lock}WITH moved AS ( UPDATE payments SET stat`)).toBe(1);
  expect(per('read: SELECT id::text, notice FROM payment_notices WHERE payment_id IS NULL')).toBe(0);
  // Under the lock neither side can miss the other: no read again by the provider's key, no move
  // that lost its compare-and-set, no note of a notice alone, whatever the race.
  expect(per('read: SELECT record FROM payments WHERE provider = $1 AND provider_reference')).toBe(0);
  expect(per('write: UPDATE payment_notices')).toBe(0);
  expect(per('read: UPDATE payment_notices')).toBe(0);
  expect(per('write: INSERT INTO payment_notices')).toBe(0);
  expect(per('write: WITH kept AS ( INSERT INTO payment_notices')).toBe(0);
  expect(per('read: SELECT record FROM purchases WHERE subscriber_identifier')).toBe(1);
  // 6 writes and 3 reads with the payment step (docs/performance.md): the no-payment ones, the
  // payment row in the Buy's transaction, the collect's answer, the callback; the dial, meter
  // and quote reads. A callback racing the answer is applied by it as an early notice (a move of
  // its own, then no callback move): the same count. A new commit per purchase fails here.
  const unnamed = [...sent]
    .filter(([, n]) => n % PURCHASES !== 0)
    .map(([what, n]) => `${(n / PURCHASES).toFixed(2)} ${what}`);
  if (unnamed.length > 0)
    process.stdout.write(`transactions of the race, or unexplained:\n${unnamed.join('\n')}\n`);
  expect(writes).toBeGreaterThanOrEqual(6 - 1e-9);
  expect(writes).toBeLessThan(6.5);
  expect(reads).toBe(3);
});
