/**
 * Checks over the payment tables, outside the store's own writes: the money check of every
 * settled purchase (`paymentDiscrepancies`) and the payer's number masked after retention.
 */
import type { Database, Queryable } from '../../records/database';
import type { PurchaseState } from '../../purchases/types';
import type { PaymentRecordState } from './types';

/** A purchase whose money does not add up: collected − refunded ≠ what was sold for it. */
export interface PaymentDiscrepancy {
  purchaseId: string;
  purchaseState: PurchaseState;
  paymentId: string | null;
  paymentState: PaymentRecordState | null;
  refundState: string | null;
  currency: string;
  /** The purchase's total, in minor units. */
  totalMinor: number;
  collectedMinor: number;
  refundedMinor: number;
  /** What the purchase service was paid for it: the total when it succeeded, else 0. */
  soldMinor: number;
  /**
   * `refund_owed`: money kept for a purchase that was not sold (a refund due, on its way, or in
   * the care queue); `unpaid_sale`: sold without the money (or refunded after the sale);
   * `paid_waiting`: paid, and its purchase still `created` — never confirmed — past
   * {@link PAID_WAITING_AFTER_MS}; `partial`: anything else.
   */
  kind: 'refund_owed' | 'unpaid_sale' | 'paid_waiting' | 'partial';
}

/**
 * A paid purchase still `created` this long after its last write is stuck, not on its way: its
 * confirm follows the payment within a second, and the sweep revives a lost one within a minute.
 */
export const PAID_WAITING_AFTER_MS = 10 * 60_000;

/**
 * The money check of every settled purchase that needed collection (succeeded or failed), and of
 * every paid one left `created` past {@link PAID_WAITING_AFTER_MS} (and `settledBefore`):
 * payments collected − refunds must equal what the purchase service was paid for it (0 or the
 * total). `settledBefore`: only purchases last written before then (a refund just started is
 * not a discrepancy yet).
 */
export async function paymentDiscrepancies(
  db: Queryable,
  options: { settledBefore?: Date } = {},
): Promise<PaymentDiscrepancy[]> {
  const result = await db.query<{
    purchase_id: string;
    purchase_state: PurchaseState;
    payment_id: string | null;
    payment_state: PaymentRecordState | null;
    refund_state: string | null;
    currency: string;
    total: string;
    collected: string;
    refunded: string;
    sold: string;
  }>(
    `WITH money AS (
       SELECT pu.id AS purchase_id, pu.state AS purchase_state, pa.id::text AS payment_id,
              pa.state AS payment_state, r.state AS refund_state,
              coalesce(pa.currency, pu.currency) AS currency,
              coalesce(pa.amount_minor, pu.amount_minor) AS total,
              CASE WHEN pa.state IN ('successful', 'refund_requested', 'refunded', 'refund_failed', 'needs_attention')
                   THEN pa.amount_minor ELSE 0 END AS collected,
              CASE WHEN r.state = 'refunded' THEN r.amount_minor ELSE 0 END AS refunded,
              CASE WHEN pu.state = 'succeeded' THEN coalesce(pa.amount_minor, pu.amount_minor) ELSE 0 END AS sold
         FROM purchases pu
         LEFT JOIN payments pa ON pa.purchase_id = pu.id
         LEFT JOIN payment_refunds r ON r.payment_id = pa.id
        WHERE pu.payment_required
          AND (pu.state IN ('succeeded', 'failed')
               AND ($1::timestamptz IS NULL OR pu.updated_at < $1::timestamptz)
            OR pu.state = 'created'
               AND pu.updated_at < least(coalesce($1::timestamptz, 'infinity'), now() - make_interval(secs => $2 / 1000.0)))
     )
     SELECT purchase_id, purchase_state, payment_id, payment_state, refund_state, currency,
            total::text, collected::text, refunded::text, sold::text
       FROM money WHERE collected - refunded <> sold
      ORDER BY purchase_id`,
    [options.settledBefore?.toISOString() ?? null, PAID_WAITING_AFTER_MS],
  );
  return result.rows.map((row) => {
    const [total, collected, refunded, sold] = [row.total, row.collected, row.refunded, row.sold].map(Number);
    const net = collected - refunded;
    return {
      purchaseId: row.purchase_id,
      purchaseState: row.purchase_state,
      paymentId: row.payment_id,
      paymentState: row.payment_state,
      refundState: row.refund_state,
      currency: row.currency.trim(),
      totalMinor: total,
      collectedMinor: collected,
      refundedMinor: refunded,
      soldMinor: sold,
      kind:
        row.purchase_state === 'created'
          ? 'paid_waiting'
          : net === total && sold === 0
            ? 'refund_owed'
            : net === 0 && sold === total
              ? 'unpaid_sale'
              : 'partial',
    };
  });
}

/**
 * `PII_RETENTION_DAYS` for payments: masks the payer's number of payments decided before `before`
 * (successful, failed, refunded) and of their notices; amounts, states, references and receipts
 * stay. Returns how many payments were masked.
 */
export async function maskPaymentPersonalData(db: Database, before: Date, limit = 1000): Promise<number> {
  const masked = await db.query(
    `WITH masked AS (
       UPDATE payments p
          SET payer_msisdn = '***', record = p.record || '{"payerMsisdn": "***"}'::jsonb
        WHERE p.id IN (
          SELECT id FROM payments
           WHERE state IN ('successful', 'failed', 'refunded') AND updated_at < $1 AND payer_msisdn <> '***'
           ORDER BY updated_at LIMIT $2)
       RETURNING p.id
     ), notices AS (
       UPDATE payment_notices n SET notice = n.notice - 'payerMsisdn' FROM masked WHERE n.payment_id = masked.id
     )
     SELECT id FROM masked`,
    [before.toISOString(), limit],
  );
  return masked.rows.length;
}
