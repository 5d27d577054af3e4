import { resolve } from 'node:path';
import type { Database } from './database';
import { openPostgres } from './database';
import { migrate } from './migrate';
import { openPglite } from './pglite';
import { sealerFor } from './sealing';
import { IN_MEMORY, type RecordsSettings } from './settings';

export { IN_MEMORY, type RecordsSettings };

/** Opens the system of record as it is (no migration). */
export async function openDatabase(settings: RecordsSettings): Promise<Database> {
  const sealer = sealerFor(settings);
  return settings.url
    ? openPostgres({
        url: settings.url,
        schema: settings.schema,
        sealer,
        prepare: settings.preparedStatements,
      })
    : openPglite({
        dataDir: settings.dataDir === IN_MEMORY ? undefined : resolve(settings.dataDir, 'postgres'),
        sealer,
      });
}

/** The system of record could not be opened or migrated: one line for the operator. */
export class RecordsError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'RecordsError';
  }
}

/** Opens the system of record and brings its schema up to date (migrations under a lock). */
export async function openRecords(settings: RecordsSettings): Promise<Database> {
  let db: Database;
  try {
    db = await openDatabase(settings);
  } catch (error) {
    throw new RecordsError(`cannot open ${describeRecords(settings)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    await migrate(db);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw new RecordsError(`cannot migrate ${describeRecords(settings)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return db;
}

/** What the start log says about the system of record (never the URL's password). */
export function describeRecords(settings: RecordsSettings): string {
  if (!settings.url) {
    return settings.dataDir === IN_MEMORY
      ? 'embedded PostgreSQL (PGlite) in memory: records are lost when the process stops'
      : `embedded PostgreSQL (PGlite) in ${resolve(settings.dataDir, 'postgres')}`;
  }
  const url = new URL(settings.url);
  return `PostgreSQL at ${url.host}${url.pathname}${settings.schema ? ` (schema ${settings.schema})` : ''}`;
}
