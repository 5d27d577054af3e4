/**
 * The bench's PostgreSQL: a database of its own for each gateway build (created at the start,
 * dropped at the end), so that `pg_stat_database.xact_commit` of that database counts that
 * build's commits and nothing else; and `pgbench` on the same server, for scale.
 *
 * The server is `BENCH_DATABASE_URL` (default `postgres://127.0.0.1:5432/test`, the tests'),
 * never `DATABASE_URL`: the bench creates and drops databases there.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { parentNamed } from './cpu';

export const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL || 'postgres://127.0.0.1:5432/test';

const run = promisify(execFile);

/** The URL of database `name` on the bench's server. */
function urlOf(name: string): string {
  const url = new URL(BENCH_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** What `pg` connects with: libpq's default user when the URL names none (as the gateway does). */
function client(url: string): Client {
  const parsed = new URL(url);
  if (!parsed.username) parsed.username = process.env.PGUSER || process.env.USER || 'postgres';
  return new Client({ connectionString: parsed.toString(), application_name: 'bench' });
}

export interface BenchDatabase {
  name: string;
  url: string;
}

export interface BenchDatabases {
  create(label: string): Promise<BenchDatabase>;
  /** The server's postmaster, when it runs on this machine (its CPU is a party of every hop). */
  postmasterPid(): Promise<number | null>;
  /**
   * The database's commits so far, all of them: its backends are ended first (a backend reports
   * its counts within a second when busy, up to ten seconds when idle, and at once when it
   * exits), so call it when the processes using it are quiet. Their pools reconnect on demand.
   */
  commits(db: BenchDatabase): Promise<number>;
  /** Runs `probe` on a connection of its own to `db`; its own commits are returned beside. */
  withProbe<T>(
    db: BenchDatabase,
    probe: (query: (sql: string) => Promise<unknown[]>) => Promise<T>,
  ): Promise<{
    value: T;
    ownCommits: number;
  }>;
  /**
   * From now on, note each transaction of `db` that changes rows (schema `bench`, after the
   * build's migrations): a statement trigger on every table keeps `txid_current_if_assigned()`,
   * the test's method (`countTransactions`): only a writing transaction has an id.
   */
  noteWrites(db: BenchDatabase): Promise<void>;
  /** Write transactions of `db` noted so far (the bench's own look is taken off `commits`). */
  writes(db: BenchDatabase): Promise<number>;
  dropAll(): Promise<void>;
  close(): Promise<void>;
}

/** Run in the build's database: a table of writing transactions and a trigger on every table. */
const NOTE_WRITES = `
  CREATE SCHEMA bench;
  CREATE TABLE bench.writes (xid bigint PRIMARY KEY);
  CREATE FUNCTION bench.note_write() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE xid bigint := txid_current_if_assigned();
    BEGIN
      -- A statement that changed no row leaves the transaction without an id: not a write. The
      -- session remembers the last id it noted, so a transaction of several writes inserts once
      -- (the insert was most of what this measurement cost PostgreSQL).
      IF xid IS NOT NULL AND current_setting('bench.noted', true) IS DISTINCT FROM xid::text THEN
        INSERT INTO bench.writes VALUES (xid) ON CONFLICT DO NOTHING;
        PERFORM set_config('bench.noted', xid::text, false);
      END IF;
      RETURN NULL;
    END $$;
  DO $$ DECLARE t record; BEGIN
    FOR t IN SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' LOOP
      EXECUTE format('CREATE TRIGGER bench_note_write AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %s
        FOR EACH STATEMENT EXECUTE FUNCTION bench.note_write()', t.name);
    END LOOP;
  END $$;`;

export async function benchDatabases(runId: string): Promise<BenchDatabases> {
  const admin = client(BENCH_DATABASE_URL);
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `the bench keeps each build's records in PostgreSQL at ${new URL(BENCH_DATABASE_URL).host} ` +
        `(BENCH_DATABASE_URL), which did not answer: ${(error as Error).message}`,
    );
  }
  const made: string[] = [];
  /** Commits the bench's own sessions made in a build's database (noting and reading its writes). */
  const looks = new Map<string, number>();
  const quiet = async (name: string) => {
    const deadline = Date.now() + 30_000;
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    for (;;) {
      const { rows } = await admin.query(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
        [name],
      );
      if (rows[0].n === 0) return;
      if (Date.now() > deadline) throw new Error(`database ${name} still has connections`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const read = async (name: string) => {
    await admin.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await admin.query(
      'SELECT xact_commit::bigint::text AS n FROM pg_stat_database WHERE datname = $1',
      [name],
    );
    return Number(rows[0]?.n ?? NaN);
  };
  return {
    async postmasterPid() {
      const host = new URL(BENCH_DATABASE_URL).hostname;
      if (!['127.0.0.1', 'localhost', '[::1]', ''].includes(host)) return null;
      // A backend's parent is the postmaster.
      const { rows } = await admin.query('SELECT pg_backend_pid() AS pid');
      return parentNamed(rows[0].pid, 'postgres');
    },
    async create(label) {
      const name = `bench_${runId}_${label}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
      await admin.query(`CREATE DATABASE ${name}`);
      made.push(name);
      return { name, url: urlOf(name) };
    },
    async commits(db) {
      await quiet(db.name);
      // An exiting backend reports as it goes: read until two reads agree.
      let last = await read(db.name);
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const now = await read(db.name);
        if (now === last) return now - (looks.get(db.name) ?? 0);
        last = now;
      }
    },
    async noteWrites(db) {
      const session = client(db.url);
      await session.connect();
      try {
        await session.query(NOTE_WRITES);
      } finally {
        await session.end();
      }
      // Its session's start and its one (multi-statement) query: taken off the database's commits.
      looks.set(db.name, (looks.get(db.name) ?? 0) + 2);
    },
    async writes(db) {
      const session = client(db.url);
      await session.connect();
      try {
        const { rows } = await session.query('SELECT count(*)::int AS n FROM bench.writes');
        return rows[0].n as number;
      } finally {
        await session.end();
        looks.set(db.name, (looks.get(db.name) ?? 0) + 2);
      }
    },
    async withProbe(db, probe) {
      const probeClient = client(db.url);
      await probeClient.connect();
      // Its session's start is a transaction (one commit), then one per statement.
      let ownCommits = 1;
      try {
        const value = await probe(async (sql) => {
          ownCommits += 1;
          return (await probeClient.query(sql)).rows;
        });
        return { value, ownCommits };
      } finally {
        await probeClient.end();
      }
    },
    async dropAll() {
      for (const name of made.splice(0)) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
    close: () => admin.end(),
  };
}

/** `pgbench` on PATH or in Debian's PostgreSQL directory; null when absent. */
function findPgbench(): string | null {
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean))
    if (fs.existsSync(`${dir}/pgbench`)) return `${dir}/pgbench`;
  const debian = '/usr/lib/postgresql';
  for (const version of fs.existsSync(debian) ? fs.readdirSync(debian).sort().reverse() : [])
    if (fs.existsSync(`${debian}/${version}/bin/pgbench`)) return `${debian}/${version}/bin/pgbench`;
  return null;
}

/**
 * TPC-B transactions a second of `pgbench -c 8 -j 2 -T <seconds>` on a scratch database of
 * the bench's server (scale 1), or why it was not run.
 */
export async function pgbenchTps(
  databases: BenchDatabases,
  seconds: number,
): Promise<{ tps: number } | { skipped: string }> {
  const pgbench = findPgbench();
  if (!pgbench) return { skipped: 'pgbench not found (Debian: postgresql-contrib)' };
  const db = await databases.create('pgbench');
  const env = { ...process.env, PGUSER: process.env.PGUSER || process.env.USER || 'postgres' };
  await run(pgbench, ['-q', '-i', '-s', '1', db.url], { env });
  const { stdout } = await run(pgbench, ['-c', '8', '-j', '2', '-T', String(seconds), db.url], { env });
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1];
  if (!tps) throw new Error(`pgbench printed no tps:\n${stdout}`);
  return { tps: Number(tps) };
}
