import type { Database } from '../../records/database';
import {
  auditEntryOf,
  DEFAULT_AUDIT_LIMIT,
  type AuditEntry,
  type AuditInput,
  type AuditTrail,
} from './audit';

/**
 * The audit trail in the system of record (`care_audit`, migration 0003): append-only (the
 * database refuses an update or a delete) and kept whole: the one implementation of the trail.
 */
export class SqlAuditTrail implements AuditTrail {
  constructor(
    private readonly db: Database,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async record(input: AuditInput): Promise<AuditEntry> {
    const entry = auditEntryOf(input, this.clock());
    await this.db.query(
      `INSERT INTO care_audit (id, at, actor, action, purchase_id, note, detail)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [entry.id, entry.at, entry.actor, entry.action, entry.purchaseId, entry.note, entry.detail],
    );
    return entry;
  }

  async list({ purchaseId, limit = DEFAULT_AUDIT_LIMIT }: { purchaseId?: string; limit?: number } = {}) {
    // Newest first; entries of one instant latest written first. (Qualified: a bare `at` in
    // ORDER BY would be the text column of the output.)
    const where = purchaseId === undefined ? '' : 'WHERE c.purchase_id = $2';
    const result = await this.db.query<AuditEntry>(
      `SELECT id::text AS id,
              to_char(c.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at,
              actor, action, purchase_id AS "purchaseId", note, detail
         FROM care_audit c ${where}
        ORDER BY c.at DESC, c.seq DESC
        LIMIT $1`,
      purchaseId === undefined ? [limit] : [limit, purchaseId],
    );
    return result.rows;
  }
}
