import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { TEST_PAYERS } from '../../src/payments/sandbox';
import { sandboxEnv } from '../../src/payments/setup';
import { SANDBOX_CREDENTIALS } from '../../src/sandbox';
import { testRecordsEnv } from '../support/database';
import { freePort } from '../support/redis-server';
import { TEST_REDIS_URL } from '../support/redis';
import { until } from '../support/wait';
import { ledger } from '../e2e/harness';
import { ARTIFACTS } from './harness';
import { SmsSink } from './sms-sink';

/**
 * The buyer pays in production mode (#30, Done-when): the gateway built as `dist` and started
 * with NODE_ENV=production, its payment provider a *standalone* payment sandbox reached by URL
 * (`npm run payment-sandbox`), its purchase service the standalone purchase sandbox
 * (`npm run sandbox`), PostgreSQL (a schema of its own), Redis, an SMS provider over HTTP and
 * every callback secret set. A USSD purchase and an SMS purchase each end paid with a token SMS;
 * a payer who declines gets the not-paid SMS — with M-Pesa, then once with MoMo. Production
 * refuses only the embedded sandbox: an operator staging against a sandbox by URL is accepted.
 */

const ROOT = path.resolve(__dirname, '../..');
/** Built here, not into dist/ (another run may be using it). */
const BUILD = path.join(ARTIFACTS, `production-build-${process.pid}`);
const SECRET = {
  USSD_CALLBACK_SECRET: 'production-run-ussd-callback-key',
  SMS_CALLBACK_SECRET: 'production-run-sms-callback-key',
  PAYMENT_CALLBACK_SECRET: 'production-run-payment-callback-key',
};
const METER = '01234567890';

const records = testRecordsEnv('prodrun');
const sink = new SmsSink();
const prefix = `prodrun-${process.pid}-${Date.now()}`;
const children: ChildProcess[] = [];

function copyAssets(from: string, to: string, test: (name: string) => boolean): void {
  if (!existsSync(from)) return;
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) copyAssets(source, path.join(to, entry.name), test);
    else if (test(entry.name)) {
      mkdirSync(to, { recursive: true });
      cpSync(source, path.join(to, entry.name));
    }
  }
}

/** `npm run build` into BUILD: tsc, then the files scripts/copy-assets.js copies. */
function build(): void {
  const tsc = spawnSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', BUILD],
    { cwd: ROOT, encoding: 'utf8' },
  );
  // Type errors are the lint's business; what is run is what tsc emitted.
  if (!existsSync(path.join(BUILD, 'src/main.js')))
    throw new Error(`build failed: ${tsc.stdout}${tsc.stderr}`);
  copyAssets(path.join(ROOT, 'src'), path.join(BUILD, 'src'), (name) => /\.(lua|sql)$/.test(name));
  copyAssets(path.join(ROOT, 'locales'), path.join(BUILD, 'locales'), (name) => name.endsWith('.json'));
  copyAssets(path.join(ROOT, 'src/simulator/public'), path.join(BUILD, 'src/simulator/public'), () => true);
}

interface Running {
  child: ChildProcess;
  output: () => string;
}

