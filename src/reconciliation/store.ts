import { createHash } from 'node:crypto';
import type { Database, Queryable } from '../records/database';
import type { Money } from '../vas/money';
import type { ParsedStatement, StatementLine, StatementProvider } from './statements/types';
import type { FoundMismatch, MismatchReason } from './types';

/**
 * The reconciliation's tables (migration 0022): statements and their lines, the wallet's
 * balances and declared top-ups, and the mismatches. SQL only; what to match is `match.ts`.
 */

export interface ImportResult {
  /** Null when this very file was imported before: nothing changed. */
  statementId: number | null;
  provider: StatementProvider;
  format: string;
  lines: number;
  /** Lines not known before (a line another statement brought is kept once). */
  added: number;
  skipped: number;
  duplicate: boolean;
}

export const digestOf = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');

/** Lines inserted per statement: one round trip for a day's statement, not one per line. */
const BATCH = 2000;

export async function storeStatement(
  db: Database,
  parsed: ParsedStatement,
  content: string | Buffer,
  actor: string,
  now: Date,
): Promise<ImportResult> {
  const digest = digestOf(content);
  const base = {
    provider: parsed.provider,
    format: parsed.format,
    lines: parsed.lines.length,
    skipped: parsed.skipped,
  };
  return db.transaction(async (tx) => {
    const times = parsed.lines.map((l) => l.completedAt.getTime());
    const inserted = await tx.query<{ id: string }>(
      `INSERT INTO statements (provider, format, digest, imported_at, imported_by, first_at, last_at, line_count, added_count)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0)
       ON CONFLICT (digest) DO NOTHING RETURNING id::text AS id`,
      [
        parsed.provider,
        parsed.format,
        digest,
        now,
        actor,
        times.length ? new Date(Math.min(...times)) : null,
        times.length ? new Date(Math.max(...times)) : null,
        parsed.lines.length,
      ],
    );
    if (inserted.rows.length === 0) return { ...base, statementId: null, added: 0, duplicate: true };
    const id = Number(inserted.rows[0].id);
    let added = 0;
    for (let i = 0; i < parsed.lines.length; i += BATCH) {
      const batch = parsed.lines.slice(i, i + BATCH).map((l) => ({
        provider: l.provider,
        receipt: l.receipt,
        completed_at: l.completedAt.toISOString(),
        kind: l.kind,
        currency: l.amount.currency,
        amount_minor: l.amount.minor,
        payer: l.payer,
        account_reference: l.accountReference,
        linked_receipt: l.linkedReceipt,
        details: l.details,
      }));
      const result = await tx.query(
        `INSERT INTO statement_lines (provider, receipt, statement_id, completed_at, kind, currency, amount_minor,
                                      payer, account_reference, linked_receipt, details)
         SELECT provider, receipt, $1, completed_at, kind, currency, amount_minor, payer, account_reference,
                linked_receipt, details
           FROM jsonb_to_recordset($2::jsonb) AS x(provider text, receipt text, completed_at timestamptz, kind text,
                currency text, amount_minor bigint, payer text, account_reference text, linked_receipt text, details text)
         ON CONFLICT (provider, receipt) DO NOTHING`,
        [id, JSON.stringify(batch)],
      );
      added += result.rowCount;
    }
    await tx.query('UPDATE statements SET added_count = $2 WHERE id = $1', [id, added]);
    return { ...base, statementId: id, added, duplicate: false };
  });
}

type LineRow = {
  provider: StatementProvider;
  receipt: string;
  completed_at: Date | string;
  kind: StatementLine['kind'];
  currency: string;
  amount_minor: string;
  payer: string | null;
  account_reference: string | null;
  linked_receipt: string | null;
  details: string;
};

export const LINE_COLUMNS =
  'provider, receipt, completed_at, kind, currency, amount_minor::text AS amount_minor, payer, account_reference, linked_receipt, details';

export function lineOf(row: LineRow): StatementLine {
  return {
    provider: row.provider,
    receipt: row.receipt,
    completedAt: new Date(row.completed_at),
    kind: row.kind,
    amount: { currency: row.currency.trim(), minor: Number(row.amount_minor) },
    payer: row.payer,
    accountReference: row.account_reference,
    linkedReceipt: row.linked_receipt,
    details: row.details,
  };
}

export async function linesWhere(db: Queryable, where: string, params: unknown[]): Promise<StatementLine[]> {
  const rows = await db.query<LineRow>(`SELECT ${LINE_COLUMNS} FROM statement_lines WHERE ${where}`, params);
  return rows.rows.map(lineOf);
}

