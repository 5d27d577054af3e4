import type { Queryable } from '../../records/database';

/**
 * A purchase's whole story for care (the console's purchase page): every state it went through
 * with what each step wrote, the purchase-service calls made (their request ids are the ones the
 * lifecycle sends: `confirm-<id>-<attempt>`, `reconcile-<id>-<attempt>`), and its payment's
 * steps. Read only, from the append-only transition tables.
 */

export interface StoryStep {
  version: number;
  from: string | null;
  to: string;
  at: string;
  patch: Record<string, unknown> | null;
  /** The purchase-service call this step records, with the request id it was sent with. */
  call?: { kind: 'confirm' | 'reconcile'; requestId: string };
}

export interface PurchaseStory {
  purchase: StoryStep[];
  payment: StoryStep[];
}

interface Row {
  version: number;
  from_state: string | null;
  to_state: string;
  at: string;
  patch: Record<string, unknown> | null;
}

const STEPS = `SELECT version, from_state, to_state,
                      to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, patch`;

export async function purchaseStory(db: Queryable, purchaseId: string): Promise<PurchaseStory> {
  const purchase = await db.query<Row>(
    `${STEPS} FROM purchase_transitions WHERE purchase_id = $1 ORDER BY version`,
    [purchaseId],
  );
  const payment = await db.query<Row>(
    `${STEPS} FROM payment_transitions
      WHERE payment_id = (SELECT id FROM payments WHERE purchase_id = $1) ORDER BY version`,
    [purchaseId],
  );
  const step = (row: Row): StoryStep => ({
    version: row.version,
    from: row.from_state,
    to: row.to_state,
    at: row.at,
    patch: row.patch,
  });
  let confirms = 0;
  let reconciles = 0;
  const steps = purchase.rows.map((row) => {
    const s = step(row);
    const p = row.patch ?? {};
    if (typeof p.confirmAttempts === 'number' && p.confirmAttempts > confirms) {
      confirms = p.confirmAttempts;
      s.call = { kind: 'confirm', requestId: `confirm-${purchaseId}-${confirms}` };
    } else if (typeof p.reconcileAttempts === 'number' && p.reconcileAttempts > reconciles) {
      reconciles = p.reconcileAttempts;
      s.call = { kind: 'reconcile', requestId: `reconcile-${purchaseId}-${reconciles}` };
    }
    return s;
  });
  return { purchase: steps, payment: payment.rows.map(step) };
}
