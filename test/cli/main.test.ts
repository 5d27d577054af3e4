import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { main, EXIT } from '../../src/cli/main';
import { startSandbox, TEST_METERS, type RunningSandbox } from '../../src/sandbox';
import { sandboxServiceEnv } from '../support/sandbox-env';

/** The operator CLI, run in-process with captured output, against real HTTP. */

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    // SANDBOX_PORT=0: never the sandbox of an `npm start` running on this machine.
    env: { NODE_ENV: 'test', SANDBOX_PORT: '0', ...env },
  });
  return { code, out: out.join('\n'), err: err.join('\n'), errLines: err };
}

const remote = (url: string, overrides: Record<string, string> = {}) => ({
  ...sandboxServiceEnv(url),
  ...overrides,
});

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true, delayMs: 60_000 });
});
afterAll(() => sandbox.close());

describe('with no PURCHASE_API_BASE_URL (in-process sandbox)', () => {
  it('check prints products, providers, identifier rules and accounts with balances', async () => {
    const { code, out, err } = await run(['check']);
    expect(code).toBe(EXIT.ok);
    expect(err).toMatch(/in-process sandbox at http:\/\/127\.0\.0\.1:\d+/);
    expect(out).toContain('ELECTRICITY (Electricity)');
    expect(out).toContain('BPC (Botswana Power Corporation)');
    expect(out).toContain('Meter number: min 11, max 13, pattern ^[0-9]{11,13}$');
    expect(out).toMatch(/1001 {2}Main wallet \[CURRENT\] {2}BWP 1000000\.00/);
  });

  it('confirm on the auto-key-change meter prints the three tokens, key-change first', async () => {
    const { code, out } = await run([
      'confirm',
      '--identifier',
      TEST_METERS.autoKeyChange,
      '--amount',
      '1500',
    ]);
    expect(code).toBe(EXIT.ok);
    const tokenLines = out.split('\n').filter((l) => /Token\d?: [\d ]+$/.test(l));
    expect(tokenLines.map((l) => l.trim().split(':')[0])).toEqual([
      'KeyChange Token1',
      'KeyChange Token2',
      'Credit Token',
    ]);
    expect(out).toContain('purchase: SUCCESSFUL');
  });

  it('--json prints the raw result', async () => {
    const { code, out } = await run(['check', '--json']);
    expect(code).toBe(EXIT.ok);
    const parsed = JSON.parse(out);
    expect(parsed.products).toHaveLength(3);
    expect(parsed.accounts[0].balance).toEqual({ currency: 'BWP', minor: 100_000_000 });
  });

  it('usage errors exit 2 with one clear line', async () => {
    expect((await run(['frobnicate'])).code).toBe(EXIT.usage);
    const missing = await run(['confirm', '--amount', '10']);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.err).toContain('--identifier is required');
    expect((await run(['check', '--bogus'])).code).toBe(EXIT.usage);
  });
});

describe('against a configured base URL', () => {
  it('validate, confirm then retry with the printed external reference', async () => {
    const env = remote(sandbox.url);
    const quote = await run(
      [
        'validate',
        '--identifier',
        TEST_METERS.active,
        '--amount',
        '100',
        '--account',
        '1001',
        '--phone',
        '26771234567',
      ],
      env,
    );
    expect(quote.code).toBe(EXIT.ok);
    expect(quote.out).toContain('quote: ON_GOING');
    const bought = await run(
      [
        'confirm',
        '--identifier',
        TEST_METERS.active,
        '--amount',
        '100',
        '--account',
        '1001',
        '--phone',
        '+26771234567',
        '--ref',
        'cli-test-1',
      ],
      env,
    );
    // Against a real service confirm debits real money: it asks for --yes and sends nothing.
    expect(bought.code).toBe(EXIT.usage);
    expect(bought.errLines).toEqual([expect.stringContaining('confirm debits real money at')]);
    const confirmed = await run(
      [
        'confirm',
        '--yes',
        '--identifier',
        TEST_METERS.active,
        '--amount',
        '100',
        '--account',
        '1001',
        '--phone',
        '+26771234567',
        '--ref',
        'cli-test-1',
      ],
      env,
    );
    expect(confirmed.code).toBe(EXIT.ok);
    const again = await run(
      ['retry', '--identifier', TEST_METERS.active, '--ref', 'cli-test-1', '--json'],
      env,
    );
    expect(again.code).toBe(EXIT.ok);
    expect(JSON.parse(again.out).status).toBe('SUCCESSFUL');
  });

  it('a confirm that times out is "outcome unknown — reconcile with retry" with the reference, exit 3', async () => {
    const env = remote(sandbox.url, {
      PURCHASE_API_TIMEOUT_MS: '200',
      PURCHASE_API_CONFIRM_TIMEOUT_MS: '1000',
    });
    const { code, out } = await run(
      [
        'confirm',
        '--yes',
        '--identifier',
        TEST_METERS.delayed,
        '--amount',
        '50',
        '--account',
        '1001',
        '--phone',
        '26771234567',
        '--ref',
        'cli-slow-1',
      ],
      env,
    );
    expect(code).toBe(EXIT.outcomeUnknown);
    expect(out).toContain('outcome unknown — reconcile with retry');
    expect(out).toContain('--ref cli-slow-1');
  });

  it('bad credentials: one line, exit 1', async () => {
    const { code, errLines } = await run(['check'], remote(sandbox.url, { PURCHASE_API_PASSWORD: 'wrong' }));
    expect(code).toBe(EXIT.failed);
    expect(errLines).toHaveLength(1);
    expect(errLines[0]).toMatch(/login refused .*bad credentials/);
    expect(errLines[0]).not.toContain('wrong');
  });

  it('unreachable host: one line, exit 1', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { code, errLines } = await run(['check'], remote(`http://127.0.0.1:${port}`));
    expect(code).toBe(EXIT.failed);
    expect(errLines).toEqual([expect.stringMatching(/^error: cannot reach .*ECONNREFUSED/)]);
  });

  it('wrong environment (not the purchase service): one line, exit 1', async () => {
    const other = http.createServer((_req, res) =>
      res.writeHead(404, { 'Content-Type': 'text/html' }).end('<h1>Not here</h1>'),
    );
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const { code, errLines } = await run(
        ['check'],
        remote(`http://127.0.0.1:${(other.address() as AddressInfo).port}`),
      );
      expect(code).toBe(EXIT.failed);
      expect(errLines).toEqual([
        expect.stringMatching(
          /does not answer like the purchase service .*wrong PURCHASE_API_BASE_URL or environment/,
        ),
      ]);
    } finally {
      other.closeAllConnections();
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });
});

