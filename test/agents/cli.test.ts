import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { main, EXIT } from '../../src/cli/main';
import { startSandbox, SANDBOX_ACCOUNTS, type RunningSandbox } from '../../src/sandbox';
import { keysUnder, testRedis } from '../support/redis';
import { ADMIN_TOKEN, agentAdminApp } from './harness';

/** `npm run cli -- agent …` in-process: on Redis directly, and over a gateway's /admin/agents. */

const { redis, prefix, url, cleanup } = testRedis('agents-cli');
let sandbox: RunningSandbox;
let gateway: Server;
let gatewayUrl: string;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
  // A gateway's agent routes on the in-memory stores, as in the embedded mode.
  const { app } = agentAdminApp(undefined, 'unused', sandbox.url);
  gateway = await new Promise<Server>((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => gateway.close(resolve));
  await sandbox.close();
  await cleanup();
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

const direct = {
  REDIS_URL: url,
  REDIS_PREFIX: prefix,
  PURCHASE_API_BASE_URL: undefined as string | undefined,
};
const overHttp = { GATEWAY_URL: '', ADMIN_TOKEN };

describe.each([
  ['on Redis (REDIS_URL)', () => direct],
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
    expect(added.out).toContain('agent 26771234567  Kgosi Stores  [en]');
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
    expect(list.out).toMatch(/26771234567 {2}Kgosi Stores .* float BWP 500\.00 \(held BWP 0\.00\)/);
    const show = await run(['show', '26771234567', '--json'], env);
    expect(JSON.parse(show.out)).toMatchObject({
      agent: { msisdn: '26771234567' },
      float: { availableMinor: 50_000 },
    });
    const statement = await run(['statement', '--msisdn', '26771234567'], env);
    expect(statement.out).toContain('closing balance BWP 500.00');
    expect(statement.out).toContain('re-derived from 1 entries: BWP 500.00 (matches)');
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
});

it('without REDIS_URL or ADMIN_TOKEN says what to set', async () => {
  const { code, err } = await run(['list'], {});
  expect(code).toBe(EXIT.usage);
  expect(err).toContain('set ADMIN_TOKEN');
});

it('on Redis keeps the agents under the agent: keys of REDIS_PREFIX', async () => {
  expect((await keysUnder(redis, `${prefix}:agent:`)).length).toBeGreaterThan(0);
});