/** `node <BUILD>/<entry>` with exactly `env` (and PATH), resolved once `ready` answers true. */
async function run(
  entry: string,
  env: Record<string, string>,
  ready: (r: Running) => Promise<boolean> | boolean,
) {
  const child = spawn(process.execPath, [path.join(BUILD, entry)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const running = { child, output: () => output };
  await until(
    `${entry} ready`,
    async () => {
      if (child.exitCode !== null) throw new Error(`${entry} exited ${child.exitCode}: ${output}`);
      return ready(running);
    },
    { timeoutMs: 60_000, everyMs: 100 },
  );
  return running;
}

async function stop(r: Running | undefined): Promise<void> {
  if (!r || r.child.exitCode !== null || r.child.signalCode !== null) return;
  const exited = new Promise((resolve) => r.child.once('exit', resolve));
  r.child.kill('SIGTERM');
  const timer = setTimeout(() => r.child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** The URL a standalone sandbox printed in its listening line. */
function listeningUrl(r: Running, message: string): string | null {
  const line = r
    .output()
    .split('\n')
    .find((l) => l.includes(message));
  return line ? (JSON.parse(line) as { url: string }).url : null;
}

let purchaseSandbox: Running;
let paymentSandbox: Running;
let purchaseUrl: string;
let paymentUrl: string;

beforeAll(async () => {
  const started = Date.now();
  build();
  process.stdout.write(`production build: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  await sink.start();
  purchaseSandbox = await run(
    'src/sandbox/main.js',
    { SANDBOX_PORT: String(await freePort()), LOG_LEVEL: 'info' },
    (r) => listeningUrl(r, 'sandbox listening') !== null,
  );
  purchaseUrl = listeningUrl(purchaseSandbox, 'sandbox listening')!;
  paymentSandbox = await run(
    'src/payments/sandbox/main.js',
    {
      PAYMENT_SANDBOX_PORT: String(await freePort()),
      PAYMENT_SANDBOX_DARAJA_CURRENCY: 'BWP',
      PAYMENT_SANDBOX_DARAJA_DECIMALS: '2',
    },
    (r) => listeningUrl(r, 'payment sandbox listening') !== null,
  );
  paymentUrl = listeningUrl(paymentSandbox, 'payment sandbox listening')!;
}, 240_000);

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await sink.close();
  const redis = new Redis(TEST_REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  await records.drop();
  rmSync(BUILD, { recursive: true, force: true });
});

function providerEnv(provider: 'mpesa' | 'momo'): Record<string, string> {
  return {
    PAYMENT_PROVIDER: provider,
    // The sandbox takes cents over Daraja's wire (PAYMENT_SANDBOX_DARAJA_DECIMALS=2); the live API
    // does not: the embedded setup's block says MPESA_AMOUNT_DECIMALS=2.
    ...sandboxEnv(provider, paymentUrl),
    ...(provider === 'mpesa' && {
      MPESA_INITIATOR: 'staging-initiator',
      MPESA_SECURITY_CREDENTIAL: 'c3RhZ2luZy1jcmVkZW50aWFs',
    }),
  };
}

/** The gateway from BUILD in production mode, paying through `provider` at the standalone sandbox. */
async function startGateway(provider: 'mpesa' | 'momo'): Promise<{ url: string; process: Running }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const process = await run(
    'src/main.js',
    {
      NODE_ENV: 'production',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      PURCHASE_API_BASE_URL: purchaseUrl,
      PURCHASE_API_CLIENT_ID: SANDBOX_CREDENTIALS.clientId,
      PURCHASE_API_CLIENT_SECRET: SANDBOX_CREDENTIALS.clientSecret,
      PURCHASE_API_USERNAME: SANDBOX_CREDENTIALS.username,
      PURCHASE_API_PASSWORD: SANDBOX_CREDENTIALS.password,
      PURCHASE_API_ORG_CODE: SANDBOX_CREDENTIALS.orgCode,
      ...providerEnv(provider),
      PAYMENT_CURRENCY: 'BWP',
      PAYMENT_CALLBACK_BASE_URL: url,
      ...SECRET,
      ...records.env,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: `${prefix}-${provider}`,
      SMS_DRIVER: 'http',
      SMS_HTTP_URL: sink.url,
      AGENT_PIN_SECRET: 'production-run-agent-pin-secret-0123456789',
      OPERATOR_PASSWORD_PEPPER: 'production-run-operator-password-pepper-0123',
    },
    async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok ?? false,
  );
  gatewayLog = () => process.output().slice(-3000);
  return { url, process };
}

let nextNumber = 0;
function phone(): string {
  nextNumber += 1;
  // 26771…: a Botswana mobile range (an invalid one is taken for a short code and not answered).
  return `26771${String((process.pid * 37 + nextNumber * 104_729) % 1_000_000).padStart(6, '0')}`;
}

/** What a buyer answers on each screen of an electricity purchase of BWP 100 for METER. */
const ANSWERS: [RegExp, string][] = [
  [/Choose a service/, '1'],
  [/Enter meter number/, METER],
  [/Send the token to/, '1'],
  [/Enter the amount/, '100'],
  [/1 Buy/, '1'],
];

/** One USSD purchase of BWP 100 for METER, Africa's Talking's wire with the callback key; the last reply. */
async function buyByUssd(gateway: string, msisdn: string): Promise<string> {
  const session = `prod-${msisdn}-${Date.now()}`;
  const inputs: string[] = [];
  for (let hop = 0; hop < 8; hop += 1) {
    const answer = await fetch(`${gateway}/ussd/africastalking`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-callback-key': SECRET.USSD_CALLBACK_SECRET,
      },
      body: new URLSearchParams({
        sessionId: session,
        phoneNumber: `+${msisdn}`,
        serviceCode: '*384#',
        networkCode: '99999',
        text: inputs.join('*'),
      }),
    });
    const reply = await answer.text();
    expect({ status: answer.status, reply }).toMatchObject({ status: 200 });
    if (reply.startsWith('END ')) return reply;
    const next = ANSWERS.find(([screen]) => screen.test(reply));
    if (!next) throw new Error(`unexpected screen: ${reply}`);
    inputs.push(next[1]);
  }
  throw new Error('the dialogue did not end');
}

async function sms(gateway: string, msisdn: string, text: string): Promise<void> {
  const answer = await fetch(`${gateway}/sms/africastalking`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-callback-key': SECRET.SMS_CALLBACK_SECRET,
    },
    body: new URLSearchParams({
      id: `prod-${msisdn}-${Date.now()}-${text}`,
      from: `+${msisdn}`,
      to: '12345',
      text,
      date: new Date().toISOString(),
    }),
  });
  expect(answer.status).toBe(200);
}

const smsTo = (msisdn: string, pattern: RegExp) =>
  until(`an SMS to ${msisdn} matching ${pattern}`, () =>
    sink.acceptedTo(msisdn).find((hit) => pattern.test(hit.message)),
  ).catch((error: Error) => {
    throw new Error(
      `${error.message}; it received ${JSON.stringify(sink.acceptedTo(msisdn))}; ${gatewayLog()}`,
    );
  });
let gatewayLog = () => '';

interface SandboxPayment {
  msisdn: string;
  status: string;
  amount: string;
  wire: string;
}
async function paymentsOf(msisdn: string): Promise<SandboxPayment[]> {
  const body = (await (await fetch(`${paymentUrl}/sandbox/payments`)).json()) as {
    payments: SandboxPayment[];
  };
  return body.payments.filter((p) => p.msisdn === msisdn);
}
/** Debits of METER in the purchase sandbox's ledger. */
async function debits(): Promise<number> {
  return (await ledger(purchaseUrl)).filter(
    (row) => row.subscriber_identifier === METER && row.debited_minor > 0,
  ).length;
}

/** A 20-digit token, as the token SMS prints it. */
const TOKEN = /\d{4} \d{4} \d{4} \d{4} \d{4}/;
const NOT_PAID = /did not go through/;
const declines = TEST_PAYERS.find((p) => p.behaviour === 'decline')!.msisdn;

it('M-Pesa: a USSD and an SMS purchase each paid, then a token SMS; a declined payer is told', async () => {
  const gateway = await startGateway('mpesa');
  try {
    const before = await debits();
    // USSD: the Buy ends the dialogue at once, the payment first, then the token.
    const ussdBuyer = phone();
    expect(await buyByUssd(gateway.url, ussdBuyer)).toMatch(/^END .*Approve BWP 101\.50 on your phone/s);
    const token = await smsTo(ussdBuyer, TOKEN);
    expect(token.message).toMatch(/Paid BWP 101\.50 by mobile money, ref \w+/);
    expect(await paymentsOf(ussdBuyer)).toMatchObject([{ status: 'successful', wire: 'daraja' }]);
    // SMS: the quote, YES <code>, then the token.
    const smsBuyer = phone();
    await sms(gateway.url, smsBuyer, `ELEC ${METER} 100`);
    const quote = await smsTo(smsBuyer, /YES \d{4}/);
    await sms(gateway.url, smsBuyer, `YES ${/YES (\d{4})/.exec(quote.message)![1]}`);
    expect((await smsTo(smsBuyer, TOKEN)).message).toMatch(/Paid BWP 101\.50 by mobile money/);
    expect(await paymentsOf(smsBuyer)).toMatchObject([{ status: 'successful', wire: 'daraja' }]);
    // Declined: nothing bought, and the buyer told why.
    await buyByUssd(gateway.url, declines);
    expect((await smsTo(declines, NOT_PAID)).message).toMatch(/declined.*Nothing was bought/s);
    expect(sink.acceptedTo(declines).some((hit) => TOKEN.test(hit.message))).toBe(false);
    expect((await paymentsOf(declines))[0]).toMatchObject({ status: 'failed' });
    // Two paid purchases, two debits at the purchase service; none for the decline.
    expect((await debits()) - before).toBe(2);
  } finally {
    await stop(gateway.process);
  }
});

it('MoMo: a USSD purchase paid, then a token SMS, against the same standalone sandbox', async () => {
  const gateway = await startGateway('momo');
  try {
    const buyer = phone();
    expect(await buyByUssd(gateway.url, buyer)).toMatch(/^END .*Approve BWP 101\.50/s);
    expect((await smsTo(buyer, TOKEN)).message).toMatch(/Paid BWP 101\.50 by mobile money/);
    expect(await paymentsOf(buyer)).toMatchObject([{ status: 'successful', wire: 'momo' }]);
  } finally {
    await stop(gateway.process);
  }
});