describe('the account and the reference, as the gateway has them (#12 item 6)', () => {
  const buy = (ref: string, extra: string[] = []) => [
    'confirm',
    '--yes',
    '--identifier',
    TEST_METERS.active,
    '--amount',
    '20',
    '--phone',
    '26771234567',
    '--ref',
    ref,
    ...extra,
  ];
  const debitsOf = async (ref: string) =>
    (
      (await (await fetch(`${sandbox.url}/sandbox/transactions`)).json()) as { external_reference: string }[]
    ).filter((row) => row.external_reference === ref);

  it('validate and confirm without --account debit what the gateway debits: DEBIT_ACCOUNT_ID, else the first CURRENT account', async () => {
    const quote = await run(
      ['validate', '--identifier', TEST_METERS.active, '--amount', '100', '--phone', '26771234567'],
      remote(sandbox.url),
    );
    expect(quote.code).toBe(EXIT.ok);
    expect(quote.err).toContain(
      'using account 1001 (Main wallet) as the gateway does (its first CURRENT account)',
    );
    const ref = `cli-acct-${Date.now()}`;
    const bought = await run(buy(ref), remote(sandbox.url, { DEBIT_ACCOUNT_ID: '1003' }));
    expect(bought.code).toBe(EXIT.ok);
    expect(bought.err).toContain('using account 1003 (Top-up wallet) as the gateway does (DEBIT_ACCOUNT_ID)');
    expect(await debitsOf(ref)).toEqual([expect.objectContaining({ account_id: 1003 })]);
  });

  it('a confirm with a --ref the service already knows asks retry and refuses: one purchase, exit 1', async () => {
    const ref = `cli-reused-${Date.now()}`;
    expect((await run(buy(ref), remote(sandbox.url))).code).toBe(EXIT.ok);
    const again = await run(buy(ref), remote(sandbox.url));
    expect(again.code).toBe(EXIT.failed);
    expect(again.out).toContain('already known: SUCCESSFUL');
    expect(again.errLines.at(-1)).toEqual(
      `error: --ref ${ref} was already used for ${TEST_METERS.active} (SUCCESSFUL): not confirming again; use a new --ref (or leave it out)`,
    );
    expect(await debitsOf(ref)).toHaveLength(1);
    // A reference the service does not know is bought as usual.
    expect((await run(buy(`${ref}-new`), remote(sandbox.url))).code).toBe(EXIT.ok);
  });

  it('a --ref whose original failed is refused too (the service knows it); nothing is sent', async () => {
    const ref = `cli-failed-${Date.now()}`;
    const blocked = [
      'confirm',
      '--yes',
      '--identifier',
      TEST_METERS.purchasesBlocked,
      '--amount',
      '20',
      '--phone',
      '26771234567',
      '--ref',
      ref,
    ];
    expect((await run(blocked, remote(sandbox.url))).code).toBe(EXIT.failed);
    const again = await run(blocked, remote(sandbox.url));
    expect(again.code).toBe(EXIT.failed);
    expect(again.errLines.at(-1)).toMatch(
      new RegExp(`^error: --ref ${ref} was already used .*not confirming again`),
    );
    expect(await debitsOf(ref)).toHaveLength(1);
  });
});

describe('usage, the same in every family (src/cli/kit.ts)', () => {
  // '' is the purchase service family (check, validate, confirm, retry): the whole CLI's usage.
  const families = ['', 'blocklist', 'agent', 'purchases', 'ledger', 'report', 'sms', 'payments'];
  const argvOf = (family: string, ...rest: string[]) => (family ? [family, ...rest] : rest);

  it.each(families.flatMap((family) => ['help', '--help', '-h'].map((asked) => [family, asked])))(
    "'%s %s': the usage on stdout, exit 0, nothing opened",
    async (family, asked) => {
      const { code, out, err } = await run(argvOf(family, asked), {
        DATABASE_URL: 'postgres://127.0.0.1:1/none',
      });
      expect({ code, err }).toEqual({ code: EXIT.ok, err: '' });
      expect(out).toMatch(/^usage: npm run cli -- /);
    },
  );

  it.each(families)("'%s --bogus': the one-line error, then the usage on stderr, exit 2", async (family) => {
    const { code, out, errLines } = await run(argvOf(family, '--bogus'));
    expect({ code, out }).toEqual({ code: EXIT.usage, out: '' });
    expect(errLines[0]).toMatch(/^error: .*Unknown option '--bogus'/);
    expect(errLines[1]).toMatch(/^usage: npm run cli -- /);
  });
});
