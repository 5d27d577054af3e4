import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import axios from 'axios';
import { loadConfig } from '../../src/config';
import type { Gateway } from '../../src/gateway/app';
import { SANDBOX_CREDENTIALS, TEST_METERS } from '../../src/sandbox';
import { sandboxSettings } from '../../src/sandbox/settings';
import { createPurchaseService } from '../../src/vas';
import { hop, newPhone, startTestGateway } from '../e2e/harness';
import { until } from '../support/wait';
import { loginBody } from './helpers';

/**
 * #12 item 4: the sandbox `npm start` embeds reads the same `SANDBOX_*` settings as
 * `npm run sandbox` (one parse), a restarted sandbox never repeats a reference or a token, and
 * the legacy interface's menu offers only what it can sell. #29: a restarted `npm start` keeps
 * its purchases in the embedded PostgreSQL under DATA_DIR. The entry points run as operators
 * start them, as child processes (transpiled on the fly, no build), under a DATA_DIR of this
 * file's own (never ./data of the checkout).
 */

const ROOT = path.resolve(__dirname, '../..');
const HOOK = path.join(ROOT, 'test/entrypoints/ts-require-hook.js');

const dataDirs: string[] = [];
/** A fresh folder for an embedded database, removed after the file. */
function newDataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-embedded-'));
  dataDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * The DATA_DIR of every `npm start` here, one after the other: the restart test's first start
 * finds it empty, as after `npm ci`; the later starts find its records, as a restarted one does
 * (a first start makes the embedded database: initdb and every migration, ~5 s of CPU).
 */
const gatewayDataDir = newDataDir();

interface Run {
  child: ChildProcess;
  output: () => string;
  /** Resolves once it has exited and all it wrote has been read. */
  ended: Promise<void>;
  stop(): Promise<void>;
}

