import type { AgentFloat } from '../agents';
import { componentLogger } from '../observability/logger';
import type { Queryable } from '../records/database';

const log = componentLogger('sales');

/**
 * An agent's sale holds its total on the float before the purchase is written (buySale). When
 * that write fails after the hold (the database went away mid-commit: the purchase may or may
 * not exist), nothing else would give the float back. The workers' sweep does: a hold still
 * open after `graceMs` whose key has no purchase row is released (once per key, the ledger's
 * rule). Should the purchase turn up after all, its settlement spends the float then
 * (AgentFloat.settle after a release).
 */

/** Longer than any purchase write takes: a hold this old without its purchase has none coming. */
export const ORPHAN_HOLD_GRACE_MS = 5 * 60_000;

/** Holds released per sweep at most (the next sweep takes the rest). */
const BATCH = 200;

/** Release the open holds older than `graceMs` that no purchase has; how many were released. */
export async function releaseOrphanHolds(
  db: Queryable,
  float: Pick<AgentFloat, 'release'>,
  now: Date,
  graceMs: number = ORPHAN_HOLD_GRACE_MS,
): Promise<number> {
  const orphans = await db.query<{ msisdn: string; purchase_key: string }>(
    `SELECT h.msisdn, h.purchase_key FROM float_holds h
      WHERE h.state = 'held' AND h.reserved_at < $1
        AND NOT EXISTS (SELECT 1 FROM purchases p WHERE p.idempotency_key = h.purchase_key)
      ORDER BY h.reserved_at LIMIT ${BATCH}`,
    [new Date(now.getTime() - graceMs).toISOString()],
  );
  let released = 0;
  for (const { msisdn, purchase_key: purchaseKey } of orphans.rows) {
    const result = await float.release(msisdn, purchaseKey);
    if (result.status !== 'released') continue;
    released += 1;
    log.warn('agent float hold released: no purchase was written for it', { msisdn });
  }
  return released;
}
