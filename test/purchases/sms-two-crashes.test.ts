import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { bullJobId, BullmqSmsQueue, SMS_QUEUE_NAME } from '../../src/messaging/queue/bullmq';
import { SqlMessageStore } from '../../src/messaging/store/sql';
import { testDatabase } from '../support/database';
import { deleteKeysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';
import { until } from '../support/wait';

/**
 * The token SMS must survive a worker killed twice mid-send. Reproduced defect: HTTP driver,
 * webhook hanging; kill -9 during the send, restart, kill -9 again during the re-send, then fix
 * the webhook: BullMQ failed the job ("stalled more than allowable limit"), the notification
 * stayed `sending` for ever and nothing swept it. Here the workers are real processes killed
 * with SIGKILL, BullMQ's stall limit is kept at its old default (1) so the job does fail, and
 * the notification sweep must bring the token SMS home, exactly once.
 */

const ROOT = path.resolve(__dirname, '../..');
const HOOK = path.join(ROOT, 'test/entrypoints/ts-require-hook.js');
const WORKER = path.join(ROOT, 'test/support/sms-worker.ts');

let webhook: http.Server;
let webhookUrl = '';
let mode: 'hang' | 'ok' = 'hang';
const hits: { mode: string; id: string }[] = [];
const hanging: http.ServerResponse[] = [];

beforeAll(async () => {
  webhook = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      hits.push({ mode, id: (JSON.parse(body) as { id: string }).id });
      if (mode === 'hang') hanging.push(res);
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"messageId":"peer-1"}');
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/sms`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await new Promise<void>((resolve) => webhook.close(() => resolve()));
});

function startWorker(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['-r', HOOK, WORKER], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'error', ...env },
    stdio: 'ignore',
  });
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * A queue without a worker on this test's Redis prefix and PostgreSQL schema, and the environment
 * of the worker processes that share them (BullMQ's stall limit kept at its old default, 1).
 */
async function crashWorld(label: string) {
  const prefix = testPrefix(label.replace(/_/g, '-'));
  const bullPrefix = `${prefix}-bull`;
  const redis = new Redis(TEST_REDIS_URL);
  // The messages in a PostgreSQL schema of this test's, shared with the worker processes.
  const records = await testDatabase(label);
  const queue = new BullmqSmsQueue({
    connection: { url: TEST_REDIS_URL, maxRetriesPerRequest: null },
    prefix: bullPrefix,
    store: new SqlMessageStore(records.db),
  });
  const env = {
    REDIS_URL: TEST_REDIS_URL,
    BULL_PREFIX: bullPrefix,
    TEST_DATABASE_URL: records.url,
    MESSAGES_SCHEMA: records.schema,
    WEBHOOK_URL: webhookUrl,
    LOCK_MS: '1000',
    STALLED_INTERVAL_MS: '300',
    MAX_STALLED: '1',
  };
  return { prefix, bullPrefix, redis, records, queue, env };
}

it('a worker killed twice mid-send: the sweep revives the failed job and the token SMS is sent once', async () => {
  const { prefix, bullPrefix, redis, records, queue, env } = await crashWorld('sms_crash');
  const inspect = new Queue(SMS_QUEUE_NAME, { connection: { url: TEST_REDIS_URL }, prefix: bullPrefix });
  const children: ChildProcess[] = [];
  try {
    const id = 'p-crash:settled%3Ap-crash:26771234567';
    await queue.enqueue({
      id,
      kind: 'purchase-outcome',
      purchaseId: 'p-crash',
      to: '26771234567',
      message: 'Token: 1234 5678',
    });

    // Crash 1: the first worker hangs on the webhook and is killed.
    children.push(startWorker(env));
    await until('the first send', () => hits.length >= 1);
    await kill(children[0]);
    // Crash 2: the stalled job is sent again by a second worker, which is killed too.
    children.push(startWorker(env));
    await until('the re-send', () => hits.length >= 2);
    await kill(children[1]);
    expect((await queue.get(id))?.status).toBe('sending');

    // The webhook is healthy again; a third worker starts. BullMQ fails the twice-stalled job…
    mode = 'ok';
    children.push(startWorker(env));
    const job = await until('the job to fail as stalled', async () => {
      const found = await inspect.getJob(bullJobId(id));
      if (!found || (await found.getState()) !== 'failed') return null;
      // Read again once failed: the reason is written with the state, after the first read.
      return inspect.getJob(bullJobId(id));
    });
    expect(job.failedReason).toMatch(/stalled/);
    expect((await queue.get(id))?.status).toBe('sending');

    // …and the sweep (the workers' periodic one; called here) queues it again.
    expect(await queue.sweep()).toBe(1);
    const sent = await until('the token SMS sent', async () => {
      const record = await queue.get(id);
      return record?.status === 'sent' ? record : null;
    });
    expect(sent.revivals).toBe(1);
    expect(hits.filter((h) => h.mode === 'ok')).toEqual([{ mode: 'ok', id }]);
    // Nothing left to sweep.
    expect(await queue.sweep()).toBe(0);
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) await kill(child);
    await queue.obliterate();
    await inspect.close();
    await queue.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
    await records.cleanup();
  }
}, 60_000);

it('a staged token SMS (claimed with its outcome) whose worker is killed mid-send: the re-run claims and sends it again, once', async () => {
  const { prefix, redis, records, queue, env } = await crashWorld('sms_staged_crash');
  const children: ChildProcess[] = [];
  hits.length = 0;
  mode = 'hang';
  try {
    const id = 'p-staged:settled:26771234567';
    const sms = {
      id,
      kind: 'purchase-outcome' as const,
      purchaseId: 'p-staged',
      to: '26771234567',
      message: 'Token: 4321',
    };
    // As an outcome does: staged in its transaction (claimed for the first attempt), then started.
    await records.db.transaction((tx) => queue.stage(sms, tx));
    await queue.start(sms);
    expect(await queue.get(id)).toMatchObject({ status: 'sending', attempts: 1 });

    // The first attempt (no claim of its own) hangs at the provider and its worker is killed.
    children.push(startWorker(env));
    await until('the first send', () => hits.length >= 1);
    await kill(children[0]);
    // The stalled job runs again on a second worker: a second start, so it claims (the documented
    // window: sent again with the same id).
    mode = 'ok';
    children.push(startWorker(env));
    const sent = await until('the token SMS sent', async () => {
      const record = await queue.get(id);
      return record?.status === 'sent' ? record : null;
    });
    expect(sent.attempts).toBe(2);
    expect(hits).toEqual([
      { mode: 'hang', id },
      { mode: 'ok', id },
    ]);
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) await kill(child);
    await queue.obliterate();
    await queue.close();
    await deleteKeysUnder(redis, prefix);
    redis.disconnect();
    await records.cleanup();
  }
}, 60_000);
