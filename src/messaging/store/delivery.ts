/**
 * Delivery reports on sent messages: a report applied to the part of the copy it names, the
 * copy's delivery read from its parts, and the message's row written. Apart from sql.ts because
 * it is the one job of the store that spans several tables (sms_provider_messages too).
 */
import type { Queryable } from '../../records/database';
import type { DeliveryAction, DeliveryNote, MessageRecord } from '../message';
import type { Sealer } from '../../records/sealing';
import { COLUMNS, recordOf, text, UNDELIVERED, type Row } from './rows';
import type { DeliveryDecision } from './store';

/** What `lastError` says of a failed delivery: the provider's reason, else its status. */
function deliveryReason(delivery: DeliveryNote): string {
  const field = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  return field(delivery.failureReason) ?? field(delivery.providerStatus) ?? 'no reason given';
}

/**
 * Serialises, across instances, the writes about one provider message id: a report that finds
 * no message keeps itself before the link can look, or finds the link (two-key advisory lock).
 */
export async function lockProviderMessage(tx: Queryable, providerMessageId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('sms_provider_message:' || $1, 0))`, [
    providerMessageId,
  ]);
}

/** A provider id as linked: the part it names, and the copy (`sms_messages.provider_message_id`) it is of. */
interface PartLink {
  partId: string;
  copyId: string;
}

/**
 * A report on one part of a copy of a locked message. Only the copy the message carries counts
 * (a report on an older one changes nothing), and only a `sent` one can fail: a duplicate, or a
 * failure of another part, finds it re-opened and is noted, so one failure re-opens it once.
 */
export async function applyReport(
  tx: Queryable,
  record: MessageRecord,
  part: PartLink,
  delivery: DeliveryNote,
  decide: DeliveryDecision,
  now: Date,
  sealer: Sealer,
): Promise<{ record: MessageRecord; action: DeliveryAction; delivery: DeliveryNote }> {
  if (record.providerMessageId !== null && record.providerMessageId !== part.copyId)
    return { record, action: 'note', delivery };
  const note = await copyDelivery(tx, record.id, part, delivery);
  if (note === null) return { record, action: 'note', delivery };
  const action = record.status === 'sent' ? decide(record, note) : 'note';
  return {
    record: (await writeDelivery(tx, record.id, note, action, now, sealer)) ?? record,
    action,
    delivery: note,
  };
}

/**
 * The report kept on its part, and the copy's delivery read from its parts: a one-part copy's is
 * the report itself; a copy in parts failed when any part failed, delivered when every part
 * was, else pending (a provider that reports per part, SMPP, receipts each part on its own).
 * Null when the copy failed already and this report says otherwise: the message keeps the failure.
 */
async function copyDelivery(
  tx: Queryable,
  id: string,
  part: PartLink,
  delivery: DeliveryNote,
): Promise<DeliveryNote | null> {
  // A pending report never replaces a final one (a late ENROUTE after DELIVRD).
  await tx.query(
    `UPDATE sms_provider_messages SET state = $2::text
      WHERE provider_message_id = $1 AND ($2::text <> 'pending' OR state IS NULL OR state = 'pending')`,
    [part.partId, delivery.state],
  );
  const counted = await tx.query<{ total: number; delivered: number; failed: number }>(
    `SELECT count(*)::int AS total, (count(*) FILTER (WHERE state = 'delivered'))::int AS delivered,
            (count(*) FILTER (WHERE state = 'failed'))::int AS failed
       FROM sms_provider_messages WHERE message_id = $1 AND copy_id = $2`,
    [id, part.copyId],
  );
  const { total, delivered, failed } = counted.rows[0];
  if (total <= 1) return delivery;
  const state = failed > 0 ? 'failed' : delivered === total ? 'delivered' : 'pending';
  if (state === 'failed' && delivery.state !== 'failed') return null;
  return { ...delivery, state, parts: { delivered, total } };
}

export async function writeDelivery(
  db: Queryable,
  id: string,
  delivery: DeliveryNote,
  action: DeliveryAction,
  now: Date,
  sealer: Sealer,
): Promise<MessageRecord | null> {
  // A sent copy reported failed is queued again ('retry') or ends undelivered ('giveup'); the
  // report is kept whatever it says. The report goes in as JSON text and the reason is read
  // here, so no optional field (absent, null, empty, odd) can make the statement fail.
  const failed = action === 'retry' || action === 'giveup';
  const result = await db.query<Row>(
    `UPDATE sms_messages SET
         delivery = $2,
         updated_at = $3::timestamptz,
         status = CASE WHEN status = 'sent' AND $4 THEN $5 ELSE status END,
         delivery_failures = CASE WHEN status = 'sent' AND $4 THEN coalesce(delivery_failures, 0) + 1
                                  ELSE delivery_failures END,
         last_error = CASE WHEN status = 'sent' AND $4 THEN $6 ELSE last_error END,
         -- A give-up that leaves it undelivered (now or before) puts it in the view, as the others do.
         in_undelivered_view = in_undelivered_view
           OR ($7 AND (status = 'sent' OR status IN ${UNDELIVERED}))
       WHERE id = $1
       RETURNING ${COLUMNS}`,
    [
      id,
      JSON.stringify(delivery),
      now.toISOString(),
      failed,
      action === 'retry' ? 'queued' : 'undelivered',
      text(`delivery failed: ${deliveryReason(delivery)}`),
      action === 'giveup',
    ],
  );
  return result.rows.length === 0 ? null : recordOf(result.rows[0], sealer);
}
