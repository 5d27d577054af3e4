import type { Queryable } from '../records/database';
import type { Money } from '../vas/money';
import type { ProductType, Transaction } from '../vas/port';

/**
 * Lifecycle states of a purchase, in lifecycle order (see src/purchases/lifecycle/machine.ts): the one
 * list the stores, the admin routes (`?state=`) and the machine agree on.
 */
export const PURCHASE_STATES = [
  'created',
  'confirming',
  'succeeded',
  'failed',
  'unknown',
  'reconciling',
  'needs_attention',
  // An operator looked into a `needs_attention` purchase and closed it with a note (src/purchases/care).
  'resolved',
] as const;

export type PurchaseState = (typeof PURCHASE_STATES)[number];

/**
 * Settled states: the subscriber must be told about them (the others are still on their way to
 * one); only a success found late can still move `failed`/`needs_attention` on. Reaching one fires the notification hook once, and only these
 * have an outcome SMS.
 */
export const SETTLED_STATES: readonly PurchaseState[] = ['succeeded', 'failed', 'needs_attention'];

export type PurchaseChannel = 'USSD' | 'SMS';

/** What the subscriber asked to buy: everything confirm needs, fixed at creation. */
export interface PurchaseIntent {
  productType: ProductType;
  providerCode: string;
  subscriberIdentifier: string;
  amount: Money;
  debitedAccountId: number;
  /** E.164 digits: who receives the token SMS. */
  beneficiaryMsisdn: string;
  /** E.164 digits: who dialled (the subscriber or a field agent). */
  requesterMsisdn: string;
  /** Locale tag `xx-XX` of the dialogue (SMS language and `language` field). */
  language: string;
  channel: PurchaseChannel;
  /** Provider-verified name shown on the quote, kept for the SMS. */
  subscriberDetails?: string | null;
  /**
   * Sold by a field agent (the requester) to the beneficiary: the agent's float (or account)
   * holds the total until the purchase settles, and the agent gets a receipt, not the token SMS.
   */
  agent?: { msisdn: string };
  /**
   * The buyer pays by mobile money before the purchase is confirmed (a subscriber's Buy/YES): no
   * confirm until the payment lifecycle (src/payments) calls it paid; the records refuse one before.
   */
  paymentRequired?: boolean;
}

/** The outcome as the subscriber will be told. */
export interface PurchaseResult {
  transactionId: number | null;
  reference: string | null;
  /** Raw token string as returned (parsed again for display; order preserved). */
  rawToken: string | null;
  units: string | null;
  total: Money | null;
  providerTransactionId: string | null;
  /** The service's commission on the sale, when it says (an agent's share may be a part of it). */
  commission?: Money | null;
}

export interface PurchaseFailure {
  code: string;
  message: string;
  /** True only when we know no money moved. */
  charged: false | 'unknown';
}

export interface PurchaseRecord {
  id: string;
  idempotencyKey: string;
  /** Unique per purchase; the retry lookup key together with the subscriber identifier. */
  externalReference: string;
  intent: PurchaseIntent;
  state: PurchaseState;
  /** Compare-and-set version: every state write increments it. */
  version: number;
  createdAt: string;
  updatedAt: string;
  /** When confirm was sent (ISO); reconcile waits until that can no longer be in flight. */
  confirmSentAt: string | null;
  /**
   * When the confirm call came back without an outcome (ISO; absent/null when its worker was
   * lost). The client may send later than `confirmSentAt` (token refresh, the re-send after a
   * 401), so the in-flight window also runs from here.
   */
  confirmEndedAt?: string | null;
  /**
   * Until when the confirm sent last can still be in flight (ISO): its sender's client timeout,
   * stored with the send so a process with another timeout never judges it by its own.
   */
  confirmInFlightUntil?: string | null;
  /**
   * Written with the confirm when its debit account was in managed-retry mode
   * (`MANAGED_RETRY_ACCOUNT_IDS`): the service retries a failed transaction itself until then
   * (ISO), so no refusal is final, no refund and no float release before it. Absent/null:
   * self-managed (the gateway's own `retry` decides).
   */
  managedRetryUntil?: string | null;
  /** After a verdict that is not a fact (no charge found, needs_attention): re-check until then (ISO). */
  recheckUntil?: string | null;
  /**
   * The re-check round due next and when (ISO): kept so that the sweep resumes the one chain
   * where it stands (a chain lost with its job, or failed for good while the records were away),
   * never a second chain beside it.
   */
  recheckRound?: number;
  recheckAt?: string | null;
  /**
   * A success the service answered after the record had settled otherwise (its token was sent all
   * the same): noted so that no refund of its payment can start (the records refuse it), and the
   * purchase is put in front of a person.
   */
  lateSuccess?: { at: string; reference: string | null; transactionId: number | null } | null;
  reconcileAttempts: number;
  result: PurchaseResult | null;
  failure: PurchaseFailure | null;
  /** SMS notification ids sent for this purchase (idempotency of notifications). */
  notifications: string[];
  /** Confirms started (each one after a compare-and-set from `created`); >1 only after `not_sent`. */
  confirmAttempts: number;
  /** Consecutive `transaction_not_found` answers to retry (see the in-flight rule). */
  notFoundCount: number;
  /** When reconcile gives up and hands over to an operator (ISO); set on entering `unknown`. */
  reconcileDeadlineAt: string | null;
  /** Earliest time of the next confirm/reconcile attempt (ISO), for operators and resume. */
  nextAttemptAt: string | null;
  /** Last error seen from the purchase service, for operators. */
  lastError: { code: string; message: string; outcome: string } | null;
  /** When the record reached a state the subscriber must be told about (ISO). */
  settledAt: string | null;
  /** When the settled outcome was handed to the notifier (ISO); null = hand it over (again). */
  notifiedAt: string | null;
  /**
   * How an operator closed a `needs_attention` purchase (absent: never resolved). `outcome`: what
   * the operator found — `sold` (the token reached the buyer: an agent's float hold is spent) or
   * `not_sold` (nothing was bought: the hold goes back); required for an agent's sale.
   */
  resolution?: { by: string; at: string; note: string; outcome?: ResolutionOutcome } | null;
  /** When the token and numbers were masked in place (`PII_RETENTION_DAYS`); the money fields stay. */
  personalDataMaskedAt?: string;
  /** When the token was masked in place (`TOKEN_RETENTION_DAYS`); the rest of the record stays. */
  tokenMaskedAt?: string;
}

