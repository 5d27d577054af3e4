import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import axios from 'axios';
import { Redis } from 'ioredis';
import { ledgerDiscrepancies } from '../../src/agents/ledger/sql';
import { loadLocales } from '../../src/i18n';
import { SETTLED_STATES, type PurchaseRecord } from '../../src/purchases/types';
import { openPostgres, type Database } from '../../src/records/database';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { mayBeShortcut } from '../../src/ussd/engine/input';
import { hop, ledger, type LedgerRow, type Reply } from '../e2e/harness';
import { TEST_DATABASE_URL, testRecordsEnv } from '../support/database';
import { NodeProcess } from '../support/node-process';
import { OwnRedisServer } from '../support/redis-server';
import { sandboxServiceEnv } from '../support/sandbox-env';
import { until } from '../support/wait';
import { SmsSink, type SinkHit } from './sms-sink';

/**
 * Redis flushed mid-traffic (issue 29, "Redis restarted empty, again"), on the production layout:
 * a gateway process and a separate worker process (GATEWAY_WORKERS=false) on a redis-server of
 * their own and one PostgreSQL schema, the sandbox over HTTP, the SMS provider a sink. Traffic on
 * all three channels at once — subscribers over USSD (Africa's Talking hops) and by SMS
 * (`ELEC … / YES <code>`), agents selling by USSD and by SMS with their PINs — with confirms
 * answering slowly, then `FLUSHALL`, then both processes killed (SIGKILL) and started again on the
 * empty Redis. Judged from PostgreSQL, the sandbox ledger and what the SMS provider accepted:
 * every debit has its token SMS and one debit only; every agent's float is the sum of its entries
 * and what its sales cost, its lockout as before; the day's spend of a number as before (a further
 * purchase over it refused); dialogues cut by the flush answered with the polite "could not
 * finish", and My purchases (USSD) and TOKEN (SMS) then say whether a purchase was made.
 */

const ADMIN = 'redis-flush-admin-token-0123456789';
const auth = { headers: { authorization: `Bearer ${ADMIN}` } };
const FLOAT_MINOR = 100_000; // BWP 1000.00 credited to each agent
const AMOUNT = '100';
/** Confirms answer this late during the traffic, so the flush meets some in flight. */
const CONFIRM_SLOW_MS = 1500;
const SLOW_CONFIRMS = 6;
/** Purchases the traffic creates before Redis is flushed. */
const FLUSH_AFTER = 6;

const locales = loadLocales();
const t = (key: string, params?: Record<string, string | number>) => locales.t('en', key, params);
const INTERRUPTED = t('error.hopInterrupted');
const NO_PURCHASES = new RegExp(`^${escape(t('purchases.none'))}\n`);

const sink = new SmsSink();
const redisServer = new OwnRedisServer('none');
const records = testRecordsEnv('flush');
let sandbox: RunningSandbox;
let db: Database;
let gateway: NodeProcess;
let worker: NodeProcess;

