import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { EXIT, main } from '../../src/cli/main';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { testRecordsEnv } from '../support/database';
import { deleteKeysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';

/**
 * Every `npm run cli -- …` example of docs/cli.md (and any of README.md), read from the page
 * itself (so this test breaks when it drifts) and run as written, in the page's order, with the
 * operator's environment: the sandbox of a running `npm start` (here on a free port,
 * SANDBOX_PORT), the gateway's records (a schema of its own on the test PostgreSQL) and its Redis.
 * The field agents' examples are left to docs/agents.md.
 */

const read = (file: string) => readFileSync(path.resolve(__dirname, '../..', file), 'utf8');
const README = `${read('README.md')}\n${read('docs/cli.md')}`;

interface Example {
  text: string;
  env: Record<string, string>;
  argv: string[];
}

/**
 * `npm run cli -- …` lines of the sh blocks (continuations joined, comments cut; an
 * `export NAME=value` line before them applies to the lines after it) and inline code spans.
 */
function readmeCliExamples(readme: string): Example[] {
  const found: string[] = [];
  const blocks = readme.split(/^```/m);
  blocks.forEach((block, index) => {
    if (index % 2 === 1) {
      const exported: string[] = [];
      for (const line of block.replace(/\\\n\s*/g, '').split('\n')) {
        const assignment = /^export ([A-Z_]+=\S+)/.exec(line);
        if (assignment) exported.push(assignment[1]);
        if (line.includes('npm run cli -- '))
          found.push([...exported, line.replace(/\s+#.*$/, '').trim()].join(' '));
      }
    } else {
      for (const [, span] of block.matchAll(/`([^`\n]*npm run cli -- [^`\n]*)`/g)) found.push(span);
    }
  });
  return (
    found
      .map((text) => text.trim())
      .filter((text) => !/npm run cli -- agent\b/.test(text))
      // A line with a placeholder (`<id>`) shows a command's shape, not a command to run.
      .filter((text) => !/<[a-z-]+>/.test(text))
      .map((text) => {
        const [before, after] = text.split('npm run cli -- ');
        const env = Object.fromEntries(
          before
            .trim()
            .split(/\s+/)
            .filter(Boolean)
            .map((assignment) => assignment.split('=', 2) as [string, string]),
        );
        // Optional parts (`[--dry-run]`) are run too.
        const argv = (after.replace(/[[\]]/g, '').match(/"[^"]*"|\S+/g) ?? []).map((word) =>
          word.replace(/^"|"$/g, ''),
        );
        return { text, env, argv };
      })
  );
}

let sandbox: RunningSandbox;
const records = testRecordsEnv('cli_readme');
const redis = new Redis(TEST_REDIS_URL);
const prefix = testPrefix('cli-readme');

beforeAll(async () => {
  // The sandbox `npm start` (or `npm run sandbox`) runs, on a free port here.
  sandbox = await startSandbox({ port: 0, silent: true });
});

afterAll(async () => {
  await sandbox.close();
  await records.drop();
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
});

it('docs/cli.md names the CLI commands it documents', () => {
  const commands = new Set(readmeCliExamples(README).map((e) => e.argv[0]));
  expect([...commands].sort()).toEqual([
    'blocklist',
    'check',
    'confirm',
    'help',
    'ledger',
    'operator',
    'payments',
    'purchases',
    'reconcile',
    'report',
    'retry',
    'sms',
    'validate',
  ]);
});

it('every CLI example of docs/cli.md works as written, in order (confirm, then retry finds that purchase)', async () => {
  const results: { text: string; code: number; out: string; err: string }[] = [];
  for (const example of readmeCliExamples(README)) {
    const out: string[] = [];
    const err: string[] = [];
    // The README's `redis://…` is the operator's Redis: the test's, under a prefix of its own;
    // its `postgres://…` the operator's database: the test's, in a schema of its own.
    const env = Object.fromEntries(
      Object.entries(example.env).map(([name, value]) => [
        name,
        name === 'REDIS_URL' ? TEST_REDIS_URL : name === 'DATABASE_URL' ? records.env.DATABASE_URL : value,
      ]),
    );
    const code = await main(example.argv, {
      stdout: (line) => out.push(line),
      stderr: (line) => err.push(line),
      env: {
        NODE_ENV: 'test',
        SANDBOX_PORT: String(sandbox.port),
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: prefix,
        ...records.env,
        ...env,
      },
    });
    results.push({ text: example.text, code, out: out.join('\n'), err: err.join('\n') });
  }
  expect(results.filter((r) => r.code !== EXIT.ok)).toEqual([]);
  const retry = results.find((r) => r.text.includes('cli -- retry'));
  expect(retry?.out).toMatch(/original purchase: SUCCESSFUL/);
  expect(retry?.err).toContain(`using the sandbox running at ${sandbox.url}`);
}, 60_000);
