import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { issueAtOnce, type Database, type Queryable, type QueryResult } from './database';
import { keylessSealer, type Sealer } from './sealing';

/** Another live process has the data directory open: two would corrupt it. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the embedded database in ${dataDir} is open in process ${pid}: one process at a time ` +
        '(reach the running gateway over /admin, or use a PostgreSQL server with DATABASE_URL)',
    );
    this.name = 'DataDirInUseError';
  }
}

/**
 * PostgreSQL in process (PGlite): the embedded default of `npm start`, stored under `dataDir`
 * so a restarted gateway keeps its records (no `dataDir`: in memory, for tests). One process
 * only may open a data directory; PGlite runs one statement at a time, so its transactions are
 * serial, which is the strongest isolation there is.
 */
export async function openPglite(
  // loadDataDir: a data directory to start from (dumpPglite's), so tests migrate once, not per database.
  // sealer: the tokens' key (./sealing.ts); unset: `keylessSealer()`.
  options: { dataDir?: string; loadDataDir?: Blob; sealer?: Sealer } = {},
): Promise<Database> {
  const release = options.dataDir ? claimDataDir(options.dataDir) : () => undefined;
  try {
    const pg = await PGlite.create({ dataDir: options.dataDir, loadDataDir: options.loadDataDir });
    return new PgliteDatabase(pg, release, options.sealer ?? keylessSealer());
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * PGlite has no lock of its own: a pid file says which process has the directory. One left by
 * a process that no longer runs (killed) is taken over.
 */
function claimDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'owner.pid');
  for (;;) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(file, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isRunning(owner))
        throw new DataDirInUseError(dataDir, owner);
      rmSync(file, { force: true });
    }
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const;

  constructor(
    private readonly pg: PGlite,
    private readonly release: () => void,
    readonly sealer: Sealer,
  ) {}

  query<Row>(text: string, params?: unknown[]): Promise<QueryResult<Row>> {
    return run<Row>(this.pg, text, params);
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.pg.transaction((tx) => work({ query: (text, params) => run(tx, text, params) }));
  }

  async transactionInOneTrip<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    // PGlite runs one statement at a time: the same transaction under the same rules. It ends once
    // the statements have answered, not the body (which may run statements of its own after), and
    // what the body throws once they have all succeeded undoes nothing, as on PostgreSQL.
    let trip!: ReturnType<typeof issueAtOnce<T>>;
    await this.pg.transaction(async (tx) => {
      trip = issueAtOnce(work, (text, params) => run(tx, text, params));
      await trip.answered;
      if (trip.threw) await trip.body; // its own error, and the statements rolled back
      if (trip.failed) throw trip.failure;
    });
    const [outcome] = await Promise.allSettled([trip.body]);
    if (outcome.status === 'rejected') throw outcome.reason;
    return outcome.value;
  }

  async withAdvisoryLock<T>(_key: number, work: (session: Queryable) => Promise<T>): Promise<T> {
    // One process owns the data directory: there is no other session to exclude.
    return work(this);
  }

  async close(): Promise<void> {
    if (!this.pg.closed) await this.pg.close();
    this.release();
  }

  dump(): Promise<Blob> {
    return this.pg.dumpDataDir('none');
  }
}

/** The whole data directory of an open PGlite as a tarball, for `openPglite({ loadDataDir })`. */
export function dumpPglite(db: Database): Promise<Blob> {
  if (!(db instanceof PgliteDatabase)) throw new Error('dumpPglite: not a PGlite database');
  return db.dump();
}

async function run<Row>(
  on: PGlite | Transaction,
  text: string,
  params?: unknown[],
): Promise<QueryResult<Row>> {
  // Parameters go through the extended protocol (one statement); SQL scripts without them go
  // through exec, which accepts several statements, as pg's simple query does.
  if (params === undefined || params.length === 0) {
    const results = await on.exec(text);
    const last = results[results.length - 1];
    return { rows: (last?.rows ?? []) as Row[], rowCount: last?.affectedRows ?? 0 };
  }
  const result = await on.query<Row>(text, params);
  return { rows: result.rows, rowCount: result.affectedRows ?? 0 };
}
