import type { Queryable } from '../../records/database';
import type { Sealer } from '../../records/sealing';
import type { DeliveryAction, DeliveryNote, Message, MessageRecord } from '../message';

/** Fields a delivery attempt may change. */
export type MessagePatch = Partial<
  Pick<MessageRecord, 'status' | 'attempts' | 'lastError' | 'providerMessageId' | 'sentAt' | 'revivals'>
>;

/**
 * What a delivery report does to the message it names (DeliveryReports' rule), decided on the
 * message as the write locked it.
 */
export type DeliveryDecision = (record: MessageRecord, delivery: DeliveryNote) => DeliveryAction;

/** What `recordReport` did with a report. */
export type ReportResult =
  /** No message carries the provider's id yet: kept until `markSent` links it. */
  | { kind: 'kept' }
  /** Applied to its message (`note` for a report on a copy already re-opened or replaced). */
  | { kind: 'applied'; record: MessageRecord; action: DeliveryAction };

/** What `claim` found and wrote. */
export interface ClaimResult {
  /** The status before the claim; null when there is no such message. */
  previous: MessageRecord['status'] | null;
  /** The record after it: `sending` with one attempt more, or as it was when `previous` is final. */
  record: MessageRecord | null;
}

/** What `markSent` wrote. */
export interface SentResult {
  /** The record after the write, or null when it is absent. */
  record: MessageRecord | null;
  /** A report that came before this write, applied by it. */
  early?: { delivery: DeliveryNote; action: DeliveryAction };
}

/**
 * Where outgoing messages and their delivery status live. `create` is the de-duplication point
 * of an enqueue; `update` never changes a message that reached a final status, so a stale worker
 * cannot turn `sent` back into `queued`. One implementation: `SqlMessageStore` (`./sql.ts`) — a
 * token SMS is a money record, kept in the system of record.
 */
export interface MessageStore {
  /**
   * The key the texts are sealed under at rest (src/records/sealing.ts): in the records, and in
   * the jobs that carry a message to its send (the queue seals their texts with it).
   */
  readonly sealer: Sealer;
  /**
   * Returns false (and changes nothing) when a message with this id exists. `on`: a transaction
   * of the system of record the message commits with (an outcome's SMS with its outcome).
   * `claimed`: written already `sending` with its first attempt counted, as `claim` would — the
   * caller's job makes that attempt without a claim of its own (one commit fewer a message).
   */
  create(message: Message, now: Date, on?: Queryable, claimed?: boolean): Promise<boolean>;
  get(id: string): Promise<MessageRecord | null>;
  /**
   * A delivery attempt's start, in one statement: the message marked `sending` with one attempt
   * more, unless it is final; says what its status was (the job's read before it sends).
   */
  claim(id: string, now: Date): Promise<ClaimResult>;
  /** Returns the record after the patch, or null when it is absent; final records are left as they are. */
  update(id: string, patch: MessagePatch, now: Date): Promise<MessageRecord | null>;
  /** The messages about one purchase (`Message.purchaseId`), oldest first. */
  listByPurchase(purchaseId: string): Promise<MessageRecord[]>;
  /** Up to `limit` messages not yet final, oldest first (the sweep's work list). */
  listOpen(limit: number): Promise<MessageRecord[]>;
  /** Remember which message a provider's message id is (when the provider accepted it). */
  linkProviderMessage(providerMessageId: string, id: string): Promise<void>;
  /** The message a provider's message id belongs to, or null. */
  findByProviderMessage(providerMessageId: string): Promise<MessageRecord | null>;
  /**
   * The write of a copy the provider accepted: `sent`, its provider ids (one per part when the
   * provider reports per part: `SendOutcome.providerMessageIds`) on the record joined by ',' and
   * each linked, and the reports on those ids kept before (`recordReport`) applied as `decide`
   * says, all in one transaction. A failure re-opens the message here, once: the caller sends it
   * again. No ids: only marked sent.
   */
  markSent(
    id: string,
    providerMessageIds: readonly string[],
    decide: DeliveryDecision,
    now: Date,
  ): Promise<SentResult>;
  /**
   * A provider's delivery report on one id (a part's, or the whole message's), under a lock on it:
   * on a part of the copy the message carries, kept on that part, and the copy's delivery read
   * from its parts — failed when any part failed, delivered once every part is, pending until
   * then — is applied to a `sent` message as `decide` says (a failure re-opens it once: a
   * duplicate, or another part's failure, finds it re-opened); on an older copy, nothing; on an
   * id not linked yet, kept (bounded) for `markSent`.
   */
  recordReport(
    providerMessageId: string,
    delivery: DeliveryNote,
    decide: DeliveryDecision,
    now: Date,
  ): Promise<ReportResult>;
  /** Keep a delivery report on the record; `retry` re-opens a sent one, `giveup` makes it undelivered. */
  recordDelivery(
    id: string,
    delivery: DeliveryNote,
    action: DeliveryAction,
    now: Date,
  ): Promise<MessageRecord | null>;
  /**
   * Up to `limit` messages that ended `rejected` or `undelivered` and were not resent yet,
   * oldest first (the operator's undelivered view, and the order of a bulk resend).
   */
  listUndelivered(limit: number): Promise<MessageRecord[]>;
  /** How many the undelivered view holds (the `sms_undelivered` gauge). */
  countUndelivered(): Promise<number>;
  /** Take a message out of the undelivered view (its resend is queued, or it needs none). */
  dismissUndelivered(id: string): Promise<void>;
}
