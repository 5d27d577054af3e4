import { keyPart } from '../redis/keys';

/**
 * What an outgoing SMS is for. The queue treats every kind alike except where a kind says
 * otherwise (a reply a delivery report says failed is not sent again).
 * - `purchase-outcome`: a purchase's result to its subscriber (may carry a token);
 * - `agent-receipt`: a field agent's receipt of a sale;
 * - `sms-reply`: the answer to a mobile-originated SMS (no purchase behind it).
 */
export type MessageKind = 'purchase-outcome' | 'agent-receipt' | 'sms-reply';

export const MESSAGE_KINDS: readonly MessageKind[] = ['purchase-outcome', 'agent-receipt', 'sms-reply'];

/**
 * One outgoing SMS to one recipient. Its `id` is chosen by the caller and deterministic
 * (`messageId`): the same id is never sent twice, and it is the `OutboundSms.id` the driver sees.
 */
export interface Message {
  id: string;
  kind: MessageKind;
  /** The purchase it is about, for the kinds that have one (not `sms-reply`). */
  purchaseId?: string;
  /** E.164 digits, no `+`. */
  to: string;
  from?: string;
  /** The text (may hold a token: never logged). */
  message: string;
}

/**
 * - `queued`: waiting for its first or next attempt;
 * - `sending`: handed to the driver, outcome not yet written (a crash here is the at-least-once window);
 * - `sent`: the provider accepted it (final);
 * - `rejected`: the provider refused it permanently (final; an operator must look);
 * - `undelivered`: retried over the whole horizon without success (final; an operator must look).
 */
export type MessageStatus = 'queued' | 'sending' | 'sent' | 'rejected' | 'undelivered';

export const FINAL_MESSAGE_STATUSES: readonly MessageStatus[] = ['sent', 'rejected', 'undelivered'];

/** Final without reaching the phone: what the operator's undelivered view lists until resent. */
export const UNDELIVERED_STATUSES: readonly MessageStatus[] = ['rejected', 'undelivered'];

/** What the store keeps about a message: the message plus its delivery history. */
export interface MessageRecord extends Message {
  status: MessageStatus;
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

/** A delivery report as kept on the message. */
export interface DeliveryNote {
  state: 'delivered' | 'pending' | 'failed';
  providerStatus: string;
  failureReason: string | null;
  /** ISO 8601. */
  at: string;
  /**
   * A copy sent in parts that the provider reports on one by one (SMPP): how many parts were
   * reported delivered so far; `state` is the copy's (failed when any part failed, delivered
   * when all are, else pending), the other fields the latest part's report.
   */
  parts?: { delivered: number; total: number };
}

/** What to do with a message when its delivery report arrives. */
export type DeliveryAction = 'retry' | 'giveup' | 'note';

/**
 * A deterministic message id from its parts, e.g. `<purchaseId>:<requestKey>:<recipient>`: each
 * part URI-encoded, so `:` only separates them (and `bullJobId` can map it one-to-one).
 */
export function messageId(...parts: string[]): string {
  return parts.map(keyPart).join(':');
}