let nextNumber = 0;
function phone(): string {
  nextNumber += 1;
  return `2677${String(1_000_000 + nextNumber)}`;
}
function meter(): string {
  nextNumber += 1;
  return `5${String(nextNumber).padStart(10, '0')}`;
}

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...records.env,
    ...sandboxServiceEnv(sandbox.url),
    REDIS_URL: redisServer.url,
    REDIS_PREFIX: 'flush',
    ADMIN_TOKEN: ADMIN,
    // Short timeouts and retry delays so the fault costs seconds, not the production minutes.
    PURCHASE_API_TIMEOUT_MS: '3000',
    PURCHASE_API_CONFIRM_TIMEOUT_MS: '4000',
    RECONCILE_BASE_DELAY_MS: '100',
    PURCHASE_SWEEP_INTERVAL_MS: '1000',
    USSD_HOP_BUDGET_MS: '6000',
    // A dialogue cut is not offered again: a new dial is a new dialogue (My purchases).
    USSD_RESUME_WINDOW_S: '0',
    // The paused dialogues and their shortcut-shaped next texts are the four-input Buy (product,
    // meter, amount, Buy): no "Send the token to" question between meter and amount.
    USSD_ASK_TOKEN_RECIPIENT: 'false',
    SMS_DRIVER: 'http',
    SMS_HTTP_URL: sink.url,
    SMS_RETRY_BASE_MS: '100',
    SMS_RETRY_MAX_DELAY_MS: '1000',
    SMS_RETRY_AFTER_MAX_MS: '3000',
    SMS_RATE_PER_MIN: '100',
    SMS_REPLIES_PER_MIN: '100',
    // A number's day: two purchases of 100 fit, a third does not.
    SPEND_DAY_MAX_VALUE: '250',
    LOG_LEVEL: 'error',
    ...extra,
  };
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true, meterLock: false });
  await sink.start();
  await redisServer.start();
  gateway = new NodeProcess('src/main.ts', env({ GATEWAY_WORKERS: 'false' }));
  worker = new NodeProcess('src/worker.ts', env({ WORKER_HEALTH_PORT: '0' }));
  await gateway.start(); // migrates the schema
  await worker.start();
  db = await openPostgres({ url: TEST_DATABASE_URL, schema: records.env.DATABASE_SCHEMA, max: 2 });
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  await worker?.stop();
  await db?.close();
  await records.drop();
  await sink.close();
  await sandbox?.close();
  await redisServer.destroy();
});

// ---- the three channels, as a subscriber, an agent and the SMS provider see them ----

function digits(text: string): string {
  return text.replace(/\D/g, '');
}

/** SMS the provider accepted for `to` (numbers without `+`). */
function smsTo(to: string): SinkHit[] {
  return sink.hits.filter((hit) => hit.accepted && hit.to.replace(/^\+/, '') === to);
}

/** The first SMS to `to` after the `seen` first ones that matches `pattern`. */
async function smsAfter(to: string, seen: number, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  return until(
    `an SMS to ${to} matching ${pattern}`,
    () =>
      smsTo(to)
        .slice(seen)
        .find((hit) => pattern.test(hit.message))?.message,
    { timeoutMs, everyMs: 50 },
  );
}

let smsSeq = 0;
/**
 * One inbound SMS, as Africa's Talking posts it; re-posted with the same id while the gateway
 * is away (the provider re-delivers what was not answered 200).
 */
async function sendSms(from: string, text: string, timeoutMs = 60_000): Promise<void> {
  const id = `flush-${process.pid}-${++smsSeq}`;
  const form = new URLSearchParams({ id, from: `+${from}`, to: '12345', text, date: 'now' });
  await until(
    `the gateway to take the SMS "${text.replace(/\d{4,6}$/, '<PIN>')}"`,
    async () =>
      (
        await axios
          .post(`${gateway.url}/sms/africastalking`, form, { validateStatus: () => true })
          .catch(() => null)
      )?.status === 200,
    { timeoutMs, everyMs: 100 },
  );
}

/** Sends `text` and waits for the reply matching `pattern`. */
async function ask(from: string, text: string, pattern: RegExp, timeoutMs?: number): Promise<string> {
  const seen = smsTo(from).length;
  await sendSms(from, text);
  return smsAfter(from, seen, pattern, timeoutMs);
}

/** A dialogue: hops one after another; stops at an END, or when the gateway does not answer. */
async function dial(
  session: string,
  msisdn: string,
  inputs: string[],
): Promise<{ replies: Reply[]; cut?: string }> {
  const replies: Reply[] = [];
  for (let i = 0; i <= inputs.length; i += 1) {
    try {
      const reply = await hop(gateway, session, msisdn, inputs.slice(0, i).join('*'));
      replies.push(reply);
      hopsAnswered += 1;
      if (reply.end) return { replies };
    } catch (error) {
      return { replies, cut: (error as Error).message };
    }
  }
  return { replies };
}
let hopsAnswered = 0;

