/**
 * A gateway build under the bench (this one, the baseline, the one without payment step) and the
 * parties it needs, each started in a process of its own: its purchase-service sandbox, its M-Pesa
 * payment sandbox, its records' database, its HTTP process and, to fulfil its purchases, its
 * worker.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { noFulfilment, type Fulfilment } from './fulfilment';
import { APPROVE_DELAY_MS, profileFlags, REDIS_URL, TOPOLOGY, WORKER_ARGS } from './options';
import { startProcess, waitForHealth } from './processes';
import type { BenchDatabase, BenchDatabases } from './records';
import { DARAJA_DEFAULTS } from '../src/payments/sandbox/daraja';

/** A build of the gateway: this one, or the baseline's on its own port and prefix. */
export interface Build {
  root: string;
  port: number;
  env: Record<string, string>;
  server: ChildProcess;
  fulfilled: Fulfilment;
  /** The build's own sandbox: its wallet pays only this build's purchases. */
  sandbox: { process: ChildProcess; port: number };
  /** The build's own payment sandbox (M-Pesa) that collects each Buy; none: nothing is collected. */
  paymentSandbox?: { process: ChildProcess; port: number };
  /** Its records' database; none for a build from before the records moved to PostgreSQL. */
  records?: BenchDatabase;
  /**
   * The hop path's worker of this build, kept from one drain to the next and stopped (SIGSTOP)
   * while the targets play: it uses no CPU then, and drains warm, as a worker that has run a while.
   */
  drainer?: ChildProcess;
}

/** A worker process for `build` (this one by default); `healthy`: once it answers. */
export type StartWorker = (build?: Build, healthy?: boolean) => Promise<ChildProcess>;

/** A build's records: a database of its own, and the env that points the build at it. */
export type BuildRecords = {
  db: BenchDatabase;
  env: { DATABASE_URL: string; AGENT_PIN_SECRET: string; TOKEN_ENCRYPTION_KEY: string };
};

/** Every process on PostgreSQL needs these keys (src/config/production.ts `checkRecordsKeys`). */
const BENCH_KEYS = {
  AGENT_PIN_SECRET: 'bench-agent-pin-secret-not-for-real-pins',
  TOKEN_ENCRYPTION_KEY: 'bench-token-encryption-key-not-for-real-tokens',
};

/** Whether a build's money path opens a system of record (older builds kept it in Redis). */
export function opensRecords(root: string): boolean {
  const moneyPath = path.join(root, 'src/gateway/money-path.js');
  return fs.existsSync(moneyPath) && fs.readFileSync(moneyPath, 'utf8').includes('openRecords');
}

/** A database of its own per gateway build (and the floor's), dropped at the end. */
export async function recordsOf(databases: BenchDatabases, label: string): Promise<BuildRecords> {
  const db = await databases.create(label);
  return { db, env: { DATABASE_URL: db.url, ...BENCH_KEYS } };
}

/** A sandbox per gateway build: two builds paying from one wallet ran it dry in a long run. */
export async function startSandbox(children: ChildProcess[], port: number): Promise<Build['sandbox']> {
  const started = startProcess('src/sandbox/main.js', {
    SANDBOX_PORT: String(port),
    SANDBOX_DELAY_MS: '0',
  });
  children.push(started);
  await waitForHealth(port, started, '/sandbox/scenarios');
  return { process: started, port };
}

/**
 * A payment sandbox per build that has one (a build from before payments has none and
 * collects nothing): Daraja in BWP cents, and unlisted payers (every bench subscriber) approve
 * after the sandbox's own 300 ms (`BENCH_APPROVE_DELAY_MS`), still far quicker than a buyer
 * typing a PIN. At 10 ms most callbacks of a loaded gateway beat the push's answer, a race that
 * a PIN prompt makes rare in production, and the bench measured that race's extra reads and
 * writes rather than the payment step.
 */
export async function startPaymentSandbox(
  children: ChildProcess[],
  root: string,
  port: number,
  label: string,
): Promise<Build['paymentSandbox']> {
  if (!fs.existsSync(path.join(root, 'src/payments/sandbox/main.js'))) return undefined;
  const started = startProcess(
    'src/payments/sandbox/main.js',
    {
      PAYMENT_SANDBOX_PORT: String(port),
      PAYMENT_SANDBOX_DARAJA_CURRENCY: 'BWP',
      PAYMENT_SANDBOX_DARAJA_DECIMALS: '2',
      PAYMENT_SANDBOX_APPROVE_DELAY_MS: String(APPROVE_DELAY_MS),
    },
    profileFlags(`payment-sandbox-${label}`),
    root,
  );
  children.push(started);
  await waitForHealth(port, started, '/sandbox/payers');
  return { process: started, port };
}

