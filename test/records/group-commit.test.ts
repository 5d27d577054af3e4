import { countTransactions, openPostgres, type Database } from '../../src/records/database';
import { TransactionGroup } from '../../src/records/group-commit';
import { TEST_DATABASE_URL, testSchema } from '../support/database';

const schema = testSchema('group_commit');
let db: Database;

beforeAll(async () => {
  db = await openPostgres({ url: TEST_DATABASE_URL, schema, max: 4 });
  await db.query('CREATE TABLE marks (id int PRIMARY KEY)');
});
afterAll(async () => {
  await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await db.close();
});
beforeEach(() => db.query('TRUNCATE marks'));

const insert = (id: number) => async (tx: { query: Database['query'] }) => {
  await tx.query('INSERT INTO marks (id) VALUES ($1)', [id]);
  return id;
};

async function marks(): Promise<number[]> {
  return (await db.query<{ id: number }>('SELECT id FROM marks ORDER BY id')).rows.map((r) => r.id);
}

it('bodies handed in while one is written share the next transaction, each answered after its commit', async () => {
  const counted = countTransactions(db);
  const group = new TransactionGroup(counted.db);
  const answers = await Promise.all([1, 2, 3, 4, 5].map((id) => group.run(insert(id))));
  expect(answers).toEqual([1, 2, 3, 4, 5]);
  expect(await marks()).toEqual([1, 2, 3, 4, 5]);
  // The first alone (nothing was being written), the four handed in meanwhile together.
  expect(counted.counts).toEqual({ writes: 2, reads: 0 });
});

it("one body's refusal fails only its caller: the others are written, each alone", async () => {
  const group = new TransactionGroup(db);
  await db.query('INSERT INTO marks (id) VALUES (3)');
  const results = await Promise.allSettled([1, 2, 3, 4].map((id) => group.run(insert(id))));
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
  expect(await marks()).toEqual([1, 2, 3, 4]);
});

it("a body's own error (no SQLSTATE) fails only its caller: the others are written, each alone", async () => {
  const group = new TransactionGroup(db);
  const refusal = new Error('purchase 3 changed under the job');
  const body = (id: number) => async (tx: { query: Database['query'] }) => {
    if (id === 3) throw refusal;
    return insert(id)(tx);
  };
  const results = await Promise.allSettled([1, 2, 3, 4].map((id) => group.run(body(id))));
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  expect((results[2] as PromiseRejectedResult).reason).toBe(refusal);
  expect(await marks()).toEqual([1, 2, 4]);
});

it('a lost connection is not written again: every caller of the group gets it', async () => {
  let calls = 0;
  const lost = new Error('Connection terminated unexpectedly');
  const group = new TransactionGroup({
    transaction: async (work) => {
      calls += 1;
      if (calls === 1) return db.transaction(work);
      throw lost;
    },
  });
  const results = await Promise.allSettled([1, 2, 3].map((id) => group.run(insert(id))));
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
  expect(calls).toBe(2);
  expect(await marks()).toEqual([1]);
});