/** My purchases over USSD, in a new dialogue: the screen listing the caller's purchases in every state. */
async function myPurchases(msisdn: string): Promise<string> {
  const session = `mp-${msisdn}-${Date.now()}`;
  const menu = await hop(gateway, session, msisdn, '');
  const option = /(\d+) My purchases/.exec(menu.screen)?.[1];
  if (!option) return menu.screen;
  return (await hop(gateway, session, msisdn, option)).screen;
}

async function addAgent(msisdn: string, pin: string): Promise<void> {
  const added = await axios.post(
    `${gateway.url}/admin/agents`,
    { msisdn, name: 'Kgosi Stores', float: true },
    auth,
  );
  await axios.post(
    `${gateway.url}/admin/agents/${msisdn}/credits`,
    { amount: 'BWP 1000.00', reference: `top-${msisdn}` },
    auth,
  );
  await ask(msisdn, `PIN ${added.data.oneTimePin as string} ${pin}`, /^Your PIN is changed\.$/);
}

// ---- what the records, the ledger and the provider say ----

async function purchases(): Promise<PurchaseRecord[]> {
  return (
    await db.query<{ record: PurchaseRecord }>('SELECT record FROM purchases ORDER BY created_at')
  ).rows.map((row) => row.record);
}

interface AgentRow {
  msisdn: string;
  status: string;
  failed_attempts: number;
  locked_until: Date | null;
  lockouts_today: number;
  disabled_reason: string | null;
}

async function agentRows(): Promise<AgentRow[]> {
  return (
    await db.query<AgentRow>(
      `SELECT msisdn, status, failed_attempts, locked_until, lockouts_today, disabled_reason
         FROM agents ORDER BY msisdn`,
    )
  ).rows;
}

async function spendDays(): Promise<{ msisdn: string; day: string; value_minor: string; count: number }[]> {
  return (
    await db.query<{ msisdn: string; day: string; value_minor: string; count: number }>(
      `SELECT msisdn, day::text AS day, value_minor::text AS value_minor, count FROM spend_days ORDER BY msisdn, day`,
    )
  ).rows;
}

const debited = (row: LedgerRow) => row.debited_minor > 0;

/** The outcome SMS of a purchase reached its beneficiary: the token of its debit, or (no debit) any outcome SMS. */
function toldOf(record: PurchaseRecord, rows: LedgerRow[]): SinkHit | undefined {
  const debit = rows.find((row) => row.external_reference === record.externalReference && debited(row));
  const hits = smsTo(record.intent.beneficiaryMsisdn);
  if (debit?.token) return hits.find((hit) => digits(hit.message).includes(digits(debit.token!)));
  return hits.find((hit) => hit.id.startsWith(encodeURIComponent(record.id)));
}

/** Settled: every purchase in a settled state, its outcome told, and nothing debited without a record. */
async function settled(): Promise<{ all: PurchaseRecord[]; rows: LedgerRow[] } | null> {
  const all = await purchases();
  const rows = await ledger(sandbox.url);
  if (all.some((record) => !SETTLED_STATES.includes(record.state))) return null;
  if (all.some((record) => !toldOf(record, rows))) return null;
  const references = new Set(all.map((record) => record.externalReference));
  if (rows.some((row) => debited(row) && !references.has(row.external_reference ?? ''))) return null;
  return { all, rows };
}

// ---- the scenario ----

