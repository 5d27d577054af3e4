import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Redis } from 'ioredis';
import { BullJobQueue } from '../../src/queue';
import { SqlPurchaseStore } from '../../src/purchases/store';
import type { Database } from '../../src/records/database';
import { openRecords } from '../../src/records/open';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { testRecordsEnv } from '../support/database';
import { deleteKeysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';
import { until } from '../support/wait';
import { record as makeRecord } from './fixtures';
import { sandboxServiceEnv } from '../support/sandbox-env';

/**
 * Crash recovery within the confirm timeout (#12 item 3). A real worker process (`src/worker.ts`)
 * is killed with SIGKILL while its confirm hangs at the sandbox (which has already debited and
 * issued the token). The next worker finds the record `confirming` at its start and schedules a
 * check for when that confirm can no longer be in flight (its start + the confirm timeout + the
 * lost margin); the check reconciles it with `retry`. The periodic sweep is off, and BullMQ's
 * stalled-job detection waits for the dead worker's 30 s lock to run out, so that check is what
 * settles it (the lost-check itself is tested deterministically in resume-live.test.ts). Never a
 * second confirm: the sandbox ledger holds one transaction for the external reference. Both
 * workers keep their records in one PostgreSQL schema, as two runs of one deployment do.
 *
 * `CRASH_CONFIRM_TIMEOUT_MS=20000 CRASH_SWEEP_INTERVAL_MS=60000 npx jest
 * test/purchases/crash-recovery` measures the case (a 20 s confirm timeout, the default
 * sweep) and prints the time from the kill to the reconciled record.
 */

const ROOT = path.resolve(__dirname, '../..');
const HOOK = path.join(ROOT, 'test/entrypoints/ts-require-hook.js');
const WORKER = path.join(ROOT, 'src/worker.ts');
const CONFIRM_TIMEOUT_MS = Number(process.env.CRASH_CONFIRM_TIMEOUT_MS ?? 3000);
/** The target: reconciled within the confirm timeout + 15 s of the crash. */
const TARGET_MS = CONFIRM_TIMEOUT_MS + 15_000;
/** Room for a worker process to start (transpiling on the fly) on a busy machine. */
const START_MS = 60_000;
/** A measurement waits long enough for the slow path too (the sweep, BullMQ's stalled jobs). */
const WAIT_MS = process.env.CRASH_CONFIRM_TIMEOUT_MS ? 180_000 : START_MS + TARGET_MS;

let sandbox: RunningSandbox;
const prefix = testPrefix('crash');
const redis = new Redis(TEST_REDIS_URL);
const records = testRecordsEnv('crash');
let db: Database;
const children: ChildProcess[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
  db = await openRecords({ url: records.env.DATABASE_URL, schema: records.env.DATABASE_SCHEMA, dataDir: '' });
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) await kill(child);
  await sandbox.close();
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
  await db.close();
  await records.drop();
});

interface Worker {
  child: ChildProcess;
  lines: () => Record<string, unknown>[];
}

function startWorker(): Worker {
  const child = spawn(process.execPath, ['-r', HOOK, WORKER], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      ...records.env,
      ...sandboxServiceEnv(sandbox.url),
      PURCHASE_API_TIMEOUT_MS: '1000',
      PURCHASE_API_CONFIRM_TIMEOUT_MS: String(CONFIRM_TIMEOUT_MS),
      // Only the start and the check it schedules may recover the purchase, not a periodic sweep
      // (a measurement may set the gateway's default, 60000, to compare with the sweep alone).
      PURCHASE_SWEEP_INTERVAL_MS: process.env.CRASH_SWEEP_INTERVAL_MS ?? '0',
      RECONCILE_BASE_DELAY_MS: '5000',
      WORKER_HEALTH_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return {
    child,
    lines: () =>
      out
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function ledger(externalReference: string): Promise<{ status: string; token: string | null }[]> {
  const rows = (await (await fetch(`${sandbox.url}/sandbox/transactions`)).json()) as {
    external_reference: string | null;
    status: string;
    token: string | null;
  }[];
  return rows.filter((row) => row.external_reference === externalReference);
}

it(
  'a worker killed mid-confirm: the next one reconciles it once the confirm cannot be in flight, never confirming again',
  async () => {
    const store = new SqlPurchaseStore({ db });
    const jobs = new BullJobQueue({ connection: { url: TEST_REDIS_URL }, prefix: `${prefix}-bull` });
    try {
      // The confirm reaches the sandbox, which debits and issues the token, then hangs.
      const fault = await fetch(`${sandbox.url}/sandbox/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ endpoint: 'confirm', fault: 'slow', delayMs: 600_000, count: 1 }),
      });
      expect(fault.status).toBe(201);
      const first = startWorker();
      await until(
        'the first worker',
        () => first.lines().some((l) => l.message === 'purchase worker started'),
        {
          timeoutMs: START_MS,
        },
      );
      const r = makeRecord();
      await store.create(r);
      await jobs.enqueue({ kind: 'confirm', purchaseId: r.id, attempt: 0 });
      await until('the confirm at the sandbox', async () => (await ledger(r.externalReference)).length > 0, {
        timeoutMs: START_MS,
      });
      expect((await store.get(r.id))?.state).toBe('confirming');

      await kill(first.child);
      const crashedAt = Date.now();
      const second = startWorker();
      const done = await until(
        'the purchase reconciled',
        async () => {
          const current = await store.get(r.id);
          return current?.state === 'succeeded' ? current : null;
        },
        { timeoutMs: WAIT_MS },
      );
      const reconciledInMs = Date.parse(done.settledAt ?? '') - crashedAt;
      // How the second worker found it: at its start, deferred while the confirm could be in
      // flight (or lost at once when it took longer to start than that); on a machine so busy that
      // it started after the dead worker's 30 s lock ran out, BullMQ's stalled confirm job did.
      const resumed = second.lines().find((line) => line.message === 'purchases resumed');
      if (process.env.CRASH_CONFIRM_TIMEOUT_MS)
        process.stdout.write(
          `crash recovery: confirm timeout ${CONFIRM_TIMEOUT_MS} ms, reconciled ${reconciledInMs} ms after the kill ` +
            `(at start: deferred ${String(resumed?.deferred ?? 0)}, lost ${String(resumed?.lost ?? 0)})\n`,
        );

      // Reconciled, not confirmed again: one transaction, its token on the record.
      const rows = await ledger(r.externalReference);
      expect(rows).toHaveLength(1);
      expect(done.result?.rawToken).toBe(rows[0].token);
      expect(done.confirmAttempts).toBe(1);
      expect(done.lastError?.code).toBe('confirm_lost');
    } finally {
      await jobs.obliterate();
      await jobs.close();
    }
  },
  3 * START_MS + WAIT_MS,
);
