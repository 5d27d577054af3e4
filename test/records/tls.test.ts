import { openPostgres, type Database } from '../../src/records/database';
import { privatePostgres } from '../support/services';

// The records over TLS (`sslmode` in DATABASE_URL, as a managed PostgreSQL asks): node-postgres
// negotiates TLS on the socket the records give it (the coalescing socket), then writes through
// the TLS layer. A cluster of this file's own, with `ssl = on`.
let cluster: { url: string; stop(): Promise<void> } | undefined;
let db: Database;

beforeAll(async () => {
  cluster = await privatePostgres({ tls: true });
  if (!cluster)
    throw new Error('initdb and pg_ctl are needed for this test (Debian: apt-get install postgresql)');
  // no-verify: encrypted, the certificate self-signed for this cluster.
  db = await openPostgres({ url: `${cluster.url}?sslmode=no-verify`, schema: 'tls_records', max: 2 });
  await db.query('CREATE TABLE marks (id int PRIMARY KEY)');
}, 60_000);
afterAll(async () => {
  await db?.close();
  await cluster?.stop();
});

it('connects over TLS and runs pipelined transactions, each statement with its own answer', async () => {
  const [{ ssl }] = (
    await db.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')
  ).rows;
  expect(ssl).toBe(true);
  const ids = await db.transaction(async (tx) => {
    const [, inserted] = await Promise.all([
      tx.query('SELECT pg_advisory_xact_lock($1)', [38]),
      tx.query<{ id: number }>('INSERT INTO marks (id) VALUES ($1), ($2) RETURNING id', [1, 2]),
    ]);
    return inserted.rows.map((row) => row.id);
  });
  expect(ids).toEqual([1, 2]);
  await expect(
    db.transaction(async (tx) => {
      await Promise.all([
        tx.query('INSERT INTO marks (id) VALUES ($1)', [3]),
        tx.query('INSERT INTO marks (id) VALUES ($1)', [1]),
      ]);
    }),
  ).rejects.toMatchObject({ code: '23505' });
  expect((await db.query('SELECT id FROM marks ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
});

it('the same cluster without sslmode is reached in plain TCP (the URL decides, the check above can fail)', async () => {
  const plain = await openPostgres({ url: cluster!.url, schema: 'tls_records', max: 1 });
  try {
    const [{ ssl }] = (
      await plain.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')
    ).rows;
    expect(ssl).toBe(false);
  } finally {
    await plain.close();
  }
});