function run(entry: string, env: Record<string, string>): Run {
  const child = spawn(process.execPath, ['-r', HOOK, path.join(ROOT, entry)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  // 'close', not 'exit': by then all it wrote has been read.
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    child,
    output: () => out,
    ended: exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const SETTINGS = {
  SANDBOX_DELAY_MS: '300',
  SANDBOX_METER_LOCK: 'false',
  SANDBOX_ACCESS_IN: '120',
  SANDBOX_RATE_LIMIT: '1000/60s',
};

describe('a restarted npm start keeps its records (#29)', () => {
  const ADMIN_TOKEN = 'embedded-admin-token-0123456789';
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

  /** `npm start` with nothing but a DATA_DIR (and an admin token to look the records up). */
  async function start(dataDir: string): Promise<{ gateway: Run; url: string }> {
    const gateway = run('src/main.ts', {
      PORT: '0',
      SANDBOX_PORT: '0',
      PAYMENT_SANDBOX_PORT: '0',
      DATA_DIR: dataDir,
      ADMIN_TOKEN,
    });
    try {
      const url = await until(
        'the gateway started',
        () =>
          gateway
            .output()
            .split('\n')
            .filter((line) => line.includes('"gateway started"'))
            .map((line) => (JSON.parse(line) as { url: string }).url)[0],
        { timeoutMs: 60_000 },
      );
      return { gateway, url };
    } catch (error) {
      await gateway.stop();
      throw new Error(`${(error as Error).message}: ${gateway.output()}`);
    }
  }

  async function purchasesOf(url: string, phone: string) {
    const { data } = await axios.get(`${url}/admin/purchases`, { params: { msisdn: phone }, headers: auth });
    return data.purchases as Array<{ id: string; state: string; externalReference: string }>;
  }

  it('a purchase bought before the restart is found after it, by the operator and under My tokens', async () => {
    const dataDir = gatewayDataDir;
    const phone = newPhone();
    const session = `buy-${phone}`;
    let bought: { id: string; state: string; externalReference: string };
    const first = await start(dataDir);
    try {
      const meter = TEST_METERS.active;
      // "Send the token to": 1 This phone.
      for (const typed of ['', '1', `1*${meter}`, `1*${meter}*1`, `1*${meter}*1*100`])
        await hop({ url: first.url }, session, phone, typed);
      const done = await hop({ url: first.url }, session, phone, `1*${meter}*1*100*1`);
      expect(done.end).toBe(true);
      [bought] = await until('the purchase succeeded', async () => {
        const found = await purchasesOf(first.url, phone);
        return found.length === 1 && found[0].state === 'succeeded' ? found : null;
      });
    } finally {
      await first.gateway.stop();
    }
    expect(first.gateway.output()).toContain(
      `embedded PostgreSQL (PGlite) in ${path.join(dataDir, 'postgres')}`,
    );

    const second = await start(dataDir);
    try {
      expect(await purchasesOf(second.url, phone)).toEqual([
        expect.objectContaining({
          id: bought.id,
          state: 'succeeded',
          externalReference: bought.externalReference,
        }),
      ]);
      const menu = await hop({ url: second.url }, `mine-${phone}`, phone, '');
      const myTokens = /(\d+) My purchases/.exec(menu.screen)![1];
      const list = await hop({ url: second.url }, `mine-${phone}`, phone, myTokens);
      expect(list.screen).toContain('BWP 100.00');
    } finally {
      await second.gateway.stop();
    }
  }, 180_000);
});

describe('the embedded sandbox reads the SANDBOX_* settings of npm run sandbox', () => {
  it('one parse: the gateway configuration holds exactly what npm run sandbox reads', () => {
    const env = { ...SETTINGS, SANDBOX_PORT: '0', PAYMENT_SANDBOX_PORT: '0', SANDBOX_HOST: '127.0.0.2' };
    expect(loadConfig(env).sandbox).toEqual(sandboxSettings(env));
    expect(loadConfig({}).sandbox).toEqual(sandboxSettings({}));
    expect(() => loadConfig({ SANDBOX_DELAY_MS: 'soon' })).toThrow(
      'invalid configuration: SANDBOX_DELAY_MS: must be a whole number',
    );
    // A real purchase service: no sandbox, and its settings are not read.
    expect(
      loadConfig({
        SANDBOX_DELAY_MS: 'soon',
        PURCHASE_API_BASE_URL: 'http://127.0.0.1:9',
        PURCHASE_API_CLIENT_ID: 'c',
        PURCHASE_API_CLIENT_SECRET: 's',
        PURCHASE_API_USERNAME: 'u',
        PURCHASE_API_PASSWORD: 'p',
        PURCHASE_API_ORG_CODE: 'o',
      }).sandbox,
    ).toBeNull();
  });

  it('npm start with SANDBOX_DELAY_MS: the delayed meter answers after that delay, not 95 s; SANDBOX_METER_LOCK too', async () => {
    const gateway = run('src/main.ts', {
      ...SETTINGS,
      PORT: '0',
      SANDBOX_PORT: '0',
      PAYMENT_SANDBOX_PORT: '0',
      DATA_DIR: gatewayDataDir,
    });
    try {
      const url = await until(
        'the gateway started',
        () => /embedded sandbox at (http:\/\/[\d.:]+)/.exec(gateway.output())?.[1],
        { timeoutMs: 60_000 },
      );
      const service = createPurchaseService({
        baseUrl: url,
        interface: 'v1',
        ...SANDBOX_CREDENTIALS,
        timeoutMs: 5000,
        // Far below the 95 s default delay: only SANDBOX_DELAY_MS=300 lets this confirm answer.
        confirmTimeoutMs: 10_000,
      });
      const ctx = { requestId: 'embedded-settings' };
      const request = {
        sourceChannel: 'USSD' as const,
        language: 'en-BW',
        productType: 'ELECTRICITY' as const,
        providerCode: 'BPC',
        debitedAccountId: 1001,
        beneficiaryPhoneNumber: '26771234567',
        amount: { currency: 'BWP', minor: 2000 },
      };
      const delayed = await service.confirm(
        { ...request, subscriberIdentifier: TEST_METERS.delayed, externalReference: `emb-${Date.now()}` },
        ctx,
      );
      expect(delayed.status).toBe('SUCCESSFUL');
      // The meter lock is off: a well-formed meter outside the staging list is sold.
      const unlisted = await service.validate({ ...request, subscriberIdentifier: '09876543210' }, ctx);
      expect(unlisted.status).toBe('ON_GOING');
    } finally {
      await gateway.stop();
    }
  }, 120_000);
});

interface Sold {
  reference: string;
  token: string;
}

/** Three electricity confirms on a running sandbox: their references and tokens. */
async function sellThree(url: string, tag: string): Promise<Sold[]> {
  const http = axios.create({ baseURL: url });
  const token = (await http.post('/public/v1/auth/login', loginBody())).data.access_token as string;
  const sold: Sold[] = [];
  for (let i = 0; i < 3; i += 1) {
    const { data } = await http.post(
      '/public/v1/purchases/confirm',
      {
        source_channel: 'USSD',
        language: 'en-BW',
        product_type: 'ELECTRICITY',
        provider_code: 'BPC',
        debited_account_id: 1001,
        beneficiary_phone_number: '26771234567',
        subscriber_identifier: TEST_METERS.active,
        amount: 20,
        currency: 'BWP',
        external_reference: `${tag}-${i}`,
      },
      { headers: { authorization: `Bearer ${token}` } },
    );
    sold.push({ reference: data.reference, token: data.product?.token ?? data.token });
  }
  return sold;
}

it('two sandboxes in sequence (npm run sandbox, stopped, started again) never repeat a reference or a token', async () => {
  const sold: Sold[] = [];
  for (const tag of ['first', 'second']) {
    const sandbox = run('src/sandbox/main.ts', { SANDBOX_PORT: '0' });
    try {
      const url = await until(
        'the sandbox listening',
        () => /"url":"(http:[^"]+)"/.exec(sandbox.output())?.[1],
        {
          timeoutMs: 60_000,
        },
      );
      sold.push(...(await sellThree(url, tag)));
    } finally {
      await sandbox.stop();
    }
  }
  expect(sold).toHaveLength(6);
  for (const { reference, token } of sold) {
    expect(reference).toMatch(/^TOP\/\d{4}\/\d{2}\/\d{8}$/);
    expect(token).toMatch(/^\d{4}( \d{4}){4}$/);
  }
  expect(new Set(sold.map((s) => s.reference)).size).toBe(6);
  expect(new Set(sold.map((s) => s.token)).size).toBe(6);
}, 180_000);

describe('a standalone sandbox logs at LOG_LEVEL', () => {
  /** Started, asked once over HTTP (a request line at info), stopped: all it wrote. */
  async function outputOf(env: Record<string, string>): Promise<string> {
    const sandbox = run('src/payments/sandbox/main.ts', { PAYMENT_SANDBOX_PORT: '0', ...env });
    try {
      const url = await until(
        'the payment sandbox listening',
        () => /"url":"(http:[^"]+)"/.exec(sandbox.output())?.[1],
        {
          timeoutMs: 60_000,
        },
      );
      const answer = await axios.get(`${url}/sandbox/payers`, { validateStatus: () => true });
      expect(answer.status).toBe(200);
      if (env.LOG_LEVEL !== 'error')
        await until('the request logged', () => sandbox.output().includes('payment sandbox request'));
    } finally {
      await sandbox.stop();
    }
    return sandbox.output();
  }

  it('info (the default) logs each request; error only the listening line', async () => {
    expect(await outputOf({ LOG_LEVEL: '' })).toContain('"message":"payment sandbox request"');
    const quiet = await outputOf({ LOG_LEVEL: 'error' });
    expect(quiet).toContain('"message":"payment sandbox listening"');
    expect(quiet).not.toContain('payment sandbox request');
  }, 120_000);

  it('a LOG_LEVEL it does not know stops the start with one line naming it', async () => {
    const sandbox = run('src/payments/sandbox/main.ts', { PAYMENT_SANDBOX_PORT: '0', LOG_LEVEL: 'loud' });
    await sandbox.ended;
    expect(sandbox.child.exitCode).toBe(1);
    expect(sandbox.output().trim()).toBe(
      'payment sandbox: invalid configuration: LOG_LEVEL must be one of error, warn, info, http, verbose, debug, silly',
    );
  }, 60_000);
});

describe('PURCHASE_API_INTERFACE=legacy (electricity only)', () => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ PURCHASE_API_INTERFACE: 'legacy' });
  });
  afterAll(() => gateway.close());

  it('the menu offers only electricity, over HTTP; choosing it asks for the meter', async () => {
    const phone = newPhone();
    const menu = await hop(gateway, 'legacy-menu', phone, '');
    expect(menu.end).toBe(false);
    expect(menu.screen).toMatch(/1 Electricity/);
    expect(menu.screen).not.toMatch(/Airtime|Water/);
    const meter = await hop(gateway, 'legacy-menu', phone, '1');
    expect(meter.screen).toMatch(/Meter number/i);
  });
});
