import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SqlAuditTrail } from '../../src/purchases/care/audit-sql';
import { startNightly } from '../../src/reconciliation/schedule';
import { Reconciliation } from '../../src/reconciliation/service';
import { reconcileDay } from '../../src/reconciliation/reconcile';
import { nextLocalTime } from '../../src/reconciliation/schedule';
import { recordBalance } from '../../src/reconciliation/store';
import { testDatabase, type TestDatabase } from '../support/database';
import { until } from '../support/wait';

/**
 * The nightly run's own parts on PostgreSQL: a day that does not close is told to finance (the
 * webhook and the SMS), one that closes is not; the next local run time; re-importing a statement
 * changes nothing, a file in another format is refused and changes nothing.
 */

let test: TestDatabase;
let server: Server;
let url: string;
const received: unknown[] = [];

beforeAll(async () => {
  test = await testDatabase('recon_nightly');
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push(JSON.parse(body));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await test.cleanup();
});

const reconciliation = () =>
  new Reconciliation({
    db: test.db,
    audit: new SqlAuditTrail(test.db),
    settings: {
      timeZone: 'Africa/Nairobi',
      accountId: undefined,
      lateWindowMs: 30 * 60_000,
      inFlightMs: 15 * 60_000,
    },
    read: { mpesaCurrency: 'KES', momoZone: 'Africa/Kampala' },
  });

it('a statement imported twice changes nothing; another format is refused and changes nothing', async () => {
  const r = reconciliation();
  const csv = readFileSync(join(__dirname, 'fixtures', 'mpesa-portal-statement.csv'));
  expect(await r.importStatement(csv, 'cli:test')).toMatchObject({ duplicate: false, lines: 5, added: 5 });
  expect(await r.importStatement(csv, 'cli:test')).toMatchObject({ duplicate: true, added: 0 });
  // The pull of the same day brings two of the same receipts: kept once.
  const pull = readFileSync(join(__dirname, 'fixtures', 'daraja-pull.json'));
  expect(await r.importStatement(pull, 'cli:test')).toMatchObject({ duplicate: false, lines: 2, added: 0 });
  await expect(
    r.importStatement(readFileSync(join(__dirname, 'fixtures', 'bank-statement.csv')), 'cli:test'),
  ).rejects.toThrow(/expected an M-Pesa organisation portal statement/);
  const counts = await test.db.query<{ s: string; l: string }>(
    'SELECT (SELECT count(*) FROM statements)::text AS s, (SELECT count(*) FROM statement_lines)::text AS l',
  );
  expect(counts.rows[0]).toEqual({ s: '2', l: '5' });
});

it('a day that does not close is told to finance by webhook and SMS, once per run', async () => {
  const sms: { id: string; to: string; message: string }[] = [];
  const nightly = startNightly({
    reconciliation: reconciliation(),
    timeZone: 'Africa/Nairobi',
    nightlyAt: null,
    alert: { webhookUrl: url, msisdn: '254700000001', sendSms: async (m) => void sms.push(m) },
  });
  try {
    // The fixture's two payments in and its reversal name nothing of ours.
    const result = await nightly.run('2026-12-01');
    expect(result).toMatchObject({ status: 'open', open: { statement_payment_unknown: 3 } });
    await until('the webhook', async () => received.length === 1 || null);
    expect(received[0]).toMatchObject({
      event: 'reconciliation_not_closed',
      day: '2026-12-01',
      openCount: 3,
    });
    expect(sms).toEqual([
      {
        id: 'reconciliation-2026-12-01',
        to: '254700000001',
        message: expect.stringMatching(/^Reconciliation 2026-12-01 did not close: 3 open/),
      },
    ]);
    // A day with nothing in any ledger closes: nobody is told.
    expect((await nightly.run('2026-11-20')).status).toBe('closed');
    expect(sms).toHaveLength(1);
  } finally {
    nightly.stop();
  }
});

it('a top-up declared after the run explains the drift: the next run closes the mismatch itself, audited', async () => {
  const r = reconciliation();
  const at = (iso: string) => new Date(iso);
  await recordBalance(test.db, {
    accountId: 9,
    at: at('2026-11-09T21:00:00Z'),
    balance: { currency: 'KES', minor: 100000 },
    source: 'test',
  });
  await recordBalance(test.db, {
    accountId: 9,
    at: at('2026-11-10T21:00:00Z'),
    balance: { currency: 'KES', minor: 150000 },
    source: 'test',
  });
  const settings = { ...r.options.settings, accountId: 9 };
  const drifted = await reconcileDay(test.db, new SqlAuditTrail(test.db), settings, '2026-11-10');
  expect(drifted).toMatchObject({
    status: 'open',
    open: { wallet_drift: 1 },
    wallet: { drift: 'KES 500.00' },
  });
  await r.declareTopUp(
    { accountId: 9, amount: 'KES 500.00', at: '2026-11-10T08:00:00Z', note: 'bank transfer 7781' },
    'cli:finance',
  );
  const cleared = await reconcileDay(test.db, new SqlAuditTrail(test.db), settings, '2026-11-10');
  expect(cleared).toMatchObject({
    status: 'closed',
    cleared: 1,
    open: {},
    closed: { wallet_drift: 1 },
    wallet: { drift: 'KES 0.00' },
  });
  const audit = await test.db.query<{ action: string }>(
    `SELECT action FROM care_audit WHERE action IN ('wallet_topup', 'mismatch_clear') ORDER BY seq`,
  );
  expect(audit.rows.map((a) => a.action)).toEqual(['wallet_topup', 'mismatch_clear']);
});

it('the next nightly time is the next local HH:MM', () => {
  const now = new Date('2026-12-01T22:30:00Z'); // 01:30 in Nairobi on 12-02
  expect(nextLocalTime(now, 'Africa/Nairobi', { hour: 1, minute: 0 }).toISOString()).toBe(
    '2026-12-02T22:00:00.000Z',
  );
  expect(nextLocalTime(now, 'Africa/Nairobi', { hour: 2, minute: 0 }).toISOString()).toBe(
    '2026-12-01T23:00:00.000Z',
  );
});
