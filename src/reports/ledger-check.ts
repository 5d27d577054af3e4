/**
 * The ledger check: the float accounts and every succeeded purchase's confirms must
 * add up, read from the system of record. An audit (`npm run cli -- ledger check`), not a hop.
 */
import { ledgerDiscrepancies, type LedgerDiscrepancy } from '../agents/ledger/sql';
import { paymentDiscrepancies, type PaymentDiscrepancy } from '../payments/store/checks';
import type { Queryable } from '../records/database';

/** What the ledger check found wrong. */
export type LedgerProblem =
  | {
      kind: 'float_account';
      msisdn: string;
      message: string;
      discrepancy: LedgerDiscrepancy;
    }
  | {
      kind: 'purchase_confirm';
      purchaseId: string;
      message: string;
      /** `created → confirming` steps in its history: confirms started. */
      confirmsStarted: number;
      /** `confirming → created` steps: confirms that provably never reached the service. */
      confirmsWithdrawn: number;
      /** The record's own count of confirms started (null: not a number). */
      confirmAttempts: number | null;
      /** Entries into `succeeded` (not counting `succeeded → succeeded` notes). */
      successes: number;
    }
  | {
      kind: 'purchase_payment';
      purchaseId: string;
      message: string;
      discrepancy: PaymentDiscrepancy;
    };

/** A refund or a callback still on its way is not a discrepancy: only purchases settled this long ago count. */
const PAYMENT_SETTLE_MS = 15 * 60_000;

/**
 * The ledger adds up, checked over the whole system of record:
 *
 * 1. Every float account's balance is the sum of its entries (and its held amount the sum of its
 *    open float holds, its entry count the entries found): `ledgerDiscrepancies`.
 * 2. Every succeeded purchase has exactly one confirm that may have charged it. In the lifecycle
 *    (src/purchases/lifecycle/machine.ts, src/purchases/lifecycle/runner.ts) each confirm is preceded by a
 *    committed `created → confirming` step (CONFIRM_START, which also counts `confirmAttempts`);
 *    a `confirming → created` step takes one back, written only when that confirm provably never
 *    reached the service (`not_sent`, or a resendable refusal). So, from its history:
 *      started − withdrawn = 1, started = record.confirmAttempts, and one entry into
 *      `succeeded` (from another state: `succeeded → succeeded` rows only note the hand-over to
 *      the notifier; a second entry would be a success counted twice).
 *    A purchase that reached `succeeded` with no confirm step (`created → succeeded`, the probe
 *    path after a lost Redis write) breaks the rule: with the records in SQL that write cannot be
 *    lost, so it is reported for an operator to look at.
 * 3. Every purchase the buyer paid for: collected − refunded is 0 or the total
 *    (`paymentDiscrepancies`), for purchases settled before `paymentsSettledBefore` (15 min ago).
 *
 * Empty when everything adds up. A full read of the succeeded purchases: an audit, not a hop.
 */
export async function ledgerCheck(
  db: Queryable,
  options: { paymentsSettledBefore?: Date } = {},
): Promise<LedgerProblem[]> {
  const problems: LedgerProblem[] = (await ledgerDiscrepancies(db)).map((d) => ({
    kind: 'float_account',
    msisdn: d.msisdn,
    message:
      `float ${d.msisdn}: balance ${d.balanceMinor} but its entries sum to ${d.entriesSumMinor}; ` +
      `held ${d.heldMinor} but open holds ${d.openHoldsMinor}; entries ${d.entries} counted, ${d.entriesFound} found`,
    discrepancy: d,
  }));
  const confirms = await db.query<{
    id: string;
    started: number;
    withdrawn: number;
    attempts: number | null;
    successes: number;
  }>(
    `SELECT p.id,
            count(*) FILTER (WHERE t.from_state = 'created' AND t.to_state = 'confirming')::int AS started,
            count(*) FILTER (WHERE t.from_state = 'confirming' AND t.to_state = 'created')::int AS withdrawn,
            CASE WHEN p.record ->> 'confirmAttempts' ~ '^[0-9]{1,9}$'
                 THEN (p.record ->> 'confirmAttempts')::int END AS attempts,
            count(*) FILTER (WHERE t.to_state = 'succeeded'
                               AND t.from_state IS DISTINCT FROM 'succeeded')::int AS successes
       FROM purchases p LEFT JOIN purchase_transitions t ON t.purchase_id = p.id
      WHERE p.state = 'succeeded'
      GROUP BY p.id
     HAVING count(*) FILTER (WHERE t.from_state = 'created' AND t.to_state = 'confirming')
          - count(*) FILTER (WHERE t.from_state = 'confirming' AND t.to_state = 'created') <> 1
         OR (p.record ->> 'confirmAttempts') IS DISTINCT FROM
            count(*) FILTER (WHERE t.from_state = 'created' AND t.to_state = 'confirming')::text
         OR count(*) FILTER (WHERE t.to_state = 'succeeded' AND t.from_state IS DISTINCT FROM 'succeeded') <> 1
      ORDER BY p.id`,
  );
  for (const row of confirms.rows) {
    const reasons: string[] = [];
    const charged = row.started - row.withdrawn;
    if (charged !== 1) reasons.push(`${charged} confirms that may have reached the service (expected 1)`);
    if (row.attempts !== row.started)
      reasons.push(`confirmAttempts ${row.attempts ?? 'missing'} but ${row.started} confirms started`);
    if (row.successes !== 1) reasons.push(`entered succeeded ${row.successes} times`);
    problems.push({
      kind: 'purchase_confirm',
      purchaseId: row.id,
      message: `purchase ${row.id}: ${reasons.join('; ')}`,
      confirmsStarted: row.started,
      confirmsWithdrawn: row.withdrawn,
      confirmAttempts: row.attempts,
      successes: row.successes,
    });
  }
  // 3. For every purchase the buyer paid for: collected − refunded = what the service was paid (0 or the total).
  const settledBefore = options.paymentsSettledBefore ?? new Date(Date.now() - PAYMENT_SETTLE_MS);
  for (const d of await paymentDiscrepancies(db, { settledBefore })) {
    problems.push({
      kind: 'purchase_payment',
      purchaseId: d.purchaseId,
      message:
        `purchase ${d.purchaseId} (${d.purchaseState}): collected ${d.collectedMinor} − refunded ` +
        `${d.refundedMinor} ≠ sold ${d.soldMinor} (${d.currency} minor units)`,
      discrepancy: d,
    });
  }
  return problems;
}
