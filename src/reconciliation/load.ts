import { localDayBounds } from '../i18n/local-time';
import { COLLECTED_STATES } from '../payments/store/types';
import type { Queryable } from '../records/database';
import type { Money } from '../vas/money';
import { linesWhere } from './store';
import type { StatementProvider } from './statements/types';
import type { DayInput, OurPayment, OurRefund, WalletInput } from './types';

export interface LoadOptions {
  day: string;
  timeZone: string;
  now: Date;
  /** The debit account (`DEBIT_ACCOUNT_ID`); undefined: the one whose balance was last recorded. */
  accountId: number | undefined;
  lateWindowMs: number;
  inFlightMs: number;
}

type PaymentRow = {
  id: string;
  purchase_id: string | null;
  provider: string;
  payer_msisdn: string;
  currency: string;
  amount_minor: string;
  receipt: string | null;
  provider_reference: string | null;
  decided_at: Date | string;
  state: string;
  purchase_state: string | null;
  charged: string | null;
  total: Money | null;
  refund_id: string | null;
  refund_state: string | null;
  refund_currency: string | null;
  refund_minor: string | null;
  refund_reference: string | null;
  refund_decided_at: Date | string | null;
};

const PAYMENT_SELECT = `
  SELECT p.id::text AS id, p.purchase_id, p.provider, p.payer_msisdn, p.currency, p.amount_minor::text AS amount_minor,
         p.receipt, p.provider_reference, p.decided_at, p.state,
         pu.state AS purchase_state, pu.record -> 'failure' ->> 'charged' AS charged, pu.record -> 'result' -> 'total' AS total,
         r.id::text AS refund_id, r.state AS refund_state, r.currency AS refund_currency,
         r.amount_minor::text AS refund_minor, r.provider_reference AS refund_reference, r.decided_at AS refund_decided_at
    FROM payments p
    LEFT JOIN purchases pu ON pu.id = p.purchase_id
    LEFT JOIN payment_refunds r ON r.payment_id = p.id`;

function refundOf(row: PaymentRow): OurRefund | null {
  if (!row.refund_id) return null;
  return {
    id: row.refund_id,
    paymentId: row.id,
    state: row.refund_state!,
    amount: { currency: row.refund_currency!.trim(), minor: Number(row.refund_minor) },
    providerReference: row.refund_reference,
    decidedAt: row.refund_decided_at ? new Date(row.refund_decided_at) : null,
  };
}

function paymentOf(row: PaymentRow): OurPayment {
  return {
    id: row.id,
    purchaseId: row.purchase_id ?? '',
    provider: row.provider,
    payer: row.payer_msisdn,
    amount: { currency: row.currency.trim(), minor: Number(row.amount_minor) },
    receipt: row.receipt,
    providerReference: row.provider_reference,
    paidAt: new Date(row.decided_at),
    state: row.state,
    purchase:
      row.purchase_id === null
        ? null
        : {
            state: row.purchase_state ?? 'missing',
            failureCharged: row.charged === 'false' ? false : row.charged === null ? null : 'unknown',
            total: row.total,
          },
    refund: refundOf(row),
  };
}

/** Everything the match of `day` reads, in a handful of queries (no per-row round trip). */
export async function loadDay(db: Queryable, options: LoadOptions): Promise<DayInput> {
  const { from, to } = localDayBounds(options.day, options.timeZone);
  const collected = [...COLLECTED_STATES];
  const payments = (
    await db.query<PaymentRow>(
      `${PAYMENT_SELECT} WHERE p.state = ANY($1::text[]) AND p.decided_at >= $2 AND p.decided_at < $3`,
      [collected, from, to],
    )
  ).rows.map(paymentOf);
  const refundRows = (
    await db.query<PaymentRow>(
      `${PAYMENT_SELECT} WHERE r.state = 'refunded' AND r.decided_at >= $1 AND r.decided_at < $2`,
      [from, to],
    )
  ).rows;
  const refunds = refundRows.map((row) => refundOf(row)!);
  const lines = await linesWhere(db, 'completed_at >= $1 AND completed_at < $2', [from, to]);

  const ids = new Set(payments.map((p) => p.id));
  const receipts = payments.flatMap((p) => (p.receipt ? [p.receipt] : []));
  const references = [...payments.map((p) => p.id), ...refunds.map((r) => r.id)];
  const linesElsewhere = await linesWhere(
    db,
    `(completed_at < $1 OR completed_at >= $2)
     AND (receipt = ANY($3::text[]) OR linked_receipt = ANY($3::text[]) OR account_reference = ANY($4::text[]))`,
    [from, to, receipts, references],
  );
  const lineReceipts = lines
    .map((l) => l.receipt)
    .concat(lines.flatMap((l) => (l.linkedReceipt ? [l.linkedReceipt] : [])));
  const lineReferences = lines.flatMap((l) => (l.accountReference ? [l.accountReference] : []));
  const refundPaymentIds = refundRows.map((r) => r.id).filter((id) => !ids.has(id));
  const paymentsElsewhere = (
    await db.query<PaymentRow>(
      `${PAYMENT_SELECT}
        WHERE NOT (p.id = ANY($1::uuid[]))
          AND (p.receipt = ANY($2::text[]) OR p.id::text = ANY($3::text[]) OR r.id::text = ANY($3::text[])
               OR p.id = ANY($4::uuid[]))`,
      [[...ids], lineReceipts, lineReferences, refundPaymentIds],
    )
  ).rows.map(paymentOf);

  const coverage = await db.query<{ provider: StatementProvider; last_at: Date | string }>(
    'SELECT provider, max(completed_at) AS last_at FROM statement_lines GROUP BY provider',
  );
  return {
    day: options.day,
    from,
    to,
    now: options.now,
    payments,
    refunds,
    lines,
    linesElsewhere,
    paymentsElsewhere,
    statementDays: new Set(lines.map((l) => l.provider)),
    coverageEnd: Object.fromEntries(coverage.rows.map((r) => [r.provider, new Date(r.last_at)])),
    wallet: await loadWallet(db, options.accountId, from, to),
    lateWindowMs: options.lateWindowMs,
    inFlightMs: options.inFlightMs,
  };
}

