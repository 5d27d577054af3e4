import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { main, EXIT } from '../../src/cli/main';
import { startSandbox, SANDBOX_ACCOUNTS, type RunningSandbox } from '../../src/sandbox';
import { SqlAuditTrail } from '../../src/purchases/care/audit-sql';
import type { Database } from '../../src/records/database';
import { testDatabase, testPglite } from '../support/database';
import { ADMIN_TOKEN, agentAdminApp } from './harness';

/**
 * `npm run cli -- agent …` in-process: on the records directly (DATABASE_URL, a test schema of
 * the test PostgreSQL), and over a gateway's /admin/agents (its agents in its embedded PGlite).
 */

let sandbox: RunningSandbox;
/** The records the CLI opens with DATABASE_URL, and this test's own connection to them. */
let db: Database;
let schema: string;
let url: string;
let dropSchema: () => Promise<void>;
let embedded: Awaited<ReturnType<typeof testPglite>>;
const servers: Server[] = [];
let gatewayUrl: string;

/** `/admin/agents` on `records`, listening; its URL. */
async function serveAgents(records: Database): Promise<string> {
  const { app } = agentAdminApp(records, sandbox.url);
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
  ({ db, schema, url, cleanup: dropSchema } = await testDatabase('agents_cli'));
  // A gateway's agent routes on the embedded database, as without DATABASE_URL.
  embedded = await testPglite();
  gatewayUrl = await serveAgents(embedded.db);
});
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  await sandbox.close();
  await embedded.cleanup();
  await dropSchema();
});

