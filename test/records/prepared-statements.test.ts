import { Client } from 'pg';
import {
  isConnectionError,
  isStalePlan,
  openPostgres,
  StatementNames,
  withDefaultUser,
  type Database,
} from '../../src/records/database';
import { isDatabaseBlip } from '../../src/payments/lifecycle/request';
import { TEST_DATABASE_URL, testSchema } from '../support/database';

// What the server holds is read from the session itself (pg_prepared_statements is per session):
// each pool has one connection, so every statement below runs on the session it reads.

const schema = testSchema('prepared_statements');
let db: Database;

interface Prepared {
  name: string;
  statement: string;
  runs: number;
}

async function preparedOf(on: Database): Promise<Prepared[]> {
  // No parameters: this look is itself not prepared.
  const { rows } = await on.query<Prepared>(
    `SELECT name, statement, (generic_plans + custom_plans)::int AS runs
       FROM pg_prepared_statements ORDER BY name`,
  );
  return rows;
}

beforeAll(async () => {
  db = await openPostgres({ url: TEST_DATABASE_URL, schema, max: 1 });
  await db.query('CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)');
});
afterAll(async () => {
  await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await db.close();
});

it('a statement with parameters is prepared once on its connection and run by name after', async () => {
  const insert = 'INSERT INTO notes (id, body) VALUES ($1, $2)';
  await db.query(insert, [1, 'one']);
  await db.transaction(async (tx) => {
    await tx.query(insert, [2, 'two']);
    await tx.query(insert, [3, 'three']);
  });
  await db.query(insert, [4, 'four']);
  const prepared = (await preparedOf(db)).filter((p) => p.statement === insert);
  expect(prepared).toEqual([{ name: expect.stringMatching(/^gw\d+$/), statement: insert, runs: 4 }]);
  expect((await db.query('SELECT count(*)::int AS n FROM notes')).rows).toEqual([{ n: 4 }]);
});

it('the same statement issued twice at once on a new connection is prepared once and both run', async () => {
  const fresh = await openPostgres({ url: TEST_DATABASE_URL, schema, max: 1 });
  try {
    const read = 'SELECT body FROM notes WHERE id = $1';
    const [first, second] = await fresh.transaction((tx) =>
      Promise.all([tx.query(read, [1]), tx.query(read, [2])]),
    );
    expect([first.rows, second.rows]).toEqual([[{ body: 'one' }], [{ body: 'two' }]]);
    expect((await preparedOf(fresh)).filter((p) => p.statement === read)).toEqual([
      { name: expect.any(String), statement: read, runs: 2 },
    ]);
  } finally {
    await fresh.close();
  }
});

it('a statement without parameters (BEGIN, a migration) is not prepared', async () => {
  await db.transaction((tx) => tx.query('SELECT body FROM notes WHERE id = 1'));
  const texts = (await preparedOf(db)).map((p) => p.statement);
  expect(texts).not.toContain('SELECT body FROM notes WHERE id = 1');
  expect(texts).not.toContain('BEGIN');
});

it('with prepare: false nothing is prepared', async () => {
  const plain = await openPostgres({ url: TEST_DATABASE_URL, schema, max: 1, prepare: false });
  try {
    await plain.query('SELECT body FROM notes WHERE id = $1', [1]);
    await plain.transaction((tx) => tx.query('SELECT body FROM notes WHERE id = $1', [2]));
    expect(await preparedOf(plain)).toEqual([]);
  } finally {
    await plain.close();
  }
});

describe('a table changed under a prepared statement (a column added by a rolling deploy)', () => {
  const select = 'SELECT * FROM notes WHERE id = $1';

  async function addColumn(name: string): Promise<void> {
    // Another session, as the new build's migration would be.
    const admin = new Client({
      connectionString: withDefaultUser(TEST_DATABASE_URL),
      options: `-c search_path=${schema}`,
    });
    await admin.connect();
    try {
      await admin.query(`ALTER TABLE notes ADD COLUMN ${name} text`);
    } finally {
      await admin.end();
    }
  }

  it('fails once as a connection error, and a new connection prepares it again', async () => {
    expect((await db.query(select, [1])).rows).toEqual([{ id: 1, body: 'one' }]);
    await addColumn('added_a');
    const stale = await db.query(select, [1]).catch((error: unknown) => error);
    expect(isStalePlan(stale)).toBe(true);
    // Taken as the records being away for a moment: callers retry or spool, nothing is refused.
    expect(isConnectionError(stale)).toBe(true);
    expect(isDatabaseBlip(stale)).toBe(true);
    expect((await db.query(select, [1])).rows).toEqual([{ id: 1, body: 'one', added_a: null }]);
  });

  it('another refusal of the same class (0A000, feature not supported) is no stale plan', async () => {
    const refused = await db
      .query('SELECT count(*) FROM notes WHERE id > $1 FOR UPDATE', [0])
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: '0A000' });
    expect(isStalePlan(refused)).toBe(false);
    expect(isConnectionError(refused)).toBe(false);
  });

  it('in a transaction: the transaction fails, its connection is dropped, the next one runs', async () => {
    await db.transaction((tx) => tx.query(select, [2]));
    const before = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await addColumn('added_b');
    const stale = await db.transaction((tx) => tx.query(select, [2])).catch((error: unknown) => error);
    expect(isStalePlan(stale)).toBe(true);
    const after = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(after.rows[0].pid).not.toBe(before.rows[0].pid);
    const { rows } = await db.transaction((tx) => tx.query(select, [2]));
    expect(rows).toEqual([{ id: 2, body: 'two', added_a: null, added_b: null }]);
  });

  it('in a transaction sent in one trip: the same (its COMMIT answered ROLLBACK, the connection dropped)', async () => {
    await db.transactionInOneTrip((tx) => tx.query(select, [2]));
    const before = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await addColumn('added_c');
    const stale = await db
      .transactionInOneTrip((tx) => tx.query(select, [2]))
      .catch((error: unknown) => error);
    expect(isStalePlan(stale)).toBe(true);
    const after = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(after.rows[0].pid).not.toBe(before.rows[0].pid);
    const { rows } = await db.transactionInOneTrip((tx) => tx.query(select, [2]));
    expect(rows).toEqual([{ id: 2, body: 'two', added_a: null, added_b: null, added_c: null }]);
  });
});

it('a pool prepares at most 1,000 texts: any beyond run unnamed', () => {
  const names = new StatementNames();
  const given = Array.from({ length: 1001 }, (_, i) => names.nameOf(`SELECT ${i} + $1`));
  expect(new Set(given.slice(0, 1000)).size).toBe(1000);
  expect(given[1000]).toBeUndefined();
  // A text seen before keeps its name.
  expect(names.nameOf('SELECT 7 + $1')).toBe(given[7]);
});
