import { createAgents } from '../../src/agents';
import { EXIT, main } from '../../src/cli/main';
import { loadConfig } from '../../src/config';
import { SqlAuditTrail } from '../../src/purchases/care';
import { SqlPurchaseStore } from '../../src/purchases/store/sql';
import type { PurchaseRecord } from '../../src/purchases/types';
import { intent, record } from '../purchases/fixtures';
import { testDatabase, type TestDatabase } from '../support/database';

/**
 * `npm run cli -- purchases …` on the records in PostgreSQL (a schema of its own): what it
 * masks, what it shows whole, what it audits (#27 item 4).
 */

let t: TestDatabase;
beforeAll(async () => {
  t = await testDatabase('purchases_cli');
});
afterAll(() => t.cleanup());

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['purchases', ...argv], {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    env: { NODE_ENV: 'test', DATABASE_URL: t.url, DATABASE_SCHEMA: t.schema, USER: 'neo', ...env },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const TOKEN = '1234 5678 9012 3456 7890';

/** A succeeded purchase for `msisdn`, with the provider's references as the attack saw them. */
async function succeeded(msisdn: string): Promise<PurchaseRecord> {
  const store = new SqlPurchaseStore({ db: t.db });
  const r = record({ intent: intent({ beneficiaryMsisdn: msisdn, requesterMsisdn: msisdn }) });
  await store.create(r);
  const moved = await store.transition(r.id, ['created'], 'succeeded', r.version, {
    settledAt: '2026-11-23T10:15:30.000Z',
    notifiedAt: '2026-11-23T10:15:31.000Z',
    result: {
      transactionId: 20261123052052,
      reference: 'TOP/2026/11/00010002',
      rawToken: TOKEN,
      units: '70.6 kWh',
      total: { currency: 'BWP', minor: 10150 },
      providerTransactionId: 'BPC20261123052052',
    },
  });
  if (!moved.ok) throw new Error('not settled');
  return moved.record;
}

it('masks numbers and tokens by field: dates, references and amounts stay whole', async () => {
  const done = await succeeded('26771230001');
  const shown = await run(['show', done.id]);
  expect(shown.code).toBe(EXIT.ok);
  const masked = JSON.parse(shown.out) as PurchaseRecord;
  expect(masked.result).toEqual({ ...done.result, rawToken: '****7890' });
  expect(masked.intent.beneficiaryMsisdn).toMatch(/^267\*{4}0001#[0-9a-f]{4}$/);
  expect(masked.intent.subscriberIdentifier).toMatch(/^012\*{4}7890#[0-9a-f]{4}$/);
  for (const field of ['id', 'externalReference', 'createdAt', 'settledAt', 'notifiedAt'] as const)
    expect(masked[field]).toBe(done[field]);
  expect(shown.out).not.toContain('26771230001');
  expect(shown.out).not.toContain(TOKEN);

  const found = await run(['find', '--reference', 'TOP/2026/11/00010002', '--json']);
  expect(JSON.parse(found.out)[0].result.providerTransactionId).toBe('BPC20261123052052');
});

it('tells two numbers apart that the masking alone would print the same', async () => {
  const a = await succeeded('26771230002');
  const b = await succeeded('26772340002');
  const one = (await run(['find', '--msisdn', '26771230002'])).out;
  const other = (await run(['find', '--msisdn', '26772340002'])).out;
  const masked = (out: string) => /267\*{4}0002#[0-9a-f]{4}/.exec(out)![0];
  expect(one).toContain(a.id);
  expect(other).toContain(b.id);
  expect(masked(one)).not.toBe(masked(other));
});

it('a reveal is audited under each purchase it shows, before it is shown', async () => {
  const done = await succeeded('26771230003');
  const trail = new SqlAuditTrail(t.db);
  const revealed = await run(['show', done.id, '--reveal']);
  expect(JSON.parse(revealed.out).result.rawToken).toBe(TOKEN);
  expect(await trail.list({ purchaseId: done.id })).toEqual([
    expect.objectContaining({
      actor: 'cli:neo',
      action: 'reveal',
      purchaseId: done.id,
      detail: `cli purchases show ${done.id}`,
    }),
  ]);

  const found = await run(['find', '--msisdn', '26771230003', '--reveal', '--json']);
  expect(JSON.parse(found.out)[0].intent.beneficiaryMsisdn).toBe('26771230003');
  expect(await trail.list({ purchaseId: done.id })).toEqual([
    expect.objectContaining({
      action: 'reveal',
      purchaseId: done.id,
      detail: 'cli purchases find --msisdn 267****0003 --json',
    }),
    expect.objectContaining({ action: 'reveal', purchaseId: done.id }),
  ]);
  const audit = await run(['audit', done.id]);
  expect(audit.out.split('\n')).toHaveLength(2);
  expect(audit.out).toContain(`cli:neo  reveal  ${done.id}`);
  expect(audit.out).not.toContain('26771230003');
});

it('find, show, resolve and audit need no Redis; reconcile says what it needs in one line', async () => {
  const stuck = record({ state: 'needs_attention' });
  await new SqlPurchaseStore({ db: t.db }).create(stuck);
  // A REDIS_URL where nothing listens: none of these asks it.
  const nowhere = { REDIS_URL: 'redis://127.0.0.1:1/0' };
  expect(await run(['show', stuck.id, '--json'], nowhere)).toMatchObject({ code: 0 });
  expect(await run(['resolve', stuck.id, '--note', 'token read out'], nowhere)).toEqual({
    code: 0,
    out: `${stuck.id} resolved by cli:neo`,
    err: '',
  });
  expect((await run(['audit', stuck.id], nowhere)).out).toMatch(/cli:neo {2}resolve/);
  expect(await run(['reconcile', stuck.id], { REDIS_URL: '' })).toEqual({
    code: 2,
    out: '',
    err: expect.stringMatching(
      /^error: reconcile hands the purchase to the gateway's workers over Redis: set REDIS_URL/,
    ),
  });
});

it('without DATABASE_URL says in one line where the purchases are', async () => {
  expect(await run(['find', '--msisdn', '71234567'], { DATABASE_URL: '' })).toEqual({
    code: 2,
    out: '',
    err: expect.stringMatching(/^error: without DATABASE_URL .*\/admin\/purchases[^\n]*$/),
  });
});

it("resolve of an agent's sale needs --outcome; not_sold gives the float hold back at once", async () => {
  const config = loadConfig({ NODE_ENV: 'test' });
  const agents = createAgents(t.db, config);
  const { agent } = await agents.registry.add({
    msisdn: '26771118888',
    name: 'Kiosk',
    funding: { kind: 'float' },
  });
  await agents.float.credit(agent, { amount: { currency: 'BWP', minor: 10_000 }, reference: 'cli-top-1' });
  const stuck = record({
    state: 'needs_attention',
    intent: { ...intent(), agent: { msisdn: agent.msisdn } },
  });
  expect((await agents.float.reserve(agent, stuck.idempotencyKey, 2_150)).status).toBe('reserved');
  await new SqlPurchaseStore({ db: t.db }).create(stuck);

  const without = await run(['resolve', stuck.id, '--note', 'looked at it']);
  expect(without.code).not.toBe(EXIT.ok);
  expect(without.err).toContain('sold or not_sold');
  expect(await agents.float.reservation(agent.msisdn, stuck.idempotencyKey)).toMatchObject({ state: 'held' });

  expect(await run(['resolve', stuck.id, '--note', 'no token issued', '--outcome', 'not_sold'])).toEqual({
    code: EXIT.ok,
    out: `${stuck.id} resolved by cli:neo (not_sold)`,
    err: '',
  });
  expect(await agents.float.reservation(agent.msisdn, stuck.idempotencyKey)).toMatchObject({
    state: 'released',
  });
  expect(await agents.float.balance(agent.msisdn)).toMatchObject({ availableMinor: 10_000, heldMinor: 0 });
  expect((await run(['audit', stuck.id])).out).toContain('cli:neo  resolve');
});
