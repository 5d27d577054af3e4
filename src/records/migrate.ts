import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Umzug, type UmzugStorage } from 'umzug';
import type { Database, Queryable } from './database';

/** The versioned SQL files, applied in name order: `NNNN-what-it-does.sql`. */
export const MIGRATIONS_DIR = join(__dirname, 'migrations');

const MIGRATION_FILE = /^\d{4}-[a-z0-9-]+\.sql$/;

/** Any fixed number: the advisory lock two instances starting together queue on. */
const MIGRATION_LOCK = 0x55_53_53_44; // 'USSD'

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

/** The migration files of `dir`, in the order they apply. */
export function migrationFiles(dir = MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(dir)
    .filter((name) => MIGRATION_FILE.test(name))
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/** A migration applied before whose file has changed since: history is never rewritten in place. */
export class ChangedMigrationError extends Error {
  constructor(readonly names: string[]) {
    super(
      `migrations changed after they were applied: ${names.join(', ')} (add a new migration instead of editing one)`,
    );
    this.name = 'ChangedMigrationError';
  }
}

/**
 * Brings the database's schema up to the newest migration and returns the names it applied.
 * Runs under an advisory lock (a second instance waits, then finds nothing to do); each file and
 * its row in `schema_migrations` commit together, so a crash leaves a file applied whole or not at all.
 */
export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = migrationFiles(dir);
  return db.withAdvisoryLock(MIGRATION_LOCK, async (session) => {
    await session.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         name text PRIMARY KEY,
         checksum text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const applied = await session.query<{ name: string; checksum: string }>(
      'SELECT name, checksum FROM schema_migrations',
    );
    const changed = applied.rows
      .filter((row) => files.some((f) => f.name === row.name && f.checksum !== row.checksum))
      .map((row) => row.name);
    if (changed.length > 0) throw new ChangedMigrationError(changed);

    const umzug = new Umzug<Queryable>({
      migrations: files.map((file) => ({
        name: file.name,
        up: ({ context }) => applyFile(context, file),
      })),
      context: session,
      storage: tableStorage,
      logger: undefined,
    });
    const done = await umzug.up();
    return done.map((m) => m.name);
  });
}

/**
 * The migrations this build ships that the database has not applied (oldest first), read
 * without the lock: readiness asks it, so a database restored from an older backup, or a
 * schema another build has not migrated yet, shows as not ready. Migrations the database has
 * beyond this build's (a newer build migrated first) are not counted: they only add.
 */
export async function pendingMigrations(
  db: Queryable,
  files: readonly string[] = migrationFiles().map((f) => f.name),
): Promise<string[]> {
  const table = await db.query<{ present: boolean }>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS present",
  );
  if (!table.rows[0]?.present) return [...files];
  const applied = await db.query<{ name: string }>('SELECT name FROM schema_migrations');
  const done = new Set(applied.rows.map((row) => row.name));
  return files.filter((name) => !done.has(name));
}

/** One file and its bookkeeping row in one transaction (the names are ours: MIGRATION_FILE). */
async function applyFile(session: Queryable, file: MigrationFile): Promise<void> {
  try {
    await session.query(
      `BEGIN;\n${file.sql}\n;INSERT INTO schema_migrations (name, checksum) VALUES ('${file.name}', '${file.checksum}');\nCOMMIT;`,
    );
  } catch (error) {
    // A failed statement leaves the session's transaction aborted: end it before the lock goes.
    await session.query('ROLLBACK').catch(() => undefined);
    throw new Error(`migration ${file.name} failed: ${(error as Error).message}`, { cause: error });
  }
}

/** umzug's record of what ran is the schema_migrations table, written by applyFile itself. */
const tableStorage: UmzugStorage<Queryable> = {
  async executed({ context }) {
    const result = await context.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    return result.rows.map((row) => row.name);
  },
  async logMigration() {
    // Written in the migration's own transaction (applyFile).
  },
  async unlogMigration() {
    throw new Error('migrations are never undone: add a new one');
  },
};
