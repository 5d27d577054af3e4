import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { migrationFiles } from '../../src/records/migrate';
import { describeRecords, IN_MEMORY } from '../../src/records/open';
import { dropTestSchema, TEST_DATABASE_URL, testSchema } from '../support/database';

/** `npm run migrate` as a real process (src/records/main.ts, transpiled on the fly). */
const ROOT = path.resolve(__dirname, '../..');
const HOOK = path.join(ROOT, 'test/entrypoints/ts-require-hook.js');

function migrateCommand(env: Record<string, string>) {
  const run = spawnSync(process.execPath, ['-r', HOOK, path.join(ROOT, 'src/records/main.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: run.status, out: run.stdout.trim().split('\n'), err: run.stderr.trim() };
}

const schema = testSchema('migrate_cmd');
afterAll(() => dropTestSchema(schema));

it('applies every migration once, then finds nothing to do', () => {
  const env = { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema };
  const first = migrateCommand(env);
  expect(first).toMatchObject({ code: 0, err: '' });
  expect(first.out).toEqual([
    ...migrationFiles().map((f) => `applied ${f.name}`),
    `schema up to date: ${describeRecords({ url: TEST_DATABASE_URL, schema, dataDir: IN_MEMORY })}`,
  ]);
  const again = migrateCommand(env);
  expect(again).toMatchObject({ code: 0, err: '' });
  expect(again.out).toEqual([expect.stringMatching(/^schema up to date/)]);
});

it('fails in one line with a non-zero exit when the database cannot be reached', () => {
  const run = migrateCommand({ DATABASE_URL: 'postgres://nobody:secret-pw@127.0.0.1:1/none' });
  expect(run.code).toBe(1);
  expect(run.err.split('\n')).toHaveLength(1);
  expect(run.err).toMatch(/^migrate: /);
  expect(run.err).not.toContain('secret-pw');
});
