import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_PIN_SECRET } from '../../src/agents/pin-secret';
import { openPostgres, type Database } from '../../src/records/database';
import { TEST_TOKEN_KEY } from '../../src/records/sealing';
import { migrate, migrationFiles } from '../../src/records/migrate';
import { dumpPglite, openPglite } from '../../src/records/pglite';

/**
 * The one way tests reach the shared PostgreSQL: `TEST_DATABASE_URL` (default
 * `postgres://127.0.0.1:5432/test`), never `DATABASE_URL`. Each test file works in a schema of
 * its own, dropped by `cleanup()`.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://127.0.0.1:5432/test';

/** A random schema name of its own for one test (`test_<label>_<hex>`). */
export function testSchema(label = 'db'): string {
  return `test_${label.replace(/[^a-z0-9]/g, '_')}_${randomBytes(5).toString('hex')}`;
}

export interface TestDatabase {
  db: Database;
  schema: string;
  url: string;
  cleanup(): Promise<void>;
}

/** A migrated schema of its own on the test PostgreSQL; `cleanup()` drops it and closes the pool. */
export async function testDatabase(label?: string): Promise<TestDatabase> {
  const schema = testSchema(label);
  const db = await openPostgres({ url: TEST_DATABASE_URL, schema, max: 4 });
  await migrate(db);
  return {
    db,
    schema,
    url: TEST_DATABASE_URL,
    async cleanup() {
      await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await db.close();
    },
  };
}

/**
 * A migrated in-memory PGlite (the embedded database), closed by `cleanup()`. It starts from a
 * data directory migrated once per machine (initdb and the migrations cost ~1.7 s of CPU per
 * instance, loading the copy ~0.6 s); `migrate` still runs on it and finds nothing to apply.
 */
export async function testPglite(): Promise<{ db: Database; cleanup(): Promise<void> }> {
  const db = await openPglite({ loadDataDir: await pgliteCopy(true) });
  await migrate(db);
  return { db, cleanup: () => db.close() };
}

/**
 * A new in-memory PGlite with no migration applied, what `openPglite()` gives, loaded from a copy
 * of one made once per machine (initdb alone is ~4 s of CPU on a busy 2-core machine).
 */
export async function freshPglite(): Promise<Database> {
  return openPglite({ loadDataDir: await pgliteCopy(false) });
}

/**
 * A data directory just made by initdb, then migrated or not, made by the first test that needs
 * it and kept in the temporary folder under a name that changes with the migrations and the
 * PGlite version.
 */
async function pgliteCopy(migrated: boolean): Promise<Blob> {
  const pglite = join(__dirname, '../../node_modules/@electric-sql/pglite/package.json');
  const version = (JSON.parse(readFileSync(pglite, 'utf8')) as { version: string }).version;
  const key = createHash('sha256')
    .update(version)
    .update(
      migrated
        ? migrationFiles()
            .map((f) => `${f.name}:${f.checksum}`)
            .join('\n')
        : 'initdb only',
    )
    .digest('hex')
    .slice(0, 16);
  const file = join(tmpdir(), `ussd-gateway-pglite-${key}.tar`);
  if (!existsSync(file)) {
    const db = await openPglite();
    try {
      if (migrated) await migrate(db);
      const tar = Buffer.from(await (await dumpPglite(db)).arrayBuffer());
      // Written aside, then renamed: a worker never reads another's half-written copy.
      const aside = `${file}.${process.pid}`;
      writeFileSync(aside, tar);
      renameSync(aside, file);
    } finally {
      await db.close();
    }
  }
  return new Blob([readFileSync(file)]);
}

/** Drops a schema made for a test (its gateway has closed its own pool). */
export async function dropTestSchema(schema: string): Promise<void> {
  const admin = await openPostgres({ url: TEST_DATABASE_URL, max: 1 });
  try {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await admin.close();
  }
}

/**
 * The settings that put a gateway's records in a fresh schema of the test PostgreSQL
 * (`DATABASE_URL`, `DATABASE_SCHEMA`), with the keys every process on PostgreSQL needs (the
 * tests' fixed ones: what a test's own direct opens use too), for a config built by the test;
 * `drop()` removes it. Two gateways given the same env share their records, as two instances of
 * one deployment do.
 */
export function testRecordsEnv(label = 'gw'): {
  env: {
    DATABASE_URL: string;
    DATABASE_SCHEMA: string;
    AGENT_PIN_SECRET: string;
    TOKEN_ENCRYPTION_KEY: string;
  };
  drop(): Promise<void>;
} {
  const schema = testSchema(label);
  return {
    env: {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: schema,
      AGENT_PIN_SECRET: TEST_PIN_SECRET,
      TOKEN_ENCRYPTION_KEY: TEST_TOKEN_KEY,
    },
    drop: () => dropTestSchema(schema),
  };
}