type BalanceRow = { account_id: number; at: Date | string; currency: string; balance_minor: string };

/**
 * The wallet over the day: the balance read last at or before its start (else first in it), the
 * one read first at or after its end (else last in it), and our sales and the declared top-ups
 * between those two readings exactly — so a reading a little off the boundary still adds up.
 */
async function loadWallet(
  db: Queryable,
  given: number | undefined,
  from: Date,
  to: Date,
): Promise<WalletInput | null> {
  const accountId =
    given ??
    (
      await db.query<{ account_id: number }>(
        'SELECT account_id FROM wallet_balances ORDER BY at DESC, id DESC LIMIT 1',
      )
    ).rows[0]?.account_id;
  if (accountId === undefined) return null;
  const one = async (where: string, order: string) =>
    (
      await db.query<BalanceRow>(
        `SELECT account_id, at, currency, balance_minor::text AS balance_minor FROM wallet_balances
          WHERE account_id = $1 AND ${where} ORDER BY ${order} LIMIT 1`,
        [accountId, from, to],
      )
    ).rows[0];
  const opening =
    (await one('at <= $2 AND $3 = $3', 'at DESC, id DESC')) ?? (await one('at > $2 AND at < $3', 'at, id'));
  const closing =
    (await one('at >= $3 AND $2 = $2', 'at, id')) ?? (await one('at > $2 AND at < $3', 'at DESC, id DESC'));
  const reading = (row: BalanceRow | undefined) =>
    row && {
      at: new Date(row.at),
      balance: { currency: row.currency.trim(), minor: Number(row.balance_minor) },
    };
  const open = reading(opening);
  let close = reading(closing);
  if (open && close && close.at.getTime() <= open.at.getTime()) close = undefined;
  const currency = open?.balance.currency ?? close?.balance.currency ?? 'XXX';
  if (!open || !close)
    return {
      accountId,
      opening: open ?? null,
      closing: close ?? null,
      sales: { currency, minor: 0 },
      salesCount: 0,
      topups: { currency, minor: 0 },
    };
  const sales = await db.query<{ n: string; minor: string | null }>(
    `SELECT count(*)::text AS n,
            sum(coalesce((p.record -> 'result' -> 'total' ->> 'minor')::bigint, p.amount_minor))::text AS minor
       FROM purchase_transitions t JOIN purchases p ON p.id = t.purchase_id
      WHERE t.to_state = 'succeeded' AND t.at > $1 AND t.at <= $2
        AND (p.record -> 'intent' ->> 'debitedAccountId')::integer = $3`,
    [open.at, close.at, accountId],
  );
  const topups = await db.query<{ minor: string | null }>(
    `SELECT sum(amount_minor)::text AS minor FROM wallet_topups WHERE account_id = $1 AND at > $2 AND at <= $3`,
    [accountId, open.at, close.at],
  );
  return {
    accountId,
    opening: open,
    closing: close,
    sales: { currency, minor: Number(sales.rows[0]?.minor ?? 0) },
    salesCount: Number(sales.rows[0]?.n ?? 0),
    topups: { currency, minor: Number(topups.rows[0]?.minor ?? 0) },
  };
}