/** The gateway's env to collect through M-Pesa at `paymentSandbox`, called back on its own port. */
function mpesaEnv(paymentSandbox: Build['paymentSandbox'], gatewayPort: number): Record<string, string> {
  return paymentSandbox
    ? {
        PAYMENT_PROVIDER: 'mpesa',
        MPESA_BASE_URL: `http://127.0.0.1:${paymentSandbox.port}`,
        MPESA_CONSUMER_KEY: DARAJA_DEFAULTS.consumerKey,
        MPESA_CONSUMER_SECRET: DARAJA_DEFAULTS.consumerSecret,
        MPESA_SHORTCODE: DARAJA_DEFAULTS.shortcode,
        MPESA_PASSKEY: DARAJA_DEFAULTS.passkey,
        MPESA_INITIATOR: 'bench-initiator',
        MPESA_SECURITY_CREDENTIAL: 'YmVuY2gtY3JlZGVudGlhbA==',
        // The sandbox reads Daraja's Amount in cents (PAYMENT_SANDBOX_DARAJA_DECIMALS=2).
        MPESA_AMOUNT_DECIMALS: '2',
        PAYMENT_CURRENCY: 'BWP',
        PAYMENT_CALLBACK_BASE_URL: `http://127.0.0.1:${gatewayPort}`,
        PAYMENT_CALLBACK_SECRET: 'bench-payment-callback-secret',
      }
    : {};
}

/** The env every gateway build of the run starts from (the floor's too): Redis and the sandbox. */
export function gatewayEnvOf(runId: string, purchaseService: string): Record<string, string> {
  return {
    REDIS_URL,
    REDIS_PREFIX: `bench-${runId}`,
    PURCHASE_API_BASE_URL: purchaseService,
    PURCHASE_API_CLIENT_ID: 'sandbox-client',
    PURCHASE_API_CLIENT_SECRET: 'sandbox-secret',
    PURCHASE_API_USERNAME: 'integration',
    PURCHASE_API_PASSWORD: 'sandbox-pass',
    PURCHASE_API_ORG_CODE: 'SANDBOX',
    // 64 subscribers buy hundreds of times each: the per-number daily limits must not end them.
    SPEND_DAY_MAX_COUNT: '100000',
    SPEND_DAY_MAX_VALUE: '100000000',
  };
}

/** Starts a build's HTTP process (it answers once its health check does: the caller waits). */
export function startGateway(
  children: ChildProcess[],
  root: string,
  port: number,
  env: Record<string, string>,
  nodeArgs: string[],
  ownSandbox: Build['sandbox'],
  records: BuildRecords | undefined,
  paymentSandbox?: Build['paymentSandbox'],
): Build {
  // Production's layout: the HTTP process answers hops, a worker process runs the purchase and
  // SMS jobs (during the rounds, or after them for the hop path alone; see TOPOLOGY).
  const split = TOPOLOGY !== 'single';
  // The worker gets the same env (payment settings included): it polls and refunds.
  env = { ...env, ...records?.env, ...mpesaEnv(paymentSandbox, port) };
  const server = startProcess(
    'src/main.js',
    // Info, as production logs (a line per hop); the other parties log errors only.
    { ...env, PORT: String(port), GATEWAY_WORKERS: split ? 'false' : 'true', LOG_LEVEL: 'info' },
    nodeArgs,
    root,
  );
  children.push(server);
  return {
    root,
    port,
    env,
    server,
    fulfilled: noFulfilment(),
    sandbox: ownSandbox,
    records: records?.db,
    paymentSandbox,
  };
}

/** Worker processes started so far: each one's profile gets a file of its own. */
let workerStarts = 0;

/** A worker process for `build` on `port`; `healthy`: once it answers (a drain times it from its first settled purchase). */
export async function startWorker(
  children: ChildProcess[],
  build: Build,
  port: number,
  healthy: boolean,
): Promise<ChildProcess> {
  const started = startProcess(
    'src/worker.js',
    { ...build.env, WORKER_HEALTH_PORT: String(port) },
    [...profileFlags(`worker-${port}-${(workerStarts += 1)}`), ...WORKER_ARGS],
    build.root,
  );
  children.push(started);
  if (healthy) await waitForHealth(port, started, '/healthz');
  return started;
}
