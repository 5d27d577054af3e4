import type { Database } from '../../records/database';
import { sealedUnderPattern } from '../../records/sealing';
import { FINAL } from './rows';

/**
 * What the records keep of an SMS text over time. Every body is sealed at rest by the store
 * (any of them may carry a token: the outcome SMS, an agent's receipt, a "My purchases" reply);
 * these two keep it so: old rows sealed again under the current key, and the text of sent
 * messages masked once `TOKEN_RETENTION_DAYS` has passed.
 */

/** What a masked text reads (as `subscriber forget` writes it). */
export const MASKED_TEXT = '***';

/**
 * The text of messages that ended (sent, rejected, undelivered) before `before` becomes `***`, at
 * most `limit` per call; one still in care's undelivered view keeps its text for the resend.
 * Returns how many were masked.
 */
export async function maskMessageTexts(db: Database, before: Date, limit = 1000): Promise<number> {
  const masked = await db.query(
    // The literal, not a parameter: the partial index of migration 0020 is on `message <> '***'`.
    `UPDATE sms_messages SET message = '${MASKED_TEXT}'
      WHERE id IN (
        SELECT id FROM sms_messages
         WHERE message <> '${MASKED_TEXT}' AND updated_at < $1 AND status IN ${FINAL}
           AND NOT in_undelivered_view
         ORDER BY updated_at LIMIT $2)`,
    [before.toISOString(), limit],
  );
  return masked.rowCount;
}

/**
 * Seals again under the current key up to `limit` texts that are not (kept in clear before
 * sealing existed, or sealed under a previous key). A text changed meanwhile is left as it is.
 * Returns how many it sealed.
 */
export async function resealMessageTexts(db: Database, limit = 500): Promise<number> {
  const { sealer } = db;
  const stale = await db.query<{ id: string; message: string }>(
    `SELECT id, message FROM sms_messages WHERE message <> $1 AND NOT (message LIKE $2) LIMIT $3`,
    [MASKED_TEXT, sealedUnderPattern(sealer.keyId), limit],
  );
  if (stale.rows.length === 0) return 0;
  const sealed = await db.query(
    `UPDATE sms_messages m SET message = s.sealed
       FROM unnest($1::text[], $2::text[], $3::text[]) AS s(id, message, sealed)
      WHERE m.id = s.id AND m.message = s.message`,
    [
      stale.rows.map((row) => row.id),
      stale.rows.map((row) => row.message),
      stale.rows.map((row) => sealer.seal(sealer.open(row.message))),
    ],
  );
  return sealed.rowCount;
}