it('Redis flushed mid-traffic on all three channels, then the gateway and worker killed and restarted', async () => {
  // Agents: two selling (USSD, SMS), one with two wrong PINs counted, one locked, one paused mid-sale.
  const ussdAgent = phone();
  const smsAgent = phone();
  const countedAgent = phone();
  const lockedAgent = phone();
  const pausedAgent = phone();
  const pins: Record<string, string> = {
    [ussdAgent]: '5937',
    [smsAgent]: '482613',
    [countedAgent]: '7351',
    [lockedAgent]: '8264',
    [pausedAgent]: '6159',
  };
  for (const agent of Object.keys(pins)) await addAgent(agent, pins[agent]);
  // Two wrong PINs, one over USSD and one by SMS (the same count).
  expect((await dial(`w1-${countedAgent}`, countedAgent, ['0000'])).replies[1].screen).toMatch(
    /^Wrong PIN\. Attempts left: 2\./,
  );
  await ask(countedAgent, 'BAL 1111', /^Wrong PIN\. Attempts left: 1\.$/);
  // Three: locked.
  await ask(lockedAgent, 'BAL 1111', /Attempts left: 2/);
  await ask(lockedAgent, 'BAL 2222', /Attempts left: 1/);
  await ask(lockedAgent, 'BAL 3333', /locked/i);

  // A number whose day is nearly full: 100 by USSD and 100 by SMS of its 250.
  const nearlyFull = phone();
  const bought = await dial(`nf-${nearlyFull}`, nearlyFull, ['1', meter(), AMOUNT, '1']);
  expect(bought.replies.at(-1)?.screen).toMatch(/^Thank you\. Your token will arrive by SMS/);
  const nfMeter = meter();
  const quote = await ask(nearlyFull, `ELEC ${nfMeter} ${AMOUNT}`, /Reply YES \d{4} to buy/);
  await ask(nearlyFull, `YES ${/YES (\d{4})/.exec(quote)![1]}`, /Token:/);
  await until('the first two purchases told', async () => (await settled())?.all.length === 2, {
    timeoutMs: 30_000,
  });

  // Dialogues paused at each screen, to go on after the flush; SMS quotes waiting for their YES.
  const paused: { msisdn: string; session: string; inputs: string[]; next: string; agent?: boolean }[] = [];
  const screens = [['1'], ['1', meter()], ['1', meter(), AMOUNT]];
  for (const inputs of screens) {
    const msisdn = phone();
    const session = `p-${msisdn}`;
    const { replies } = await dial(session, msisdn, inputs);
    expect(replies.at(-1)?.end).toBe(false);
    paused.push({
      msisdn,
      session,
      inputs,
      next: inputs.length === 3 ? '1' : inputs.length === 2 ? AMOUNT : meter(),
    });
  }
  {
    const session = `p-${pausedAgent}`;
    const inputs = [pins[pausedAgent], '1', meter()];
    const { replies } = await dial(session, pausedAgent, inputs);
    expect(replies.at(-1)?.screen).toMatch(/^Enter the amount/);
    paused.push({ msisdn: pausedAgent, session, inputs, next: AMOUNT, agent: true });
  }
  const pendingQuotes: { msisdn: string; code: string }[] = [];
  for (let i = 0; i < 2; i += 1) {
    const msisdn = phone();
    const text = await ask(msisdn, `ELEC ${meter()} ${AMOUNT}`, /Reply YES \d{4} to buy/);
    pendingQuotes.push({ msisdn, code: /YES (\d{4})/.exec(text)![1] });
  }

  const agentsBefore = await agentRows();
  const spendBefore = await spendDays();
  const before = (await purchases()).length;

  // ---- traffic on the three channels, confirms answering slowly ----
  await axios.post(`${sandbox.url}/sandbox/faults`, {
    endpoint: 'confirm',
    fault: 'slow',
    count: SLOW_CONFIRMS,
    delayMs: CONFIRM_SLOW_MS,
  });
  const ussdBuyers = Array.from({ length: 8 }, () => ({ msisdn: phone(), meter: meter() }));
  const smsBuyers = Array.from({ length: 5 }, () => ({ msisdn: phone(), meter: meter() }));
  /** The last answer each USSD caller of the traffic got (null: the gateway did not answer). */
  const told: { msisdn: string; agent?: string; screen: string | null }[] = [];
  const outcomes: string[] = [];
  const traffic = [
    ...ussdBuyers.map(async ({ msisdn, meter: m }, i) => {
      const { replies, cut } = await dial(`u-${msisdn}`, msisdn, ['1', m, AMOUNT, '1']);
      told.push({ msisdn, screen: cut ? null : replies.at(-1)!.screen });
      outcomes.push(`ussd ${i}: ${cut ? `cut after ${replies.length} hops` : replies.at(-1)?.screen}`);
    }),
    ...smsBuyers.map(async ({ msisdn, meter: m }, i) => {
      const seen = smsTo(msisdn).length;
      await sendSms(msisdn, `ELEC ${m} ${AMOUNT}`);
      const text = await smsAfter(msisdn, seen, /Reply YES \d{4} to buy/, 15_000).catch(() => null);
      if (!text) return outcomes.push(`sms ${i}: no quote`);
      await sendSms(msisdn, `YES ${/YES (\d{4})/.exec(text)![1]}`);
      outcomes.push(`sms ${i}: YES sent`);
    }),
    (async () => {
      for (let sale = 0; sale < 3; sale += 1) {
        const customer = phone();
        const { replies, cut } = await dial(`a-${ussdAgent}-${sale}`, ussdAgent, [
          pins[ussdAgent],
          '1',
          meter(),
          AMOUNT,
          customer,
          '1',
        ]);
        told.push({ msisdn: customer, agent: ussdAgent, screen: cut ? null : replies.at(-1)!.screen });
        outcomes.push(
          `agent ussd ${sale}: ${cut ? `cut after ${replies.length} hops` : replies.at(-1)?.screen}`,
        );
        if (cut) return;
      }
    })(),
    (async () => {
      for (let sale = 0; sale < 3; sale += 1) {
        const customer = phone();
        const seen = smsTo(smsAgent).length;
        await sendSms(smsAgent, `SELL ELEC ${meter()} ${AMOUNT} ${customer}`);
        const text = await smsAfter(smsAgent, seen, /YES \d{4} <PIN>/, 15_000).catch(() => null);
        if (!text) return outcomes.push(`agent sms ${sale}: no quote`);
        await sendSms(smsAgent, `YES ${/YES (\d{4})/.exec(text)![1]} ${pins[smsAgent]}`);
        outcomes.push(`agent sms ${sale}: YES sent`);
      }
    })(),
  ];

  // Mid-traffic: purchases being made, some confirms in flight at the service.
  await until(
    'purchases made and confirms in flight',
    async () => {
      const all = await purchases();
      return all.length - before >= FLUSH_AFTER && all.some((record) => record.state === 'confirming');
    },
    { timeoutMs: 60_000, everyMs: 25 },
  );
  const flusher = new Redis(redisServer.url, { maxRetriesPerRequest: 1 });
  await flusher.flushall();
  flusher.disconnect();
  const flushedAt = Date.now();
  const atFlush = (await purchases()).slice(before);
  const confirmingAtFlush = atFlush.filter((record) => record.state === 'confirming').length;
  // Hops keep arriving on the empty Redis for a moment, then both processes die.
  const hopsAtFlush = hopsAnswered;
  await until(
    'hops answered on the flushed Redis',
    () => hopsAnswered - hopsAtFlush >= 3 || Date.now() - flushedAt > 2000,
    {
      everyMs: 10,
    },
  );
  await Promise.all([gateway.kill(), worker.kill()]);
  await Promise.all([gateway.start(), worker.start()]);
  const backAt = Date.now();
  await Promise.all(traffic);

  // ---- the dialogues cut by the flush go on: the polite answer, never a fresh menu or a PIN counted ----
  for (const dialogue of paused) {
    const text = [...dialogue.inputs, dialogue.next].join('*');
    const reply = await hop(gateway, dialogue.session, dialogue.msisdn, text);
    // Machine 7: a text of at most three digit groups (`1*<meter>*100`) on a session without a
    // record is a one-dial shortcut, read with the same meaning and never past the quote (no Buy).
    const shortcut = mayBeShortcut(text) && !dialogue.agent;
    expect({ who: dialogue.agent ? 'agent' : 'subscriber', at: dialogue.inputs.length, reply }).toEqual({
      who: dialogue.agent ? 'agent' : 'subscriber',
      at: dialogue.inputs.length,
      reply: shortcut
        ? expect.objectContaining({
            end: false,
            screen:
              dialogue.inputs.length === 1
                ? expect.stringMatching(/^Enter the amount/)
                : expect.stringMatching(/1 Buy/),
          })
        : expect.objectContaining({ end: true, screen: INTERRUPTED }),
    });
  }
  for (const { msisdn, code } of pendingQuotes) {
    // The quote was in Redis: the YES buys nothing and says so.
    await ask(
      msisdn,
      `YES ${code}`,
      new RegExp(`^${escape(t('sms.mo.noQuote', { example: '@' }).split('@')[0])}`),
    );
  }

  // ---- everything settles: every purchase settled and told, every debit with its purchase ----
  const { all, rows } = await until('every purchase settled and told', settled, {
    timeoutMs: 150_000,
    everyMs: 250,
  });

  process.stdout.write(`${outcomes.join('\n')}\n`);
  // What each caller was told on the flushed Redis was true: "your token will arrive" only with a
  // purchase made; never "try again" (a Buy may have gone through).
  for (const { msisdn, agent, screen } of told) {
    const made = all.some((record) => record.intent.beneficiaryMsisdn === msisdn);
    const shown = screen === null ? 'no answer' : screen.startsWith('Thank you') ? 'bought' : screen;
    expect({ msisdn, shown, made }).toEqual({
      msisdn,
      shown: expect.stringMatching(new RegExp(`^(bought|no answer|${escape(INTERRUPTED)})$`)),
      made: shown === 'bought' ? true : made,
    });
    if (agent && shown === 'bought') expect(screen).toContain(`267****${msisdn.slice(-4)}`);
  }
  // 0 double debits, 0 debited purchases without their token SMS.
  const debits = rows.filter(debited);
  const perReference = new Map<string, number>();
  for (const row of debits)
    perReference.set(row.external_reference!, (perReference.get(row.external_reference!) ?? 0) + 1);
  const doubleDebits = [...perReference.values()].reduce((sum, n) => sum + n - 1, 0);
  const byReference = new Map(all.map((record) => [record.externalReference, record]));
  const withoutToken = debits.filter((row) => {
    const record = byReference.get(row.external_reference!);
    return !record || record.state !== 'succeeded' || !toldOf(record, rows);
  });
  expect({ doubleDebits, withoutToken }).toEqual({ doubleDebits: 0, withoutToken: [] });

  // Every agent: its float is the sum of its entries, and credit less what its sales debited.
  expect(await ledgerDiscrepancies(db)).toEqual([]);
  const floats = (
    await db.query<{ msisdn: string; balance_minor: string; held_minor: string }>(
      'SELECT msisdn, balance_minor::text AS balance_minor, held_minor::text AS held_minor FROM float_accounts',
    )
  ).rows;
  for (const account of floats) {
    const spent = debits
      .filter((row) => byReference.get(row.external_reference!)?.intent.agent?.msisdn === account.msisdn)
      .reduce((sum, row) => sum + row.debited_minor, 0);
    expect({
      agent: account.msisdn,
      balance: Number(account.balance_minor),
      held: Number(account.held_minor),
    }).toEqual({
      agent: account.msisdn,
      balance: FLOAT_MINOR - spent,
      held: 0,
    });
  }

  // Lockouts as before the flush, wrong-PIN counts included: an agent whose own USSD sale the flush
  // cut gets "could not finish" for its next hops (their text starts with its PIN, never read as a
  // shortcut that would ask for the PIN again), so none of its inputs is counted as a PIN. The
  // counted agent's third wrong PIN locks it.
  expect(await agentRows()).toEqual(agentsBefore);
  await ask(countedAgent, 'BAL 2222', /locked/i);
  expect((await dial(`l-${lockedAgent}`, lockedAgent, [])).replies[0]).toMatchObject({
    end: true,
    screen: expect.stringMatching(/locked/i),
  });

  // The day's spend as before; a further purchase over the limit is refused.
  expect((await spendDays()).filter((day) => spendBefore.some((b) => b.msisdn === day.msisdn))).toEqual(
    spendBefore,
  );
  await ask(nearlyFull, `ELEC ${meter()} ${AMOUNT}`, /today's limit of BWP 250\.00/);

  // What "your purchase may be under way" meant is a fact the subscriber can check.
  for (const { msisdn, meter: m } of ussdBuyers) {
    const mine = all.find(
      (record) => record.intent.requesterMsisdn === msisdn && record.state === 'succeeded',
    );
    const screen = await myPurchases(msisdn);
    // Delivered: "<date> <meter> BWP 100.00"; one that was not: "... in progress" or "... not completed".
    const delivered = new RegExp(`${m} BWP 100\\.00(\n|$)`);
    if (mine) expect({ msisdn, screen }).toEqual({ msisdn, screen: expect.stringMatching(delivered) });
    else if (all.some((record) => record.intent.requesterMsisdn === msisdn))
      expect({ msisdn, screen, delivered: delivered.test(screen) }).toEqual({
        msisdn,
        screen: expect.stringMatching(new RegExp(`${m} BWP 100\\.00 (in progress|not completed)`)),
        delivered: false,
      });
    else expect({ msisdn, screen }).toEqual({ msisdn, screen: expect.stringMatching(NO_PURCHASES) });
  }
  for (const dialogue of paused.filter((p) => !p.agent)) {
    expect(await myPurchases(dialogue.msisdn)).toMatch(NO_PURCHASES);
  }
  for (const { msisdn, meter: m } of smsBuyers) {
    const mine = all.find(
      (record) => record.intent.requesterMsisdn === msisdn && record.state === 'succeeded',
    );
    const reply = await ask(msisdn, 'TOKEN', /Total:|No tokens/);
    if (mine) expect({ msisdn, reply }).toEqual({ msisdn, reply: expect.stringContaining(m.slice(-4)) });
    else expect({ msisdn, reply }).toEqual({ msisdn, reply: t('sms.mo.tokensNone') });
  }

  const succeeded = all.filter((record) => record.state === 'succeeded');
  const failures = all.filter((record) => record.state !== 'succeeded');
  const copies = new Map<string, number>();
  for (const hit of sink.hits.filter((h) => h.accepted)) copies.set(hit.id, (copies.get(hit.id) ?? 0) + 1);
  const duplicateSms = [...copies.values()].reduce((sum, n) => sum + n - 1, 0);
  const lastTold = Math.max(...all.map((record) => toldOf(record, rows)?.at ?? 0));
  writeRow({
    fault: 'Redis flushed mid-traffic, gateway and worker SIGKILL',
    intents: all.length,
    debits: debits.length - doubleDebits,
    tokensDelivered: succeeded.filter((record) => toldOf(record, rows)).length,
    failuresTold: failures.filter((record) => toldOf(record, rows)).length,
    doubleDebits,
    duplicateSms,
    recoverMs: Math.max(0, lastTold - backAt),
    note: `${atFlush.length} purchases recorded, ${confirmingAtFlush} confirming`,
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** This file's row of the faults table (test/faults/table.ts prints every file's rows). */
function writeRow(row: {
  fault: string;
  intents: number;
  debits: number;
  tokensDelivered: number;
  failuresTold: number;
  doubleDebits: number;
  duplicateSms: number;
  recoverMs: number;
  note?: string;
}): void {
  const dir = path.resolve(__dirname, '../../test-artifacts/faults');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${path.basename(__filename)}.json`), JSON.stringify([row], null, 2));
}
