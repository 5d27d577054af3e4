import { cpSync, mkdtempSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgres, type Database } from '../../src/records/database';
import { ChangedMigrationError, migrate, migrationFiles, MIGRATIONS_DIR } from '../../src/records/migrate';
import { DataDirInUseError, openPglite } from '../../src/records/pglite';
import { TEST_DATABASE_URL, testSchema } from '../support/database';

const opened: Database[] = [];
const schemas: string[] = [];
const dirs: string[] = [];

afterAll(async () => {
  const admin = await openPostgres({ url: TEST_DATABASE_URL, max: 1 });
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.close();
  for (const db of opened) await db.close().catch(() => undefined);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function pool(schema: string): Promise<Database> {
  const db = await openPostgres({ url: TEST_DATABASE_URL, schema, max: 2 });
  opened.push(db);
  return db;
}

/** A copy of the real migrations folder that a test may add to or edit. */
function migrationsCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
  dirs.push(dir);
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}

describe('migrations', () => {
  it('applies every file once when two instances start together', async () => {
    const schema = testSchema('migrate');
    schemas.push(schema);
    const [a, b] = [await pool(schema), await pool(schema)];
    const [appliedA, appliedB] = await Promise.all([migrate(a), migrate(b)]);
    const all = migrationFiles().map((f) => f.name);
    // One applied them all under the lock; the other waited and found nothing left.
    expect([...appliedA, ...appliedB].sort()).toEqual(all);
    expect(await migrate(a)).toEqual([]);
    const rows = await a.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    expect(rows.rows.map((r) => r.name)).toEqual(all);
  });

  it('refuses to start when an applied migration was edited', async () => {
    const schema = testSchema('migrate');
    schemas.push(schema);
    const db = await pool(schema);
    const dir = migrationsCopy();
    await migrate(db, dir);
    const first = readdirSync(dir).sort()[0];
    writeFileSync(join(dir, first), '-- rewritten history\nSELECT 1;');
    await expect(migrate(db, dir)).rejects.toThrow(ChangedMigrationError);
  });

  it('rolls a failing migration back whole and applies nothing of it', async () => {
    const schema = testSchema('migrate');
    schemas.push(schema);
    const db = await pool(schema);
    const dir = migrationsCopy();
    writeFileSync(
      join(dir, '9999-broken.sql'),
      'CREATE TABLE half_done (id int);\nSELECT no_such_function();',
    );
    await expect(migrate(db, dir)).rejects.toThrow(/9999-broken.sql failed/);
    const table = await db.query(`SELECT to_regclass('${schema}.half_done')::text AS t`);
    expect(table.rows[0]).toEqual({ t: null });
    const names = await db.query<{ name: string }>('SELECT name FROM schema_migrations');
    expect(names.rows.map((r) => r.name)).not.toContain('9999-broken.sql');
  });

  it('keeps the embedded database on disk across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pglite-'));
    dirs.push(dir);
    const first = await openPglite({ dataDir: dir });
    await migrate(first);
    await first.query("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')");
    await first.close();
    const second = await openPglite({ dataDir: dir });
    opened.push(second);
    expect(await migrate(second)).toEqual([]);
    expect((await second.query('SELECT v FROM kept')).rows).toEqual([{ v: 'still here' }]);
    // A real initdb and every migration, then a second start: ~5 s alone, past 30 s on a machine
    // shared with a whole test run.
  }, 120_000);
});

describe('the embedded database directory', () => {
  it('is opened by one process at a time, and a dead owner is taken over', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pglite-'));
    dirs.push(dir);
    // A live process that is not this one holds it (this test's parent, jest's runner).
    writeFileSync(join(dir, 'owner.pid'), String(process.ppid));
    await expect(openPglite({ dataDir: dir })).rejects.toThrow(DataDirInUseError);
    // Its owner died without closing (a pid that cannot be running).
    writeFileSync(join(dir, 'owner.pid'), '2147483646');
    const db = await openPglite({ dataDir: dir });
    opened.push(db);
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});