async function run(argv: string[], env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['agent', ...argv], {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    env: { NODE_ENV: 'test', ...env },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const directEnv = () => ({
  DATABASE_URL: url,
  DATABASE_SCHEMA: schema,
  PURCHASE_API_BASE_URL: undefined as string | undefined,
});
const overHttp = { GATEWAY_URL: '', ADMIN_TOKEN };

describe.each([
  ['on the records (DATABASE_URL)', () => directEnv()],
  ['over the gateway (GATEWAY_URL)', () => ({ ...overHttp, GATEWAY_URL: gatewayUrl })],
])('agent commands %s', (_label, envOf) => {
  it('add prints the one-time PIN once; list, show, credit and statement do not', async () => {
    const env = envOf();
    const added = await run(
      ['add', '--msisdn', '71234567', '--name', 'Kgosi Stores', '--float', '--max-sale', 'BWP 500'],
      env,
    );
    expect(added.code).toBe(EXIT.ok);
    const pin = /one-time PIN: (\d{6})/.exec(added.out)![1];
    // Numbers masked unless --reveal, whichever way the CLI reaches the agents.
    expect(added.out).toMatch(/agent 267\*{4}4567#[0-9a-f]{4} {2}Kgosi Stores {2}\[en\]/);
    expect(added.out).not.toContain('26771234567');
    expect(added.out).toContain('limits:   max sale BWP 500.00');

    const again = await run(['add', '--msisdn', '26771234567', '--name', 'X', '--float'], env);
    expect(again.code).toBe(EXIT.failed);
    expect(again.err).toContain('exists already');

    const credited = await run(
      ['credit', '--msisdn', '26771234567', '--amount', 'BWP 500.00', '--ref', 'BANK-1'],
      env,
    );
    expect(credited.out).toContain('credit BWP 500.00 ref BANK-1 applied (entry 1)');
    const twice = await run(
      ['credit', '--msisdn', '26771234567', '--amount', 'BWP 500.00', '--ref', 'BANK-1'],
      env,
    );
    expect(twice.out).toContain('was applied before');
    const badAmount = await run(
      ['credit', '--msisdn', '26771234567', '--amount', 'BWP 5.001', '--ref', 'B'],
      env,
    );
    expect(badAmount.code).toBe(EXIT.usage);
    expect(badAmount.err).toContain('amount');

    const list = await run(['list'], env);
    expect(list.out).toMatch(
      /267\*{4}4567#[0-9a-f]{4} {2}Kgosi Stores .* float BWP 500\.00 \(held BWP 0\.00\)/,
    );
    const show = await run(['show', '26771234567', '--json', '--reveal'], env);
    expect(JSON.parse(show.out)).toMatchObject({
      agent: { msisdn: '26771234567' },
      float: { availableMinor: 50_000 },
    });
    const statement = await run(['statement', '--msisdn', '26771234567'], env);
    expect(statement.out).toContain('closing balance BWP 500.00');
    expect(statement.out).toContain('re-derived from 1 entries: BWP 500.00 (matches)');
    expect(statement.out).toContain(
      'commission BWP 0.00 in these entries; today BWP 0.00, this month BWP 0.00',
    );
    const json = JSON.parse((await run(['statement', '--msisdn', '26771234567', '--json'], env)).out);
    expect(json.entries).toHaveLength(1);
    const statementOf = async (...period: string[]) =>
      JSON.parse((await run(['statement', '--msisdn', '26771234567', ...period, '--json'], env)).out);
    // A period before the top-up shows nothing; one from then on shows it, the balance re-derived.
    expect(await statementOf('--from', '2020-01-01', '--to', '2020-01-31')).toMatchObject({
      entries: [],
      openingMinor: 0,
      closingMinor: 0,
      derivedMinor: 50_000,
    });
    expect((await statementOf('--from', '2020-01-01')).entries).toHaveLength(1);

    for (const output of [list, show, credited, statement].map((r) => r.out + r.err))
      expect(output).not.toContain(pin);

    const disabled = await run(['disable', '--msisdn', '26771234567'], env);
    expect(disabled.out).toContain('disabled (operator)');
    expect((await run(['enable', '--msisdn', '26771234567'], env)).out).toContain('active');
    const reset = await run(['reset-pin', '--msisdn', '26771234567'], env);
    expect(reset.out).toMatch(/one-time PIN: \d{6}/);
  });

  it('checks a bound account and names a bad flag', async () => {
    const env = envOf();
    const bound = await run(
      ['add', '--msisdn', '26772000001', '--name', 'Bound', '--account', String(SANDBOX_ACCOUNTS.topup)],
      env,
    );
    expect(bound.code).toBe(EXIT.ok);
    expect(bound.out).toContain(`funding:  account ${SANDBOX_ACCOUNTS.topup}`);
    const foreign = await run(
      ['add', '--msisdn', '26772000002', '--name', 'F', '--account', String(SANDBOX_ACCOUNTS.otherUsers)],
      env,
    );
    expect(foreign.code).toBe(EXIT.usage);
    expect(foreign.err).toContain(`account ${SANDBOX_ACCOUNTS.otherUsers} is not one of`);
    expect((await run(['show', '--msisdn', '26772999999'], env)).code).toBe(EXIT.failed);
    expect((await run(['frobnicate'], env)).code).toBe(EXIT.usage);
  });

  it('registers a retailer under a dealer and an assistant at an outlet, shows the network and the deposit queue', async () => {
    const env = envOf();
    const suffix = 'DATABASE_URL' in env ? '1' : '2';
    const dealer = `7210000${suffix}`;
    expect((await run(['add', '--msisdn', dealer, '--name', 'Dealer', '--float'], env)).code).toBe(EXIT.ok);
    const retailer = await run(
      ['add', '--msisdn', `7220000${suffix}`, '--name', 'Retail', '--float', '--dealer', dealer, '--reveal'],
      env,
    );
    expect(retailer.code).toBe(EXIT.ok);
    // A dealer cannot be its own retailer.
    const self = await run(
      ['add', '--msisdn', `7230000${suffix}`, '--name', 'S', '--float', '--dealer', `7230000${suffix}`],
      env,
    );
    expect(self.code).not.toBe(EXIT.ok);
    expect(self.err).toMatch(/own dealer/);
    const assistant = await run(
      ['add-assistant', '--agent', `7220000${suffix}`, '--msisdn', `7240000${suffix}`],
      env,
    );
    expect(assistant.code).toBe(EXIT.ok);
    expect(assistant.out).toMatch(/one-time PIN: \d{6}/);
    const network = await run(['network', '--msisdn', dealer, '--reveal'], env);
    expect(network.out).toMatch(new RegExp(`retailers: \\n  2677220000${suffix}  Retail`));
    const outlet = await run(['network', '--msisdn', `7220000${suffix}`, '--reveal'], env);
    expect(outlet.out).toMatch(new RegExp(`assistants: \\n  2677240000${suffix}`));
    expect((await run(['deposits'], env)).out).toBe('no deposits');
  });

  it('makes an agent a dealer before it has a retailer, and not while it has one', async () => {
    const env = envOf();
    const suffix = 'DATABASE_URL' in env ? '1' : '2';
    const [born, made, assistant] = [`7250000${suffix}`, `7260000${suffix}`, `7270000${suffix}`];
    const added = await run(['add', '--msisdn', born, '--name', 'Born', '--float', '--is-dealer'], env);
    expect(added.code).toBe(EXIT.ok);
    expect(added.out).toMatch(/dealer: {3}yes/);
    expect((await run(['add', '--msisdn', made, '--name', 'Made', '--float'], env)).code).toBe(EXIT.ok);
    expect((await run(['show', '--msisdn', made], env)).out).not.toMatch(/dealer/);
    const on = await run(['set-dealer', '--msisdn', made, '--on', '--reveal'], env);
    expect(on.code).toBe(EXIT.ok);
    expect(on.out).toBe(`2677260000${suffix}  a dealer`);
    expect((await run(['show', '--msisdn', made], env)).out).toMatch(/dealer: {3}yes/);
    // Neither or both switches: a usage error, nothing changed.
    expect((await run(['set-dealer', '--msisdn', made], env)).code).toBe(EXIT.usage);
    expect((await run(['set-dealer', '--msisdn', made, '--on', '--off'], env)).code).toBe(EXIT.usage);
    // An assistant cannot be a dealer.
    expect((await run(['add-assistant', '--agent', made, '--msisdn', assistant], env)).code).toBe(EXIT.ok);
    const refusedAssistant = await run(['set-dealer', '--msisdn', assistant, '--on'], env);
    expect(refusedAssistant.code).not.toBe(EXIT.ok);
    expect(refusedAssistant.err).toMatch(/an assistant cannot be a dealer/);
    // Off while a retailer names it: refused; with none, done.
    const retailer = ['add', '--msisdn', `7280000${suffix}`, '--name', 'R', '--float', '--dealer', born];
    expect((await run(retailer, env)).code).toBe(EXIT.ok);
    const refused = await run(['set-dealer', '--msisdn', born, '--off'], env);
    expect(refused.code).not.toBe(EXIT.ok);
    expect(refused.err).toMatch(/1 retailer/);
    expect((await run(['show', '--msisdn', born], env)).out).toMatch(/dealer: {3}yes/);
    const off = await run(['set-dealer', '--msisdn', made, '--off', '--reveal'], env);
    expect(off.out).toBe(`2677260000${suffix}  not a dealer`);
    expect((await run(['show', '--msisdn', made], env)).out).not.toMatch(/dealer/);
    // Registering a retailer under a plain agent makes it a dealer.
    const plain = `7290000${suffix}`;
    expect((await run(['add', '--msisdn', plain, '--name', 'Plain', '--float'], env)).code).toBe(EXIT.ok);
    const under = ['add', '--msisdn', `7300000${suffix}`, '--name', 'R2', '--float', '--dealer', plain];
    expect((await run(under, env)).code).toBe(EXIT.ok);
    expect((await run(['show', '--msisdn', plain], env)).out).toMatch(/dealer: {3}yes/);
  });
});

it('without DATABASE_URL or ADMIN_TOKEN says what to set', async () => {
  const { code, err } = await run(['list'], {});
  expect(code).toBe(EXIT.usage);
  expect(err).toContain('set ADMIN_TOKEN');
});

it('with DATABASE_URL keeps the agents and floats in the tables of DATABASE_SCHEMA, which a gateway on the same records serves', async () => {
  const added = await run(['add', '--msisdn', '26774000001', '--name', 'Shared', '--float'], directEnv());
  expect(added.code).toBe(EXIT.ok);
  await run(['credit', '--msisdn', '26774000001', '--amount', 'BWP 12.00', '--ref', 'BANK-S'], directEnv());
  const rows = await db.query<{ msisdn: string; balance: string }>(
    `SELECT a.msisdn, f.balance_minor::text AS balance
       FROM agents a JOIN float_accounts f USING (msisdn) WHERE a.msisdn = $1`,
    ['26774000001'],
  );
  expect(rows.rows).toEqual([{ msisdn: '26774000001', balance: '1200' }]);
  // A gateway given the same DATABASE_URL and schema: the CLI's agent, over HTTP.
  const shared = await serveAgents(db);
  const shown = await run(['show', '--msisdn', '26774000001', '--json', '--reveal'], {
    ...overHttp,
    GATEWAY_URL: shared,
  });
  expect(JSON.parse(shown.out)).toMatchObject({
    agent: { msisdn: '26774000001', name: 'Shared' },
    float: { availableMinor: 1_200 },
  });
});

describe('what the agent commands print (#27 item 4)', () => {
  it('statements keep their dates and references whole; only the number is masked', async () => {
    await run(['add', '--msisdn', '26773000001', '--name', 'Dates', '--float'], directEnv());
    await run(
      ['credit', '--msisdn', '26773000001', '--amount', 'BWP 20.00', '--ref', 'BANK-20261101-0042'],
      directEnv(),
    );
    const period = ['--from', '2020-01-01', '--to', '2099-12-31', '--json'];
    const masked = JSON.parse(
      (await run(['statement', '--msisdn', '26773000001', ...period], directEnv())).out,
    );
    const revealed = JSON.parse(
      (await run(['statement', '--msisdn', '26773000001', ...period, '--reveal'], directEnv())).out,
    );
    expect(revealed.msisdn).toBe('26773000001');
    expect(masked.msisdn).toMatch(/^267\*{4}0001#[0-9a-f]{4}$/);
    expect(masked).toEqual({ ...revealed, msisdn: masked.msisdn });
    expect(masked.entries[0]).toMatchObject({ reference: 'BANK-20261101-0042' });
    // The start of the local day in TZ, as an instant: `2019-12-31T22:00:00.000Z`, not `201************000Z`.
    expect(masked.from).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it.each([
    ['on the records (DATABASE_URL)', () => directEnv()],
    ['over the gateway (GATEWAY_URL)', () => ({ ...overHttp, GATEWAY_URL: gatewayUrl })],
  ])('%s: two agents whose masked numbers look alike print differently', async (_label, envOf) => {
    const env = envOf();
    const suffix = _label.startsWith('on the records') ? '5' : '6';
    const numbers = [`2677123000${suffix}`, `2677234000${suffix}`];
    for (const msisdn of numbers) await run(['add', '--msisdn', msisdn, '--name', 'Alike', '--float'], env);
    const listed = await run(['list', '--json'], env);
    for (const msisdn of numbers) expect(listed.out).not.toContain(msisdn);
    const shown = (JSON.parse(listed.out) as { agent: { msisdn: string; name: string } }[])
      .filter((s) => s.agent.name === 'Alike')
      .map((s) => s.agent.msisdn);
    expect(shown).toHaveLength(2);
    for (const m of shown) expect(m).toMatch(new RegExp(`^267\\*{4}000${suffix}#[0-9a-f]{4}$`));
    expect(shown[0]).not.toBe(shown[1]);
  });

  it('on the records, a reveal is written to the audit trail before it is shown', async () => {
    const trail = new SqlAuditTrail(db);
    const before = (await trail.list()).length;
    const revealed = await run(['show', '--msisdn', '26773000001', '--reveal'], {
      ...directEnv(),
      USER: 'mpho',
    });
    expect(revealed.out).toContain('agent 26773000001');
    const entries = await trail.list();
    expect(entries).toHaveLength(before + 1);
    expect(entries[0]).toMatchObject({
      actor: 'cli:mpho',
      action: 'reveal',
      detail: 'cli agent show --msisdn 267****0001',
    });
  });
});
