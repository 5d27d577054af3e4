/**
 * `npm run bench:reconcile` (and the end of `npm run bench`): a day of BENCH_RECONCILE_PURCHASES
 * (10,000) paid purchases reconciled against M-Pesa's portal statement of the day and the
 * wallet's balances. Seeds the records in a schema of its own on BENCH_DATABASE_URL (dropped
 * after), writes the statement as the portal exports it, then times the import (read + store)
 * and the day's match, twice (the second run finds the same, adds nothing). Prints the times
 * beside the statement's size.
 */
import { randomUUID } from 'node:crypto';
import { localInstant } from '../src/i18n/local-time';
import { SqlAuditTrail } from '../src/purchases/care/audit-sql';
import { openPostgres } from '../src/records/database';
import { migrate } from '../src/records/migrate';
import { Reconciliation } from '../src/reconciliation/service';
import { recordBalance } from '../src/reconciliation/store';
import { BENCH_DATABASE_URL } from './records';

const PURCHASES = Number(process.env.BENCH_RECONCILE_PURCHASES ?? 10_000);
const DAY = '2026-12-01';
const ZONE = 'Africa/Gaborone';
const ACCOUNT = 1001;

const eat = new Intl.DateTimeFormat('sv-SE', {
  timeZone: 'Africa/Nairobi',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
const units = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;

async function main(): Promise<void> {
  const schema = `bench_reconcile_${Date.now().toString(36)}`;
  const db = await openPostgres({ url: BENCH_DATABASE_URL, schema, max: 4 });
  try {
    await migrate(db);
    const start = localInstant({ year: 2026, month: 12, day: 1, hour: 1 }, ZONE).getTime();
    const span = 20 * 3600_000;
    const rows = Array.from({ length: PURCHASES }, (_, i) => {
      const at = new Date(start + Math.floor((span * i) / PURCHASES));
      const minor = 1000 + (i % 50) * 100;
      return {
        id: randomUUID(),
        payment: randomUUID(),
        i,
        at,
        minor,
        receipt: `TL${String(i).padStart(8, '0')}`,
      };
    });
    const seedStarted = performance.now();
    for (let k = 0; k < rows.length; k += 2000) {
      const batch = JSON.stringify(
        rows.slice(k, k + 2000).map((r) => ({
          id: r.id,
          payment: r.payment,
          at: r.at.toISOString(),
          minor: r.minor,
          receipt: r.receipt,
          payer: `2547${String(10_000_000 + r.i).slice(-8)}`,
          record: {
            intent: { debitedAccountId: ACCOUNT },
            result: { total: { currency: 'KES', minor: r.minor } },
          },
        })),
      );
      await db.query(
        `INSERT INTO purchases (id, idempotency_key, external_reference, state, version, created_at, updated_at,
                                product_type, provider_code, channel, subscriber_identifier, beneficiary_msisdn,
                                requester_msisdn, currency, amount_minor, record)
         SELECT id, id, id, 'succeeded', 3, at, at, 'ELECTRICITY', 'BPC', 'USSD', '01234567890', payer, payer, 'KES',
                minor, record
           FROM jsonb_to_recordset($1::jsonb) AS x(id text, at timestamptz, minor bigint, payer text, record jsonb)`,
        [batch],
      );
      await db.query(
        `INSERT INTO purchase_transitions (purchase_id, version, from_state, to_state, at)
         SELECT id, 3, 'confirming', 'succeeded', at FROM jsonb_to_recordset($1::jsonb) AS x(id text, at timestamptz)`,
        [batch],
      );
      await db.query(
        `INSERT INTO payments (id, purchase_id, provider, payer_msisdn, currency, amount_minor, state, version,
                               provider_reference, receipt, requested_at, updated_at, decided_at, expires_at, record)
         SELECT payment, id, 'mpesa', payer, 'KES', minor, 'successful', 3, 'ws_CO_' || receipt, receipt, at, at, at,
                at + interval '2 minutes', '{}'::jsonb
           FROM jsonb_to_recordset($1::jsonb) AS x(id text, payment uuid, at timestamptz, minor bigint, payer text,
                receipt text)`,
        [batch],
      );
    }
    const sales = rows.reduce((n, r) => n + r.minor, 0);
    const opening = 1_000_000_000;
    await recordBalance(db, {
      accountId: ACCOUNT,
      at: localInstant({ year: 2026, month: 12, day: 1 }, ZONE),
      balance: { currency: 'KES', minor: opening },
      source: 'bench',
    });
    await recordBalance(db, {
      accountId: ACCOUNT,
      at: localInstant({ year: 2026, month: 12, day: 2 }, ZONE),
      balance: { currency: 'KES', minor: opening - sales },
      source: 'bench',
    });
    const seedMs = performance.now() - seedStarted;

    let balance = 0;
    const csv = [
      'Organization Name,BENCH',
      'Organization Short Code,174379',
      '',
      'Receipt No.,Completion Time,Initiation Time,Details,Transaction Status,Paid In,Withdrawn,Balance,Balance Confirmed,Reason Type,Other Party Info,Linked Transaction ID,A/C No.',
      ...rows.map((r) => {
        balance += r.minor;
        const payer = `2547${String(10_000_000 + r.i).slice(-8)}`;
        const time = eat.format(r.at);
        return `${r.receipt},${time},${time},Pay Bill Online from ${payer} - BENCH PAYER Acc. Electricity,Completed,${units(r.minor)},,${units(balance)},true,Pay Bill Online,${payer} - BENCH PAYER,,Electricity`;
      }),
    ].join('\r\n');

    const audit = new SqlAuditTrail(db);
    const reconciliation = new Reconciliation({
      db,
      audit,
      settings: { timeZone: ZONE, accountId: ACCOUNT, lateWindowMs: 30 * 60_000, inFlightMs: 15 * 60_000 },
      read: { mpesaCurrency: 'KES', momoZone: ZONE },
    });
    const t0 = performance.now();
    const imported = await reconciliation.importStatement(csv, 'bench');
    const t1 = performance.now();
    const first = await reconciliation.day(DAY, new Date('2026-12-03T00:00:00Z'));
    const t2 = performance.now();
    const second = await reconciliation.day(DAY, new Date('2026-12-03T00:00:00Z'));
    const t3 = performance.now();
    const ok = first.status === 'closed' && first.matched === PURCHASES && second.added === 0;
    console.log(
      'reconciliation (bench/reconcile.ts): one day of paid purchases, M-Pesa portal statement, wallet balances',
    );
    console.log(
      `  statement ${imported.lines} lines, ${(Buffer.byteLength(csv) / 1024 / 1024).toFixed(2)} MB; ` +
        `import ${(t1 - t0).toFixed(0)} ms; reconcile ${(t2 - t1).toFixed(0)} ms, again ${(t3 - t2).toFixed(0)} ms; ` +
        `matched ${first.matched}, mismatches ${first.found}, status ${first.status} (seeding ${(seedMs / 1000).toFixed(1)} s)`,
    );
    if (!ok) {
      console.error('reconciliation bench: the day did not close as it should', first);
      process.exitCode = 1;
    }
  } finally {
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.close();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
