import { migrate } from './migrate';
import { describeRecords, openDatabase } from './open';
import { IN_MEMORY, type RecordsSettings } from './settings';

/**
 * `npm run migrate`: brings the system of record's schema up to date and exits. The gateway
 * and the worker do the same at start, under the same advisory lock; this is for a deploy that
 * migrates before it rolls out. It reads only where the records are (`DATABASE_URL`,
 * `DATABASE_SCHEMA`, `DATA_DIR`), so a migration job needs no other setting. Its advisory lock
 * holds one session throughout, so it never runs behind a transaction pooler: its statements are
 * prepared, whatever `DATABASE_PREPARED_STATEMENTS` says to the gateways.
 */
function settingsFrom(env: NodeJS.ProcessEnv): RecordsSettings {
  const url = env.DATABASE_URL?.trim() || undefined;
  if (url && !/^postgres(ql)?:\/\/\S+$/.test(url))
    throw new Error('DATABASE_URL must look like postgres://user@host:5432/database');
  const dataDir = env.DATA_DIR?.trim() || './data';
  if (!url && dataDir === IN_MEMORY) throw new Error('nothing to migrate: DATA_DIR=memory:// keeps nothing');
  return { url, schema: env.DATABASE_SCHEMA?.trim() || undefined, dataDir };
}

async function main(): Promise<void> {
  const settings = settingsFrom(process.env);
  const db = await openDatabase(settings);
  try {
    const applied = await migrate(db);
    for (const name of applied) process.stdout.write(`applied ${name}\n`);
    process.stdout.write(`schema up to date: ${describeRecords(settings)}\n`);
  } finally {
    await db.close();
  }
}

main().catch((error: Error) => {
  process.stderr.write(`migrate: ${error.message}\n`);
  process.exitCode = 1;
});