/** Writes a balance of the debit account as read now. */
export async function recordBalance(
  db: Queryable,
  reading: { accountId: number; at: Date; balance: Money; source: string },
): Promise<void> {
  await db.query(
    'INSERT INTO wallet_balances (account_id, at, currency, balance_minor, source) VALUES ($1, $2, $3, $4, $5)',
    [reading.accountId, reading.at, reading.balance.currency, reading.balance.minor, reading.source],
  );
}

/** Money the operator put into the wallet (negative: took out) outside the gateway, declared. */
export async function declareTopUp(
  db: Queryable,
  topUp: { accountId: number; at: Date; amount: Money; note: string; actor: string; now: Date },
): Promise<number> {
  const row = await db.query<{ id: string }>(
    `INSERT INTO wallet_topups (account_id, at, currency, amount_minor, note, declared_by, declared_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id::text AS id`,
    [
      topUp.accountId,
      topUp.at,
      topUp.amount.currency,
      topUp.amount.minor,
      topUp.note,
      topUp.actor,
      topUp.now,
    ],
  );
  return Number(row.rows[0].id);
}

/**
 * Writes what a run found: a new fact is added, an open one gets the latest facts, a closed one
 * stays closed; open ones of the day the run no longer finds are returned (the caller closes
 * them, audited). One statement for the lot.
 */
export async function saveFound(
  db: Queryable,
  day: string,
  found: FoundMismatch[],
  now: Date,
): Promise<{ added: number; cleared: { id: number; reason: MismatchReason; purchaseId: string | null }[] }> {
  const rows = found.map((m) => ({
    fact_key: m.factKey,
    reason: m.reason,
    purchase_id: m.purchaseId,
    payment_id: m.paymentId,
    currency: m.amount.currency,
    amount_minor: m.amount.minor,
    facts: { ...m.facts, summary: m.summary },
    suggested_action: m.action,
  }));
  const added = await db.query(
    `INSERT INTO reconciliation_mismatches (fact_key, day, reason, state, purchase_id, payment_id, currency,
                                            amount_minor, facts, suggested_action, found_at, updated_at)
     SELECT fact_key, $1::date, reason, 'open', purchase_id, payment_id, currency, amount_minor, facts,
            suggested_action, $3, $3
       FROM jsonb_to_recordset($2::jsonb) AS x(fact_key text, reason text, purchase_id text, payment_id uuid,
            currency text, amount_minor bigint, facts jsonb, suggested_action text)
     ON CONFLICT (fact_key) DO UPDATE SET facts = EXCLUDED.facts, suggested_action = EXCLUDED.suggested_action,
            amount_minor = EXCLUDED.amount_minor, updated_at = EXCLUDED.updated_at
      WHERE reconciliation_mismatches.state = 'open'
        AND (reconciliation_mismatches.facts, reconciliation_mismatches.suggested_action)
            IS DISTINCT FROM (EXCLUDED.facts, EXCLUDED.suggested_action)
     RETURNING (xmax = 0) AS inserted`,
    [day, JSON.stringify(rows), now],
  );
  const cleared = await db.query<{ id: string; reason: MismatchReason; purchase_id: string | null }>(
    `UPDATE reconciliation_mismatches
        SET state = 'closed', closed_by = 'reconciliation', closed_at = $3, updated_at = $3, decision = 'cleared',
            notes = concat_ws(E'\n', notes, $4::text)
      WHERE day = $1::date AND state = 'open' AND NOT (fact_key = ANY($2::text[]))
      RETURNING id::text AS id, reason, purchase_id`,
    [
      day,
      found.map((m) => m.factKey),
      now,
      `${now.toISOString()} reconciliation: a later run no longer finds it`,
    ],
  );
  return {
    added: (added.rows as { inserted: boolean }[]).filter((r) => r.inserted).length,
    cleared: cleared.rows.map((r) => ({ id: Number(r.id), reason: r.reason, purchaseId: r.purchase_id })),
  };
}

/** Open mismatches by reason, of every day (the gauge) or one. */
export async function openByReason(db: Queryable, day?: string): Promise<Record<string, number>> {
  const rows = await db.query<{ reason: string; n: string }>(
    `SELECT reason, count(*)::text AS n FROM reconciliation_mismatches
      WHERE state = 'open' ${day ? 'AND day = $1::date' : ''} GROUP BY reason`,
    day ? [day] : [],
  );
  return Object.fromEntries(rows.rows.map((r) => [r.reason, Number(r.n)]));
}
