import { openPostgres, type Database } from '../../src/records/database';
import { openPglite } from '../../src/records/pglite';
import { TEST_DATABASE_URL, testSchema } from '../support/database';
import { countSocketWrites, type SocketWrites } from '../support/socket-writes';

const schema = testSchema('pipelined_writes');
let db: Database;
let sent: SocketWrites;

beforeAll(async () => {
  db = await openPostgres({ url: TEST_DATABASE_URL, schema, max: 1 });
  await db.query('CREATE TABLE marks (id int PRIMARY KEY)');
});
afterAll(async () => {
  await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await db.close();
});

beforeEach(async () => {
  await db.query('TRUNCATE marks');
  sent = countSocketWrites();
});
afterEach(() => sent.stop());

it("a transaction's BEGIN and the statements issued with it leave in one write, its COMMIT in another", async () => {
  await db.transaction(async (tx) => {
    await Promise.all([
      tx.query('SELECT pg_advisory_xact_lock($1)', [38]),
      tx.query('INSERT INTO marks (id) VALUES ($1)', [1]),
    ]);
  });
  expect(sent.calls).toBe(2);
  const [first, second] = sent.text.split('|');
  expect(first).toMatch(/BEGIN[\s\S]*pg_advisory_xact_lock[\s\S]*INSERT INTO marks/);
  expect(second).toContain('COMMIT');
  expect((await db.query('SELECT id FROM marks')).rows).toEqual([{ id: 1 }]);
});

it('statements sent together still fail in order: the one behind a refused statement is not run', async () => {
  await db.query('INSERT INTO marks (id) VALUES (2)');
  await expect(
    db.transaction(async (tx) => {
      await Promise.all([
        tx.query('INSERT INTO marks (id) VALUES ($1)', [2]),
        tx.query('INSERT INTO marks (id) VALUES ($1)', [3]),
      ]);
    }),
  ).rejects.toMatchObject({ code: '23505' });
  expect((await db.query('SELECT id FROM marks ORDER BY id')).rows).toEqual([{ id: 2 }]);
});

it('a statement issued on its own after the turn it was awaited in goes out in a write of its own', async () => {
  await db.transaction(async (tx) => {
    await tx.query('INSERT INTO marks (id) VALUES ($1)', [4]);
    await tx.query('INSERT INTO marks (id) VALUES ($1)', [5]);
  });
  // BEGIN with the first insert, the second insert, the COMMIT.
  expect(sent.calls).toBe(3);
  expect((await db.query('SELECT id FROM marks ORDER BY id')).rows).toEqual([{ id: 4 }, { id: 5 }]);
});

describe('a transaction sent in one trip (transactionInOneTrip)', () => {
  it('sends BEGIN, the statements issued before the first await and COMMIT in one write', async () => {
    const answers = await db.transactionInOneTrip(async (tx) => {
      const [, inserted] = await Promise.all([
        tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [38]),
        tx.query<{ id: number }>('INSERT INTO marks (id) VALUES ($1) RETURNING id', [6]),
      ]);
      return inserted.rows;
    });
    expect(answers).toEqual([{ id: 6 }]);
    expect(sent.calls).toBe(1);
    expect(sent.text).toMatch(/BEGIN[\s\S]*pg_advisory_xact_lock[\s\S]*INSERT INTO marks[\s\S]*COMMIT/);
    expect((await db.query('SELECT id FROM marks')).rows).toEqual([{ id: 6 }]);
  });

  it("rolls back every statement when one fails, and throws that statement's error", async () => {
    await db.query('INSERT INTO marks (id) VALUES (7)');
    await expect(
      db.transactionInOneTrip(async (tx) => {
        // The failure is swallowed by the body: the transaction is still rolled back.
        await Promise.all([
          tx.query('INSERT INTO marks (id) VALUES ($1)', [8]),
          tx.query('INSERT INTO marks (id) VALUES ($1)', [7]).catch(() => undefined),
        ]);
        return 'done';
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await db.query('SELECT id FROM marks ORDER BY id')).rows).toEqual([{ id: 7 }]);
  });

  it('keeps what its statements wrote when the body throws on their answers (as one statement run alone)', async () => {
    await expect(
      db.transactionInOneTrip(async (tx) => {
        const inserted = await tx.query('INSERT INTO marks (id) VALUES ($1)', [9]);
        if (inserted.rowCount === 1) throw new Error('refused on the answer');
      }),
    ).rejects.toThrow('refused on the answer');
    expect((await db.query('SELECT id FROM marks')).rows).toEqual([{ id: 9 }]);
  });

  it('refuses a statement issued after the first await: its COMMIT has left', async () => {
    await expect(
      db.transactionInOneTrip(async (tx) => {
        await tx.query('INSERT INTO marks (id) VALUES ($1)', [10]);
        await tx.query('INSERT INTO marks (id) VALUES ($1)', [11]);
      }),
    ).rejects.toThrow(/issued after its transaction was sent/);
    expect((await db.query('SELECT id FROM marks')).rows).toEqual([{ id: 10 }]);
  });

  it('commits nothing when the body throws before it returns', async () => {
    await expect(
      db.transactionInOneTrip((tx) => {
        void tx.query('INSERT INTO marks (id) VALUES ($1)', [12]).catch(() => undefined);
        throw new Error('thrown at once');
      }),
    ).rejects.toThrow('thrown at once');
    expect((await db.query('SELECT id FROM marks')).rows).toEqual([]);
  });

  it('hands its connection on in working order after each of those', async () => {
    await expect(
      db.transactionInOneTrip(async (tx) => {
        await tx.query('SELECT 1/0 AS broken', [] as unknown[]);
      }),
    ).rejects.toMatchObject({ code: '22012' });
    // max: 1, so this runs on the same connection.
    expect((await db.transactionInOneTrip((tx) => tx.query('SELECT 1 AS one'))).rows).toEqual([{ one: 1 }]);
  });
});

describe('the same rules on PGlite', () => {
  let lite: Database;
  beforeAll(async () => {
    lite = await openPglite();
    await lite.query('CREATE TABLE marks (id int PRIMARY KEY)');
  });
  afterAll(() => lite.close());
  beforeEach(() => lite.query('TRUNCATE marks'));

  it('commits the statements, rolls all back when one fails, keeps them when the body throws after', async () => {
    await lite.transactionInOneTrip((tx) =>
      Promise.all([1, 2].map((id) => tx.query('INSERT INTO marks (id) VALUES ($1)', [id]))),
    );
    await expect(
      lite.transactionInOneTrip((tx) =>
        Promise.all([3, 1].map((id) => tx.query('INSERT INTO marks (id) VALUES ($1)', [id]))),
      ),
    ).rejects.toThrow(/duplicate key/);
    await expect(
      lite.transactionInOneTrip(async (tx) => {
        await tx.query('INSERT INTO marks (id) VALUES ($1)', [4]);
        throw new Error('refused on the answer');
      }),
    ).rejects.toThrow('refused on the answer');
    await expect(
      lite.transactionInOneTrip(async (tx) => {
        await tx.query('INSERT INTO marks (id) VALUES ($1)', [5]);
        await tx.query('INSERT INTO marks (id) VALUES ($1)', [6]);
      }),
    ).rejects.toThrow(/issued after its transaction was sent/);
    expect((await lite.query('SELECT id FROM marks ORDER BY id')).rows).toEqual([
      { id: 1 },
      { id: 2 },
      { id: 4 },
      { id: 5 },
    ]);
  });
});
