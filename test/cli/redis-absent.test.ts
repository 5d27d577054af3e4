import { spawn } from 'node:child_process';
import path from 'node:path';
import { sandboxServiceEnv } from '../support/sandbox-env';

/**
 * Every CLI command that needs Redis, run as an operator runs it (a process of its own,
 * transpiled on the fly), against a REDIS_URL where nothing listens: one line, a non-zero exit,
 * within seconds — not a connection error every 10 s for ever (#27 item 4). The same for every
 * command that opens the records, against a DATABASE_URL where nothing listens (#29).
 */

const ROOT = path.resolve(__dirname, '../..');
const HOOK = path.join(ROOT, 'test/entrypoints/ts-require-hook.js');
const NOWHERE = 'redis://127.0.0.1:1/0';
const NO_DATABASE = 'postgres://127.0.0.1:1/test';

function runCli(
  argv: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; ms: number; stdout: string; stderr: string }> {
  const started = Date.now();
  const child = spawn(process.execPath, ['-r', HOOK, path.join(ROOT, 'src/cli/main.ts'), ...argv], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      SANDBOX_PORT: '0',
      REDIS_URL: NOWHERE,
      // Where a purchase-service call would go: never reached, Redis is asked first.
      ...sandboxServiceEnv('http://127.0.0.1:1'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    // A CLI that never exits is the failure: stop it and report what it printed.
    const stuck = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('exit', (code) => {
      clearTimeout(stuck);
      resolve({ code, ms: Date.now() - started, stdout, stderr });
    });
  });
}

it.each([
  ['purchases reconcile', ['purchases', 'reconcile', 'some-id']],
  ['sms undelivered', ['sms', 'undelivered']],
])('%s: one line, a non-zero exit, within seconds', async (_name, argv) => {
  const { code, ms, stdout, stderr } = await runCli(argv, { DATABASE_URL: NO_DATABASE });
  expect({ code, stdout, stderr }).toEqual({
    code: 1,
    stdout: '',
    stderr:
      'error: cannot reach Redis at redis://127.0.0.1:1/0 (REDIS_URL): connect ECONNREFUSED 127.0.0.1:1\n',
  });
  expect(ms).toBeLessThan(10_000);
});

it.each([
  ['purchases find', ['purchases', 'find', '--msisdn', '71234567']],
  ['purchases show', ['purchases', 'show', 'some-id']],
  ['agent list', ['agent', 'list']],
  ['blocklist list', ['blocklist', 'list']],
  ['ledger check', ['ledger', 'check']],
  ['report daily', ['report', 'daily', '--date', '2026-11-24']],
])('%s, the database absent: one line, a non-zero exit, within seconds', async (_name, argv) => {
  const { code, ms, stdout, stderr } = await runCli(argv, { DATABASE_URL: NO_DATABASE });
  expect({ code, stdout, stderr }).toEqual({
    code: 1,
    stdout: '',
    stderr: 'error: cannot open PostgreSQL at 127.0.0.1:1/test: connect ECONNREFUSED 127.0.0.1:1\n',
  });
  expect(ms).toBeLessThan(10_000);
});
