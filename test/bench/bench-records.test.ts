import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { withDefaultUser } from '../../src/records/database';
import { TEST_DATABASE_URL } from '../support/database';
import { until } from '../support/wait';

// The bench's instruments on the tests' server: its databases are made and dropped here.
process.env.BENCH_DATABASE_URL = TEST_DATABASE_URL;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { benchDatabases } = require('../../bench/records') as typeof import('../../bench/records');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { postgresMeter } = require('../../bench/cpu') as typeof import('../../bench/cpu');

type Databases = Awaited<ReturnType<typeof benchDatabases>>;
let databases: Databases;
let db: Awaited<ReturnType<Databases['create']>>;
let session: Client;

beforeAll(async () => {
  databases = await benchDatabases(`t${randomBytes(4).toString('hex')}`);
  db = await databases.create('writes');
  session = new Client({ connectionString: withDefaultUser(db.url) });
  await session.connect();
  await session.query('CREATE TABLE rows (id int PRIMARY KEY, note text)');
  await databases.noteWrites(db);
});
afterAll(async () => {
  await session?.end();
  await databases?.dropAll();
  await databases?.close();
});

it('notes each transaction that changed rows once, however many statements wrote in it', async () => {
  const before = await databases.writes(db);
  // Three writing statements in one transaction: one write.
  await session.query('BEGIN');
  await session.query("INSERT INTO rows VALUES (1, 'a')");
  await session.query("UPDATE rows SET note = 'b' WHERE id = 1");
  await session.query("INSERT INTO rows VALUES (2, 'c')");
  await session.query('COMMIT');
  // Two more, each a statement of its own.
  await session.query("INSERT INTO rows VALUES (3, 'd')");
  await session.query("UPDATE rows SET note = 'e' WHERE id = 3");
  // Not writes: an update that matched nothing, a read, a rolled-back insert.
  await session.query("UPDATE rows SET note = 'x' WHERE id = 99");
  await session.query('SELECT count(*) FROM rows');
  await session.query('BEGIN');
  await session.query("INSERT INTO rows VALUES (4, 'f')");
  await session.query('ROLLBACK');
  // A write whose first note was rolled back with its savepoint is noted by the next write.
  await session.query('BEGIN');
  await session.query('SAVEPOINT s');
  await session.query("INSERT INTO rows VALUES (5, 'g')");
  await session.query('ROLLBACK TO SAVEPOINT s');
  await session.query("INSERT INTO rows VALUES (6, 'h')");
  await session.query('COMMIT');
  expect((await databases.writes(db)) - before).toBe(4);
});

it("meters the local server's CPU: its postmaster and every backend, ended ones included", async () => {
  const pid = await databases.postmasterPid();
  expect(pid).toEqual(expect.any(Number));
  const meter = postgresMeter(pid);
  const before = (await meter.read()) as number;
  // A backend that works and ends: its time must still count once it is gone.
  const busy = new Client({ connectionString: withDefaultUser(db.url) });
  await busy.connect();
  await busy.query('SELECT count(*) FROM generate_series(1, 3000000)');
  await busy.end();
  // An ended backend's time moves to the postmaster's once the postmaster has reaped it: until
  // then the meter may miss it (a CI run read 20 ms right after the end, the query being ~200).
  const spent = await until('the ended backend counted', async () => {
    const after = (await meter.read()) as number;
    return after - before > 50 ? after - before : null;
  });
  expect(spent).toBeGreaterThan(50);
  expect(await postgresMeter(null).read()).toBeNull();
});
