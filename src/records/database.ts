import { Socket } from 'node:net';
import { userInfo } from 'node:os';
import { Pool, type PoolClient } from 'pg';
import { keylessSealer, type Sealer } from './sealing';

/** The rows of one statement. */
export interface QueryResult<Row> {
  rows: Row[];
  /** Rows inserted, updated or deleted (0 for a SELECT on PGlite). */
  rowCount: number;
}

/** What a statement runs on: the database itself, or one transaction of it. */
export interface Queryable {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<QueryResult<Row>>;
}

/**
 * The system of record: a real PostgreSQL server (`DATABASE_URL`) or PGlite, PostgreSQL compiled
 * to WebAssembly and run in process (the embedded default). The same SQL runs on both; nothing
 * above this interface knows which one it has.
 */
export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Seals and opens the tokens its rows keep, under a key kept outside it (./sealing.ts). */
  readonly sealer: Sealer;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs `work` as one transaction sent in one round trip: `BEGIN`, the statements `work` issues
   * before its first `await`, and `COMMIT` leave together. For a body that decides nothing from its
   * statements' answers, as one statement run alone: each statement's own conditions decide what
   * it writes, and what the body then makes of the answers (a refusal it throws) undoes nothing. A
   * statement that fails rolls them all back and its error is thrown; one issued after the body's
   * first `await` is refused (the `COMMIT` has left).
   */
  transactionInOneTrip<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs `work` on one session holding the advisory lock `key` (waiting for it): two instances
   * starting together migrate once, one after the other.
   */
  withAdvisoryLock<T>(key: number, work: (session: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Options of a connection to a PostgreSQL server. */
export interface PostgresOptions {
  url: string;
  /** Tables live in this schema (created when missing); default `public`. Tests take one each. */
  schema?: string;
  /** Pool size; default 10. */
  max?: number;
  /** Name shown in `pg_stat_activity`. */
  applicationName?: string;
  /** The tokens' key (./sealing.ts); unset: `keylessSealer()` (the test key under NODE_ENV=test). */
  sealer?: Sealer;
  /**
   * Whether a statement with parameters is prepared once per connection and run by name after
   * (default true). False for a pooler that cannot keep a session's prepared statements
   * (PgBouncer in transaction mode before 1.21, or without `max_prepared_statements`).
   */
  prepare?: boolean;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A pool of connections to a PostgreSQL server. */
export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const schema = options.schema ?? 'public';
  // The schema goes into SQL text (search_path cannot be a parameter): only a plain name passes.
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid database schema name ${JSON.stringify(schema)}`);
  const pool = new Pool({
    connectionString: withDefaultUser(options.url),
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'ussd-gateway',
    // A server that does not answer fails the start in seconds, not at the OS's TCP timeout.
    connectionTimeoutMillis: 5_000,
    options: `-c search_path=${schema}`,
    // Statements issued without waiting for the one before go out together (one round trip);
    // the server still runs them in order, each with its own result or error.
    pipeline: true,
    stream: coalescingSocket,
  });
  // An idle client's error (the server restarted) must not crash the process: the pool replaces it.
  pool.on('error', () => undefined);
  if (schema !== 'public') await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  else await pool.query('SELECT 1');
  return new PostgresDatabase(
    pool,
    options.sealer ?? keylessSealer(),
    options.prepare === false ? null : new StatementNames(),
  );
}

/** At most this many statement texts are prepared by one pool; any beyond run unnamed. */
const MAX_PREPARED = 1000;

/**
 * Names for the statements a pool prepares: PostgreSQL parses and plans an unnamed statement
 * every time it runs (on the bench, 43% of the server's CPU in a paying round went to that), a
 * named one once per connection (node-postgres keeps which ones each connection has). The texts
 * come from the code, so they are few; a text made with values in it would each be new, hence
 * the cap.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();

  /** The name `text` runs under, or undefined: run it unnamed. */
  nameOf(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < MAX_PREPARED) {
      name = `gw${this.names.size}`;
      this.names.set(text, name);
    }
    return name;
  }
}

/**
 * node-postgres's form of a statement: by name when it has parameters (a statement without, such
 * as `BEGIN` or a migration's several statements, goes by the simple protocol, unprepared).
 */
function statement(names: StatementNames | null, text: string, params: unknown[] | undefined) {
  const name = names && params && params.length > 0 ? names.nameOf(text) : undefined;
  return name === undefined ? { text, values: params } : { name, text, values: params };
}

/**
 * A connection's prepared statements no longer fit a table that changed under them (a column
 * added while `SELECT *` was prepared): PostgreSQL refuses to run them ("cached plan must not
 * change result type"). The statement did not run; the connection must be dropped so that a new
 * one prepares them again. Told by the SQLSTATE and the server's routine, not by the message,
 * which the server translates (`lc_messages`).
 */
export function isStalePlan(error: unknown): boolean {
  const { code, routine } = (error ?? {}) as { code?: unknown; routine?: unknown };
  return code === '0A000' && routine === 'RevalidateCachedQuery';
}

/**
 * A connection's socket that sends what is written to it in one turn of the event loop as one
 * write: a pipelined `BEGIN` and the statements issued with it leave in one system call, not one
 * each (node-postgres corks only the messages of one statement). On a loaded machine each write
 * costs its sender the wake-up of the server's backend; the bytes and their order are the same.
 */
function coalescingSocket(): Socket {
  const socket = new Socket();
  let holding = false;
  const release = () => {
    holding = false;
    socket.uncork();
  };
  // Set once connected: net.Socket's connect() puts the prototype's write back on the socket.
  socket.once('connect', () => {
    const write = socket.write as (...args: unknown[]) => boolean;
    socket.write = ((...args: unknown[]) => {
      if (!holding) {
        holding = true;
        socket.cork();
        process.nextTick(release);
      }
      return write.apply(socket, args);
    }) as Socket['write'];
  });
  return socket;
}

/** libpq's default when the URL names no user: PGUSER, else the operating system's user name. */
export function withDefaultUser(url: string): string {
  const parsed = new URL(url);
  if (!parsed.username) parsed.username = process.env.PGUSER || userInfo().username;
  return parsed.toString();
}

class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;

  constructor(
    private readonly pool: Pool,
    readonly sealer: Sealer,
    private readonly names: StatementNames | null,
  ) {}

  async query<Row>(text: string, params?: unknown[]): Promise<QueryResult<Row>> {
    // The pool drops a connection whose statement failed, stale plans included.
    const result = await this.pool.query(statement(this.names, text, params));
    return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.onOneClient(async (client) => {
      // Not waited for: BEGIN goes out with the body's first statement, one round trip for both.
      // A BEGIN that fails (only a lost connection can fail it) fails the statements behind it.
      const begun = client.query('BEGIN');
      begun.catch(() => undefined);
      try {
        const result = await work(clientQueryable(client, this.names));
        await begun;
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async transactionInOneTrip<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const { trip, end } = await this.onOneClient(async (client) => {
      // BEGIN, the body's statements and COMMIT are issued in one turn: one write of the socket.
      const begun = client.query('BEGIN');
      const trip = issueAtOnce(work, (text, params) => client.query(statement(this.names, text, params)));
      const ended = client.query(trip.threw ? 'ROLLBACK' : 'COMMIT');
      const [opened, , answered] = await Promise.allSettled([begun, trip.answered, ended]);
      if (opened.status === 'rejected') throw opened.reason;
      // Lost at the commit: whether it was written is not known, as with `transaction`.
      if (answered.status === 'rejected') throw answered.reason;
      // A statement that cost the connection (its prepared statements stale): not handed on.
      if (trip.failed && isConnectionError(trip.failure)) throw trip.failure;
      return { trip, end: answered.value.command };
    });
    // The connection is handed on once the COMMIT answered (every statement had, before it): what
    // the body does next may need one of its own.
    const [outcome] = await Promise.allSettled([trip.body]);
    // A statement failed: PostgreSQL aborted the transaction and answered the COMMIT with ROLLBACK.
    if (trip.failed) throw trip.failure;
    if (outcome.status === 'rejected') throw outcome.reason;
    if (end !== 'COMMIT') throw new Error('the transaction was rolled back');
    return outcome.value;
  }

  async withAdvisoryLock<T>(key: number, work: (session: Queryable) => Promise<T>): Promise<T> {
    return this.onOneClient(async (client) => {
      await client.query('SELECT pg_advisory_lock($1)', [key]);
      try {
        return await work(clientQueryable(client, this.names));
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
      }
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async onOneClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    // Ended while held between two statements (a failover, a terminated backend): the pool listens
    // only to idle clients, so without this the error would crash the process. The next statement
    // fails with it instead, and the client is not handed on.
    const lost = (error: Error) => (broken = error);
    client.on('error', lost);
    try {
      return await work(client);
    } catch (error) {
      // A connection that failed mid-transaction is not handed to the next caller.
      if (isConnectionError(error)) broken = error as Error;
      throw error;
    } finally {
      client.off('error', lost);
      client.release(broken);
    }
  }
}

function clientQueryable(client: PoolClient, names: StatementNames | null): Queryable {
  return {
    async query<Row>(text: string, params?: unknown[]): Promise<QueryResult<Row>> {
      const result = await client.query(statement(names, text, params));
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    },
  };
}

/**
 * `work` run with every statement it issues before its first `await` (`transactionInOneTrip`): its
 * `tx` refuses a statement issued after that, since the transaction's end has left with the
 * others. Says whether `work` threw before returning (nothing may be committed then) and the
 * first statement that failed (the transaction is aborted then, whatever the body did with it).
 */
export function issueAtOnce<T>(
  work: (tx: Queryable) => Promise<T>,
  run: (text: string, params?: unknown[]) => Promise<{ rows: unknown[]; rowCount: number | null }>,
): {
  body: Promise<T>;
  /** Settles once every statement issued has answered. */
  answered: Promise<unknown>;
  threw: boolean;
  readonly failed: boolean;
  readonly failure: unknown;
} {
  let open = true;
  let failure: { error: unknown } | undefined;
  const issued: Promise<unknown>[] = [];
  const tx: Queryable = {
    async query<Row>(text: string, params?: unknown[]): Promise<QueryResult<Row>> {
      if (!open)
        throw new Error(
          `a statement issued after its transaction was sent (transactionInOneTrip): ${text.slice(0, 80)}`,
        );
      const answer = run(text, params);
      issued.push(answer.catch((error: unknown) => (failure ??= { error })));
      const result = await answer;
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    },
  };
  let body: Promise<T>;
  let threw = false;
  try {
    body = work(tx);
  } catch (error) {
    threw = true;
    body = Promise.reject(error);
  }
  open = false;
  // Awaited by the caller once its end has answered: never unhandled meanwhile.
  body.catch(() => undefined);
  return {
    body,
    answered: Promise.all(issued),
    threw,
    get failed() {
      return failure !== undefined;
    },
    get failure() {
      return failure?.error;
    },
  };
}

/**
 * Whether `error` may have cost the connection (no SQLSTATE: the driver's own; class 08, or 57: an
 * administrator's shutdown), or left it unfit (its prepared statements stale: `isStalePlan`).
 * Errors with another SQLSTATE (a constraint, a serialization failure) leave the connection usable
 * and the statement's fate known.
 */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    typeof code !== 'string' ||
    !/^[0-9A-Z]{5}$/.test(code) ||
    code.startsWith('08') ||
    code.startsWith('57') ||
    isStalePlan(error)
  );
}

/** What {@link countTransactions} has seen: each commit is a write or a read-only transaction. */
export interface TransactionCounts {
  /** Transactions that changed rows (PostgreSQL assigned them a transaction id). */
  writes: number;
  /** Transactions that changed nothing (reads, and writes that matched no row). */
  reads: number;
}

/**
 * Measurement only (the commits-per-purchase test, the bench): `db` with every commit sorted
 * into writes and reads. PostgreSQL assigns a transaction id only to a transaction that writes,
 * so `txid_current_if_assigned()` asked just before the commit tells them apart exactly; a
 * statement outside a transaction runs as a transaction of its own (still one commit). `listen`
 * hears each with the statements it held.
 */
export function countTransactions(
  db: Database,
  listen: (kind: 'write' | 'read', statements: string[]) => void = () => undefined,
): { db: Database; counts: TransactionCounts } {
  const counts: TransactionCounts = { writes: 0, reads: 0 };
  const counted = async <T>(work: (tx: Queryable) => Promise<T>): Promise<T> => {
    const statements: string[] = [];
    const seen = { wrote: false };
    const result = await db.transaction(async (tx) => {
      const value = await work({
        query: <Row>(text: string, params?: unknown[]) => {
          statements.push(text);
          return tx.query<Row>(text, params);
        },
      });
      const xid = await tx.query<{ xid: string | null }>('SELECT txid_current_if_assigned()::text AS xid');
      seen.wrote = typeof xid.rows[0]?.xid === 'string';
      return value;
    });
    counts[seen.wrote ? 'writes' : 'reads'] += 1;
    listen(seen.wrote ? 'write' : 'read', statements);
    return result;
  };
  // The id is asked with the body's statements, in the same trip (a later statement is refused).
  const countedInOneTrip = async <T>(work: (tx: Queryable) => Promise<T>): Promise<T> => {
    const statements: string[] = [];
    const seen = { wrote: false };
    const result = await db.transactionInOneTrip(async (tx) => {
      const value = work({
        query: <Row>(text: string, params?: unknown[]) => {
          statements.push(text);
          return tx.query<Row>(text, params);
        },
      });
      const xid = tx.query<{ xid: string | null }>('SELECT txid_current_if_assigned()::text AS xid');
      const [answer, id] = await Promise.allSettled([value, xid]);
      seen.wrote = id.status === 'fulfilled' && typeof id.value.rows[0]?.xid === 'string';
      if (answer.status === 'rejected') throw answer.reason;
      return answer.value;
    });
    counts[seen.wrote ? 'writes' : 'reads'] += 1;
    listen(seen.wrote ? 'write' : 'read', statements);
    return result;
  };
  return {
    counts,
    db: {
      kind: db.kind,
      sealer: db.sealer,
      query: <Row>(text: string, params?: unknown[]) => counted((tx) => tx.query<Row>(text, params)),
      transaction: (work) => counted(work),
      transactionInOneTrip: (work) => countedInOneTrip(work),
      withAdvisoryLock: (key, work) => db.withAdvisoryLock(key, work),
      close: () => db.close(),
    },
  };
}
