import { fromKeyPart, keyPart } from '../../redis/keys';

/**
 * One outcome SMS to one recipient. Its `id` is the notification id
 * `<purchaseId>:<requestKey>:<recipient>` (components URI-encoded, so `:` only separates them):
 * the same id is never sent twice, and it is the `OutboundSms.id` the driver sees.
 */
export interface SmsNotification {
  id: string;
  purchaseId: string;
  /** E.164 digits, no `+`. */
  to: string;
  from?: string;
  message: string;
}

/**
 * - `queued`: waiting for its first or next attempt;
 * - `sending`: handed to the driver, outcome not yet written (a crash here is the at-least-once window);
 * - `sent`: the provider accepted it (final);
 * - `rejected`: the provider refused it permanently (final; an operator must look);
 * - `undelivered`: retried over the whole horizon without success (final; an operator must look).
 */
export type NotificationStatus = 'queued' | 'sending' | 'sent' | 'rejected' | 'undelivered';

export const FINAL_NOTIFICATION_STATUSES: readonly NotificationStatus[] = ['sent', 'rejected', 'undelivered'];

/** What the store keeps about a notification: the message plus its delivery history. */
export interface NotificationRecord extends SmsNotification {
  status: NotificationStatus;
  attempts: number;
  lastError: string | null;
  providerMessageId: string | null;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
  sentAt: string | null;
  /** Times the sweep re-queued it after its job died (absent: never). */
  revivals?: number;
  /** The provider's last delivery report, when one came (absent: none yet). */
  delivery?: DeliveryNote;
  /** Times a delivery report said a sent copy did not reach the phone (absent: never). */
  deliveryFailures?: number;
}

/** A delivery report as kept on the notification. */
export interface DeliveryNote {
  state: 'delivered' | 'pending' | 'failed';
  providerStatus: string;
  failureReason: string | null;
  /** ISO 8601. */
  at: string;
}

/** What to do with a notification when its delivery report arrives. */
export type DeliveryAction = 'retry' | 'giveup' | 'note';

/** Build the deterministic notification id; see `SmsNotification.id`. */
export function notificationId(purchaseId: string, requestKey: string, recipient: string): string {
  return [purchaseId, requestKey, recipient].map(keyPart).join(':');
}

/** The purchase a notification id belongs to (for a reply: the inbound message's key). */
export function purchaseIdOf(notificationIdValue: string): string {
  return fromKeyPart(notificationIdValue.split(':')[0]);
}
