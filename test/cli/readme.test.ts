import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { EXIT, main } from '../../src/cli/main';
import { startSandbox, TEST_METERS, type RunningSandbox } from '../../src/sandbox';
import { deleteKeysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';

/**
 * Every `npm run cli -- …` example of README.md, read from the README itself (so this test
 * breaks when the README drifts) and run as written, in the README's order, with the operator's
 * environment: the sandbox of a running `npm start` (here on a free port, SANDBOX_PORT) and the
 * gateway's Redis. The field agents' examples are left to their own section.
 */

const README = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');

interface Example {
  text: string;
  env: Record<string, string>;
  argv: string[];
}

/** `npm run cli -- …` lines of the sh blocks (continuations joined, comments cut) and inline code spans. */
function readmeCliExamples(readme: string): Example[] {
  const found: string[] = [];
  const blocks = readme.split(/^```/m);
  blocks.forEach((block, index) => {
    if (index % 2 === 1) {
      for (const line of block.replace(/\\\n\s*/g, '').split('\n'))
        if (line.includes('npm run cli -- ')) found.push(line.replace(/\s+#.*$/, ''));
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
let cwd: string;
const home = process.cwd();
const redis = new Redis(TEST_REDIS_URL);
const prefix = testPrefix('cli-readme');

beforeAll(async () => {
  // The sandbox `npm start` (or `npm run sandbox`) runs, on a free port here.
  sandbox = await startSandbox({ port: 0, silent: true });
  // `--file lost.csv` is read from where the operator runs the command.
  cwd = mkdtempSync(path.join(tmpdir(), 'cli-readme-'));
  writeFileSync(
    path.join(cwd, 'lost.csv'),
    `ref,identifier,product,phone\nGW-20261123-QRSTUVWXYZ234567,${TEST_METERS.active},ELECTRICITY,26771234567\n`,
  );
  process.chdir(cwd);
});

afterAll(async () => {
  process.chdir(home);
  await sandbox.close();
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
});

it('the README names the CLI commands it documents', () => {
  const commands = new Set(readmeCliExamples(README).map((e) => e.argv[0]));
  expect([...commands].sort()).toEqual([
    'blocklist',
    'check',
    'confirm',
    'purchases',
    'recover',
    'retry',
    'validate',
  ]);
});

it('every README CLI example works as written, in order (confirm, then retry finds that purchase)', async () => {
  const results: { text: string; code: number; out: string; err: string }[] = [];
  for (const example of readmeCliExamples(README)) {
    const out: string[] = [];
    const err: string[] = [];
    // The README's `redis://…` is the operator's Redis: the test's, under a prefix of its own.
    const env = Object.fromEntries(
      Object.entries(example.env).map(([name, value]) => [
        name,
        name === 'REDIS_URL' ? TEST_REDIS_URL : value,
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
