/**
 * How an `sms_messages` row is read: the columns every query selects, the row as the driver
 * gives it, and the record it is. One home for them, shared by the store and the delivery reports.
 */
import type { Queryable } from '../../records/database';
import type { Sealer } from '../../records/sealing';
import type { DeliveryNote, MessageKind, MessageRecord, MessageStatus } from '../message';

/** A timestamptz as the ISO string the records carry (UTC, milliseconds). */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export const COLUMNS = `id, kind, purchase_id, recipient, sender, message, status, attempts, last_error,
  provider_message_id, ${iso('created_at')} AS created_at, ${iso('updated_at')} AS updated_at,
  ${iso('sent_at')} AS sent_at, revivals, delivery, delivery_failures`;

/** The statuses of message.ts as SQL lists (FINAL_MESSAGE_STATUSES, UNDELIVERED_STATUSES). */
export const FINAL = `('sent', 'rejected', 'undelivered')`;
export const UNDELIVERED = `('rejected', 'undelivered')`;

export interface Row {
  id: string;
  kind: MessageKind;
  purchase_id: string | null;
  recipient: string;
  sender: string | null;
  message: string;
  status: MessageStatus;
  attempts: number;
  last_error: string | null;
  provider_message_id: string | null;
  created_at: string;
  updated_at: string;
  sent_at: string | null;
  revivals: number | null;
  delivery: string | null;
  delivery_failures: number | null;
}

/**
 * The row as a record, its text opened: every body is sealed at rest (it may carry a token,
 * src/records/sealing.ts), and a row from before sealing reads as it is.
 */
export function recordOf(row: Row, sealer: Sealer): MessageRecord {
  return {
    id: row.id,
    kind: row.kind,
    ...(row.purchase_id !== null && { purchaseId: row.purchase_id }),
    to: row.recipient,
    ...(row.sender !== null && { from: row.sender }),
    message: sealer.open(row.message),
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    providerMessageId: row.provider_message_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    sentAt: row.sent_at,
    ...(row.revivals !== null && { revivals: row.revivals }),
    ...(row.delivery !== null && { delivery: JSON.parse(row.delivery) as DeliveryNote }),
    ...(row.delivery_failures !== null && { deliveryFailures: row.delivery_failures }),
  };
}

/**
 * Free text from a driver or a provider as PostgreSQL takes it: a text value cannot hold NUL
 * (a lone surrogate is sent as U+FFFD by the drivers' UTF-8 encoding already).
 */
export function text(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : value.replaceAll('\u0000', '\uFFFD');
}

/** The message's record, locked until the transaction ends (or null). */
export async function lockedRecord(tx: Queryable, id: string, sealer: Sealer): Promise<MessageRecord | null> {
  const result = await tx.query<Row>(`SELECT ${COLUMNS} FROM sms_messages WHERE id = $1 FOR UPDATE`, [id]);
  return result.rows.length === 0 ? null : recordOf(result.rows[0], sealer);
}
