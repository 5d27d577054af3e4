import { spawn } from 'node:child_process';
import path from 'node:path';
import { testRecordsEnv } from '../support/database';
import { NodeProcess } from '../support/node-process';
import { until } from '../support/wait';
import { dialogue, type OutboxMessage } from '../e2e/harness';

/**
 * #36 item 2: with the records in PostgreSQL every process peppers PIN hashes with the one
 * `AGENT_PIN_SECRET`. An agent added by the CLI process logs in at a gateway process, and again
 * after the gateway restarts; and without the secret (nor the token key) each process — the
 * gateway, the worker, the CLI — refuses to start with one line naming it. The processes run
 * with NODE_ENV=development, where the tests' fixed secret does not apply.
 */

const ROOT = path.resolve(__dirname, '../..');
const HOOK = path.join(ROOT, 'test/entrypoints/ts-require-hook.js');
const records = testRecordsEnv('pin_procs');
const SECRETS = {
  AGENT_PIN_SECRET: 'pin-processes-test-agent-pin-secret-0123456789',
  TOKEN_ENCRYPTION_KEY: 'pin-processes-test-token-encryption-key-0123',
};
const BASE = {
  PATH: process.env.PATH ?? '',
  NODE_ENV: 'development',
  LOG_LEVEL: 'error',
  SANDBOX_PORT: '0',
  PAYMENT_SANDBOX_PORT: '0',
  // The records only: the keys are what this test gives or withholds.
  DATABASE_URL: records.env.DATABASE_URL,
  DATABASE_SCHEMA: records.env.DATABASE_SCHEMA,
};

afterAll(() => records.drop());

/** A process run to its end: its exit code and what it printed. */
function runToEnd(
  entry: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['-r', HOOK, path.join(ROOT, entry), ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

const PIN_LINE =
  "DATABASE_URL needs AGENT_PIN_SECRET (32+ random characters, kept outside the database, the same in every gateway, worker and CLI): agents' PIN hashes are peppered with it";
const KEY_LINE =
  'DATABASE_URL needs TOKEN_ENCRYPTION_KEY (32+ random characters, kept outside the database, the same in every gateway, worker and CLI): tokens and SMS texts are sealed with it at rest';

it('every process refuses to start on PostgreSQL without the secret, or the token key, in one line', async () => {
  const runs = [
    { entry: 'src/main.ts', args: [], prefix: 'gateway: ', code: 1 },
    { entry: 'src/worker.ts', args: [], prefix: 'worker: ', code: 1 },
    { entry: 'src/cli/main.ts', args: ['agent', 'list'], prefix: 'error: ', code: 2 },
  ];
  for (const { entry, args, prefix, code } of runs)
    for (const [env, line] of [
      [{}, PIN_LINE],
      [{ AGENT_PIN_SECRET: SECRETS.AGENT_PIN_SECRET }, KEY_LINE],
    ] as const) {
      const run = await runToEnd(entry, args, { ...BASE, REDIS_URL: 'redis://127.0.0.1:1', ...env });
      expect({ entry, code: run.code, stderr: run.stderr, stdout: run.stdout }).toEqual({
        entry,
        code,
        stderr: `${prefix}${line}\n`,
        stdout: '',
      });
    }
}, 120_000);

it('an agent added by the CLI logs in at the gateway, and again after the gateway restarts', async () => {
  const agent = '26771230036';
  const added = await runToEnd(
    'src/cli/main.ts',
    ['agent', 'add', '--msisdn', agent, '--name', 'Mma K', '--float'],
    {
      ...BASE,
      ...SECRETS,
    },
  );
  expect(added).toMatchObject({ code: 0 });
  const oneTimePin = /one-time PIN: (\d+)/.exec(added.stdout)?.[1];
  expect(oneTimePin).toMatch(/^\d{4,6}$/);

  const gateway = new NodeProcess('src/main.ts', { ...BASE, ...SECRETS, DEV_ROUTES: 'true' });
  await gateway.start();
  try {
    const sms = async (id: string, text: string): Promise<string> => {
      const before = (await outbox(gateway.url, agent)).length;
      const sent = await fetch(`${gateway.url}/sms/inbound`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id, from: agent, to: '1', text, receivedAt: 'now' }),
      });
      expect(sent.status).toBe(200);
      return until(`an answer to ${id}`, async () => {
        const messages = await outbox(gateway.url, agent);
        return messages.length > before ? messages[0].message : null;
      });
    };
    // The one-time PIN the CLI printed is the gateway's too: the agent chooses its own.
    expect(await sms('pin-1', `PIN ${oneTimePin} 5937`)).toBe('Your PIN is changed.');
    const menu = await dialogue(gateway, 'pin-procs-1', agent, ['5937']);
    expect(menu[1].screen).toMatch(/^Agent menu:/);

    // A restart keeps the key: the agent is not locked out.
    await gateway.stop();
    await gateway.start();
    const again = await dialogue(gateway, 'pin-procs-2', agent, ['5937']);
    expect(again[1].screen).toMatch(/^Agent menu:/);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${gateway.log}`);
  } finally {
    await gateway.stop();
  }
}, 180_000);

async function outbox(url: string, to: string): Promise<OutboxMessage[]> {
  return ((await (await fetch(`${url}/dev/sms?to=${to}&limit=20`)).json()) as { messages: OutboxMessage[] })
    .messages;
}