/** What an operator found when closing a `needs_attention` purchase (see `resolution`). */
export type ResolutionOutcome = 'sold' | 'not_sold';
export const RESOLUTION_OUTCOMES: readonly ResolutionOutcome[] = ['sold', 'not_sold'];

/**
 * States whose records are kept only for the retention period (`PURCHASE_RETENTION_DAYS`):
 * nothing more will happen to them unless a re-check finds a late success. Every other state is
 * unresolved (on its way, or waiting for an operator) and is kept until it leaves that state.
 */
export const RETAINED_STATES: readonly PurchaseState[] = ['succeeded', 'failed', 'resolved'];

/** States whose verdict may still be re-checked for a late success (`recheckUntil`). */
export const RECHECKED_STATES: readonly PurchaseState[] = ['failed', 'needs_attention', 'resolved'];

/** A purchase as it is first written: `created`, nothing sent, nothing known yet. */
export function newPurchaseRecord(fields: {
  id: string;
  idempotencyKey: string;
  externalReference: string;
  intent: PurchaseIntent;
  createdAt: string;
}): PurchaseRecord {
  return {
    ...fields,
    intent: { ...fields.intent, subscriberDetails: fields.intent.subscriberDetails ?? null },
    state: 'created',
    version: 1,
    updatedAt: fields.createdAt,
    confirmSentAt: null,
    reconcileAttempts: 0,
    result: null,
    failure: null,
    notifications: [],
    confirmAttempts: 0,
    notFoundCount: 0,
    reconcileDeadlineAt: null,
    nextAttemptAt: null,
    lastError: null,
    settledAt: null,
    notifiedAt: null,
  };
}

/** Convert a successful transaction to the stored result. */
export function resultFromTransaction(tx: Transaction): PurchaseResult {
  return {
    transactionId: tx.id,
    reference: tx.reference,
    rawToken: tx.rawToken,
    units: tx.units,
    total: tx.total,
    providerTransactionId: tx.providerTransactionId,
    commission: tx.commission,
  };
}

/**
 * A write that must commit with a new purchase, in its transaction (`tx`): the buyer's payment row,
 * so neither exists without the other. It goes out with the purchase's own statement, in one round
 * trip (`Database.transactionInOneTrip`), before anyone knows whether `candidate` is written: its
 * statements run after the purchase's and must write nothing unless `candidate` was written (a
 * key already taken, or the spending rules' refusal, writes no purchase); all are issued before
 * its first `await`. One that fails rolls the purchase back with it.
 */
export type AlongsideWrite = (candidate: PurchaseRecord, tx: Queryable) => Promise<unknown>;

/** The purchase desk: what the USSD/SMS channels call to hand in and look up orders (src/purchases/desk.ts). */
export interface PurchaseDesk {
  /**
   * Write a purchase for `intent` and schedule its confirm; the same key returns the same record,
   * starting nothing new. `alongside` is written in the new purchase's transaction.
   */
  create(intent: PurchaseIntent, idempotencyKey: string, alongside?: AlongsideWrite): Promise<PurchaseRecord>;
  get(id: string): Promise<PurchaseRecord | null>;
  /** Newest first; by beneficiary or requester MSISDN. */
  listByMsisdn(
    msisdn: string,
    options?: { limit?: number; state?: PurchaseState },
  ): Promise<PurchaseRecord[]>;
  listByState(state: PurchaseState, options?: { limit?: number }): Promise<PurchaseRecord[]>;
  /**
   * Queue the purchase's outcome SMS again (e.g. "My tokens"). `requestKey` de-duplicates repeated
   * asks; `recipients` limits it to those numbers (an undelivered SMS resent to its recipient only).
   */
  resendSms(id: string, requestKey: string, recipients?: readonly string[]): Promise<void>;
}
