import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { freePort } from '../support/redis-server';
import { findExecutable } from '../support/services';

/**
 * `npm test` on a newcomer's machine (test/support/services.ts): it provides its own Redis and
 * PostgreSQL where none answers, and stops at once, in one line, on what it cannot have.
 */

const ROOT = resolve(__dirname, '../..');
/** Two quick files, one on Redis and one on PostgreSQL. */
const FILES = ['test/session/store.redis.test.ts', 'test/purchases/store.sql.test.ts'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * `npm test -- <args>` with the test URLs unset unless given; `isolated`: inside a network
 * namespace of its own (`unshare -n`, loopback up), as a machine where nothing runs yet.
 */
function npmTest(
  args: string[],
  env: Record<string, string | undefined>,
  isolated: false | 'network' | 'network, no PostgreSQL' = false,
): Promise<Run> {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    TEST_REDIS_URL: undefined,
    TEST_DATABASE_URL: undefined,
    ...env,
  };
  for (const key of Object.keys(childEnv)) if (childEnv[key] === undefined) delete childEnv[key];
  const npm = ['npm', 'test', '--', '--maxWorkers=1', ...args];
  // No PostgreSQL installed: Debian's folder of its programs emptied, in a mount namespace of its own.
  const hidePostgres =
    isolated === 'network, no PostgreSQL' && existsSync('/usr/lib/postgresql')
      ? 'mount -t tmpfs none /usr/lib/postgresql && '
      : '';
  const [file, ...rest] = isolated
    ? ['unshare', '-n', '-m', 'sh', '-c', `ip link set lo up && ${hidePostgres}exec ${npm.join(' ')}`]
    : npm;
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn(file, rest, { cwd: ROOT, env: childEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => done({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

/** A PATH of one folder that links every program of this PATH but the `hidden` ones. */
function pathWithout(...hidden: string[]): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'gw-path-'));
  const seen = new Set<string>();
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    let real: string;
    try {
      real = realpathSync(folder);
    } catch {
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    for (const name of readdirSync(real)) {
      if (hidden.includes(name)) continue;
      try {
        symlinkSync(join(real, name), join(dir, name));
      } catch {
        // an earlier folder of the PATH has it: that one wins, as on the PATH
      }
    }
  }
  return { path: dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The lines the run wrote to stderr (npm's own banner goes to stdout). */
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

describe('an explicit test URL that does not answer', () => {
  it('TEST_REDIS_URL: one line, exit 1, no test run, nothing started instead', async () => {
    const url = `redis://127.0.0.1:${await freePort()}/15`;
    const run = await npmTest([FILES[0]], { TEST_REDIS_URL: url });
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      `npm test: TEST_REDIS_URL=${url} does not answer (unset it to use a private redis-server)`,
    ]);
    expect(run.stdout).not.toMatch(/PASS|FAIL/);
  });

  it('TEST_DATABASE_URL: one line with the reason, exit 1, no test run', async () => {
    const url = `postgres://127.0.0.1:${await freePort()}/test`;
    const run = await npmTest([FILES[1]], { TEST_DATABASE_URL: url });
    expect(run.code).toBe(1);
    const stderr = lines(run.stderr);
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toMatch(
      new RegExp(`^npm test: TEST_DATABASE_URL=${url} does not answer: .*ECONNREFUSED`),
    );
    expect(run.stdout).not.toMatch(/PASS|FAIL/);
  });
});

/** A network namespace of its own (nothing answers on 127.0.0.1): needs root and `unshare`. */
const isolated = process.getuid?.() === 0 && findExecutable('unshare') && findExecutable('ip');
const inNamespace = isolated ? describe : describe.skip;
if (!isolated)
  console.warn(
    'test/harness/services.test.ts: the network-namespace runs need root, unshare and ip: skipped',
  );

inNamespace('in a network namespace of its own (nothing listening on 127.0.0.1)', () => {
  it('starts a private redis-server and PostgreSQL cluster, runs the files, and stops both', async () => {
    const run = await npmTest(FILES, {}, 'network');
    expect(run.stderr).toMatch(
      /npm test: no Redis at redis:\/\/127\.0\.0\.1:6379\/15: a private redis-server for this run at redis:\/\/127\.0\.0\.1:\d+\/15\n/,
    );
    expect(run.stderr).toMatch(
      /npm test: no PostgreSQL at postgres:\/\/127\.0\.0\.1:5432\/test: a private cluster for this run at postgres:\/\/postgres@127\.0\.0\.1:\d+\/test\n/,
    );
    expect(run.stderr).toMatch(/Test Suites: 2 passed, 2 total/);
    expect(run.code).toBe(0);
  }, 120_000);

  it('without redis-server on the PATH: one line naming the package and TEST_REDIS_URL, exit 1, within seconds', async () => {
    const path = pathWithout('redis-server');
    try {
      const run = await npmTest(FILES, { PATH: path.path }, 'network');
      expect(run.code).toBe(1);
      expect(lines(run.stderr)).toEqual([
        "npm test: no Redis answers at redis://127.0.0.1:6379/15 and redis-server is not on the PATH: install Debian's redis-server (apt-get install redis-server), or set TEST_REDIS_URL to a Redis that answers",
      ]);
      expect(run.stdout).not.toMatch(/PASS|FAIL/);
      expect(run.ms).toBeLessThan(10_000);
    } finally {
      path.remove();
    }
  });

  it('without PostgreSQL installed: one line naming the package and TEST_DATABASE_URL, exit 1, within seconds', async () => {
    const path = pathWithout('initdb', 'pg_ctl');
    try {
      const run = await npmTest(FILES, { PATH: path.path }, 'network, no PostgreSQL');
      expect(run.code).toBe(1);
      expect(lines(run.stderr)).toEqual([
        "npm test: no PostgreSQL answers at postgres://127.0.0.1:5432/test and initdb/pg_ctl are not installed: install Debian's postgresql (apt-get install postgresql), or set TEST_DATABASE_URL to a PostgreSQL that answers",
      ]);
      expect(run.stdout).not.toMatch(/PASS|FAIL/);
      expect(run.ms).toBeLessThan(10_000);
    } finally {
      path.remove();
    }
  });
});
