import { Socket } from 'node:net';
import { openPostgres, type Database } from '../../src/records/database';
import { TEST_DATABASE_URL, testSchema } from '../support/database';

// What goes out on the connections' sockets, counted at Node's own socket (not ours): each
// `_write` or `_writev` is one system call with the chunks it was given.
interface Sent {
  calls: number;
  text: string;
}

const schema = testSchema('pipelined_writes');
let db: Database;
let sent: Sent;
const { _write: nodeWrite, _writev: nodeWritev } = Socket.prototype as unknown as {
  _write: (chunk: Buffer, encoding: string, done: () => void) => void;
  _writev: (chunks: { chunk: Buffer }[], done: () => void) => void;
};

beforeAll(async () => {
  db = await openPostgres({ url: TEST_DATABASE_URL, schema, max: 1 });
  await db.query('CREATE TABLE marks (id int PRIMARY KEY)');
});
afterAll(async () => {
  Object.assign(Socket.prototype, { _write: nodeWrite, _writev: nodeWritev });
  await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await db.close();
});

beforeEach(async () => {
  await db.query('TRUNCATE marks');
  sent = { calls: 0, text: '' };
  Object.assign(Socket.prototype, {
    _write(this: Socket, chunk: Buffer, encoding: string, done: () => void) {
      sent.calls += 1;
      sent.text += `${String(chunk)}|`;
      return nodeWrite.call(this, chunk, encoding, done);
    },
    _writev(this: Socket, chunks: { chunk: Buffer }[], done: () => void) {
      sent.calls += 1;
      sent.text += `${chunks.map((c) => String(c.chunk)).join('')}|`;
      return nodeWritev.call(this, chunks, done);
    },
  });
});
afterEach(() => Object.assign(Socket.prototype, { _write: nodeWrite, _writev: nodeWritev }));

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
