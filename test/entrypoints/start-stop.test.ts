import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { testRecordsEnv } from '../support/database';
import { TEST_REDIS_URL } from '../support/redis';
import { startSandbox } from '../../src/sandbox';

/**
 * The real entry points as operators start them (transpiled on the fly, no build): a broken
 * environment stops the start with one clear line and exit 1; SIGTERM stops a running process
 * with exit 0 and nothing on stderr (no unhandled rejection, no stack trace).
 */

const ROOT = path.resolve(__dirname, '../..');
const HOOK = path.join(__dirname, 'ts-require-hook.js');
const REDIS_URL = TEST_REDIS_URL;
const PREFIX = `entry-test-${process.pid}-${Date.now()}`;
/** Production keeps its records in PostgreSQL: every run that gets that far shares this schema. */
const records = testRecordsEnv('entry');
/** An embedded run's database folder (never ./data of the checkout). */
const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-entry-'));

afterAll(async () => {
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  await records.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function run(entry: string, env: Record<string, string>): Run {
  const child = spawn(process.execPath, ['-r', HOOK, path.join(ROOT, entry)], {
    cwd: ROOT,
    // Production, with the embedded sandbox allowed (a test has no real purchase service).
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      EMBEDDED_SANDBOX: 'true',
      // Production refuses the embedded payment sandbox: these runs sell on the operator's wallet.
      PAYMENT_PROVIDER: 'none',
      AGENT_PIN_SECRET: 'start-stop-test-agent-pin-secret-0123456789',
      TOKEN_ENCRYPTION_KEY: 'start-stop-test-token-encryption-key-0123456789',
      OPERATOR_PASSWORD_PEPPER: 'start-stop-test-operator-password-pepper-0123',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Poll (bounded) until the process printed `text` on stdout or exited. */
async function until(r: Run, text: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (r.stdout().includes(text)) return;
    if (r.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never printed ${JSON.stringify(text)}; stderr: ${r.stderr()}`);
}

async function failsWithOneLine(entry: string, env: Record<string, string>): Promise<string> {
  const r = run(entry, env);
  const code = await r.exited;
  expect(code).toBe(1);
  const lines = r.stderr().trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(r.stderr()).not.toMatch(/\n\s+at /);
  expect(r.stdout()).toBe('');
  return lines[0] as string;
}

const WORKER_ENV = {
  PURCHASE_API_BASE_URL: 'http://127.0.0.1:9',
  PURCHASE_API_CLIENT_ID: 'c',
  PURCHASE_API_CLIENT_SECRET: 'client-secret-value',
  PURCHASE_API_USERNAME: 'u',
  PURCHASE_API_PASSWORD: 'password-value',
  PURCHASE_API_ORG_CODE: 'o',
  ALLOW_OUTBOX_SMS: 'true',
  // Any free port: tests run side by side.
  WORKER_HEALTH_PORT: '0',
  ...records.env,
};

describe('gateway entry (src/main.ts)', () => {
  test.each([
    [{ PORT: 'abc' }, 'gateway: invalid configuration: PORT: must be a whole number'],
    [
      { PURCHASE_API_BASE_URL: 'https://vas.example.com' },
      'gateway: PURCHASE_API_CLIENT_ID, PURCHASE_API_CLIENT_SECRET, PURCHASE_API_USERNAME, PURCHASE_API_PASSWORD, PURCHASE_API_ORG_CODE must be set when PURCHASE_API_BASE_URL is set',
    ],
    [
      { SMS_DRIVER: 'smpp' },
      'gateway: SMPP_HOST, SMPP_SYSTEM_ID, SMPP_PASSWORD must be set for SMS_DRIVER=smpp',
    ],
    [
      { REDIS_URL: 'redis://:redis-password@127.0.0.1:1' },
      'gateway: cannot reach Redis at redis://127.0.0.1:1 (REDIS_URL): connect ECONNREFUSED 127.0.0.1:1',
    ],
  ])('%j stops the start with one line', async (env, line) => {
    expect(await failsWithOneLine('src/main.ts', env)).toBe(line);
  });

  it('production refuses unsafe defaults unless allowed, each with one line', async () => {
    expect(await failsWithOneLine('src/main.ts', { EMBEDDED_SANDBOX: 'false' })).toBe(
      'gateway: NODE_ENV=production needs PURCHASE_API_BASE_URL (a real purchase service); set EMBEDDED_SANDBOX=true to run the sandbox anyway',
    );
    const real = { ...WORKER_ENV, ALLOW_OUTBOX_SMS: 'false' };
    expect(await failsWithOneLine('src/main.ts', real)).toMatch(
      /^gateway: NODE_ENV=production needs REDIS_URL: /,
    );
    // Without DATABASE_URL before anything else: the records would be in a folder nobody backs up.
    const { DATABASE_URL: _url, DATABASE_SCHEMA: _schema, ...noDatabase } = real;
    expect(await failsWithOneLine('src/main.ts', { ...noDatabase, DATA_DIR: dataDir })).toBe(
      'gateway: NODE_ENV=production needs DATABASE_URL (postgres://…): purchases, agents and floats are kept in PostgreSQL, which an operator backs up',
    );
    expect(await failsWithOneLine('src/main.ts', { ...real, ALLOW_IN_MEMORY: 'true' })).toMatch(
      /^gateway: NODE_ENV=production needs an SMS_DRIVER: the outbox delivers no SMS/,
    );
    // Callbacks open to anyone who reaches the port (#27 item 3): a spoofed BLOCK or YES.
    expect(await failsWithOneLine('src/main.ts', { ...WORKER_ENV, ALLOW_IN_MEMORY: 'true' })).toBe(
      'gateway: NODE_ENV=production needs a secret or an allow-list on every callback that can buy or change an agent: ' +
        'open are every USSD callback (set USSD_CALLBACK_SECRET or USSD_ALLOWED_IPS) and the inbound SMS and ' +
        'delivery report routes (set SMS_CALLBACK_SECRET or SMS_ALLOWED_IPS); ' +
        'ALLOW_OPEN_CALLBACKS=true only if nothing but a private link reaches the port',
    );
    // Payments (#30): an explicit provider, and never the embedded payment sandbox.
    expect(await failsWithOneLine('src/main.ts', { PAYMENT_PROVIDER: '' })).toBe(
      "gateway: NODE_ENV=production needs PAYMENT_PROVIDER (mpesa, momo or http; none: callers buy on the operator's wallet)",
    );
    expect(await failsWithOneLine('src/main.ts', { PAYMENT_PROVIDER: 'mpesa' })).toBe(
      "gateway: NODE_ENV=production refuses the embedded payment sandbox: set MPESA_BASE_URL and the provider's settings (src/payments/README.md)",
    );
    // The PIN pepper (AGENT_PIN_SECRET): without it the agents' rows alone give their PINs away.
    expect(await failsWithOneLine('src/main.ts', { AGENT_PIN_SECRET: '' })).toBe(
      "gateway: NODE_ENV=production needs AGENT_PIN_SECRET (32+ random characters, kept outside the database): agents' PIN hashes are peppered with it",
    );
    // The tokens' key (#36 item 3): without it a dump of the database hands out every token.
    expect(await failsWithOneLine('src/main.ts', { TOKEN_ENCRYPTION_KEY: '' })).toBe(
      'gateway: NODE_ENV=production needs TOKEN_ENCRYPTION_KEY (32+ random characters, kept outside the database): tokens and SMS texts are sealed with it at rest',
    );
    // The console's password pepper, likewise (src/operators/pepper.ts).
    expect(await failsWithOneLine('src/main.ts', { OPERATOR_PASSWORD_PEPPER: '' })).toBe(
      "gateway: NODE_ENV=production needs OPERATOR_PASSWORD_PEPPER (32+ random characters, kept outside the database): operators' password hashes are peppered with it",
    );
    expect(await failsWithOneLine('src/main.ts', { ADMIN_TOKEN: 'short' })).toBe(
      'gateway: ADMIN_TOKEN must be at least 16 characters',
    );
  }, 120_000);

  it('production with the outbox allowed prints no /dev/sms URL, and /dev/sms is not served (#12 item 1)', async () => {
    const r = run('src/main.ts', {
      ...WORKER_ENV,
      ALLOW_IN_MEMORY: 'true',
      USSD_CALLBACK_SECRET: 'callback-secret-0123456789',
      PORT: '0',
    });
    await until(r, '"gateway started"');
    const started = JSON.parse(
      r
        .stdout()
        .split('\n')
        .find((l) => l.includes('"gateway started"'))!,
    );
    expect(started.sms).toBe('outbox (not served: set DEV_ROUTES=true to read it)');
    expect(r.stdout()).not.toContain('/dev/sms');
    expect((await fetch(`${started.url}/dev/sms`)).status).toBe(404);
    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(0);
  }, 120_000);

  it('a DATABASE_URL that does not answer stops the start with one line, its password never shown', async () => {
    const line = await failsWithOneLine('src/main.ts', {
      ...WORKER_ENV,
      ALLOW_IN_MEMORY: 'true',
      USSD_CALLBACK_SECRET: 'callback-secret-0123456789',
      DATABASE_URL: 'postgres://gateway:db-password-value@127.0.0.1:1/gateway',
      // Any free port: a gateway on 3000 elsewhere on the machine must not answer for the database.
      PORT: '0',
    });
    expect(line).toMatch(
      /^gateway: cannot open PostgreSQL at 127\.0\.0\.1:1\/gateway \(schema test_entry_\w+\): .*ECONNREFUSED/,
    );
    expect(line).not.toContain('db-password-value');
  });

  it('stops on SIGTERM with exit 0 and nothing on stderr (embedded mode and Redis)', async () => {
    const modes: Record<string, string>[] = [
      { DATA_DIR: dataDir },
      { REDIS_URL, REDIS_PREFIX: `${PREFIX}-gw`, ...records.env },
    ];
    for (const extra of modes) {
      const r = run('src/main.ts', { PORT: '0', SANDBOX_PORT: '0', ...extra });
      await until(r, '"gateway started"');
      // Dev routes are on in the embedded mode: the start log says where the simulator is.
      expect(r.stdout()).toMatch(/"simulator":"http:\/\/127\.0\.0\.1:\d+\/simulator"/);
      r.child.kill('SIGTERM');
      expect(await r.exited).toBe(0);
      expect(r.stderr()).toBe('');
      for (const line of r.stdout().trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    }
  });
});

describe('worker entry (src/worker.ts)', () => {
  it('without REDIS_URL: one line', async () => {
    expect(await failsWithOneLine('src/worker.ts', { ...WORKER_ENV, ALLOW_IN_MEMORY: 'true' })).toBe(
      'worker: REDIS_URL must be set for npm run worker',
    );
  });

  it('without DATABASE_URL: one line (the embedded database is the gateway process its own)', async () => {
    const { DATABASE_URL: _url, DATABASE_SCHEMA: _schema, ...noDatabase } = WORKER_ENV;
    expect(await failsWithOneLine('src/worker.ts', { ...noDatabase, REDIS_URL })).toBe(
      'worker: NODE_ENV=production needs DATABASE_URL (postgres://…): purchases, agents and floats are kept in PostgreSQL, which an operator backs up',
    );
    // Beside the embedded sandbox production needs no DATABASE_URL, but a worker still does.
    expect(
      await failsWithOneLine('src/worker.ts', {
        ALLOW_OUTBOX_SMS: 'true',
        WORKER_HEALTH_PORT: '0',
        REDIS_URL,
        DATA_DIR: dataDir,
      }),
    ).toBe('worker: DATABASE_URL must be set for npm run worker (the gateway and its workers share it)');
  });

  it('with a dead Redis: one line, no retry loop', async () => {
    const line = await failsWithOneLine('src/worker.ts', {
      ...WORKER_ENV,
      REDIS_URL: 'redis://127.0.0.1:1',
    });
    expect(line).toMatch(/^worker: cannot reach Redis at redis:\/\/127\.0\.0\.1:1 \(REDIS_URL\)/);
  });

  it('answers GET /healthz while Redis does; stops on SIGTERM with exit 0 and nothing on stderr', async () => {
    const r = run('src/worker.ts', {
      ...WORKER_ENV,
      REDIS_URL,
      REDIS_PREFIX: `${PREFIX}-worker`,
    });
    await until(r, '"purchase worker started"');
    const url = /"health":"(http:\/\/127\.0\.0\.1:\d+\/healthz)"/.exec(r.stdout())?.[1];
    if (!url) throw new Error(r.stdout());
    const health = await fetch(url);
    expect([health.status, await health.json()]).toEqual([
      200,
      { status: 'ok', redis: 'ok', role: 'worker' },
    ]);
    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(0);
    expect(r.stderr()).toBe('');
    expect(r.stdout()).not.toMatch(/client-secret-value|password-value/);
  });
});

describe('worker entry without a purchase service configured (#27 item 4)', () => {
  const noService = { ALLOW_OUTBOX_SMS: 'true', WORKER_HEALTH_PORT: '0', ...records.env };

  it('with no PURCHASE_API_* at all: uses the running sandbox with its credentials, as the gateway does', async () => {
    const sandbox = await startSandbox({ port: 0, silent: true });
    try {
      const port = new URL(sandbox.url).port;
      const r = run('src/worker.ts', {
        ...noService,
        REDIS_URL,
        REDIS_PREFIX: `${PREFIX}-worker-sandbox`,
        SANDBOX_PORT: port,
      });
      await until(r, '"purchase worker started"');
      expect(r.stdout()).toContain(`"purchaseService":"sandbox at http://127.0.0.1:${port}"`);
      expect(r.stdout()).not.toContain('no sandbox answers');
      r.child.kill('SIGTERM');
      expect(await r.exited).toBe(0);
      expect(r.stderr()).toBe('');
    } finally {
      await sandbox.close();
    }
  });

  it('a sandbox on SANDBOX_PORT=0 cannot be found: one line', async () => {
    expect(
      await failsWithOneLine('src/worker.ts', {
        ...noService,
        REDIS_URL,
        SANDBOX_PORT: '0',
      }),
    ).toBe(
      'worker: npm run worker needs PURCHASE_API_BASE_URL, or the sandbox of a running gateway at a known SANDBOX_PORT (not 0)',
    );
  });

  it('production without EMBEDDED_SANDBOX still needs a real service and its five credentials', async () => {
    expect(
      await failsWithOneLine('src/worker.ts', {
        ...noService,
        REDIS_URL,
        EMBEDDED_SANDBOX: 'false',
      }),
    ).toMatch(/^worker: NODE_ENV=production needs PURCHASE_API_BASE_URL/);
    expect(
      await failsWithOneLine('src/worker.ts', {
        ...noService,
        REDIS_URL,
        PURCHASE_API_BASE_URL: 'https://vas.example.com',
      }),
    ).toMatch(/^worker: PURCHASE_API_CLIENT_ID, .* must be set when PURCHASE_API_BASE_URL is set$/);
  });
});

describe('sandbox entry (src/sandbox/main.ts)', () => {
  let blocker: Server;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  it('a bad value or a port in use: one line', async () => {
    expect(await failsWithOneLine('src/sandbox/main.ts', { SANDBOX_PORT: 'x' })).toBe(
      'sandbox: invalid configuration: SANDBOX_PORT must be a whole number',
    );
    const { port } = blocker.address() as AddressInfo;
    expect(await failsWithOneLine('src/sandbox/main.ts', { SANDBOX_PORT: String(port) })).toMatch(
      /^sandbox: failed to start: listen EADDRINUSE/,
    );
  });

  it('stops on SIGTERM with exit 0', async () => {
    const r = run('src/sandbox/main.ts', { SANDBOX_PORT: '0' });
    await until(r, '"sandbox listening"');
    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(0);
    expect(r.stderr()).toBe('');
  });
});
