import type { Money } from '../vas/money';

/**
 * The one interface the gateway uses to take a buyer's money through a mobile-money provider.
 * One adapter per provider (mpesa/, momo/, http/) implements it and only translates: no
 * database, no queue, no machine. Every method throws a `PaymentCallError` (errors.ts) whose
 * `outcome` says what the failure means for the money; an answer the provider gave is never
 * an error.
 */

/** Where a payment or a refund stands at the provider. Only `successful` ever moves money for us. */
export type PaymentState = 'pending' | 'successful' | 'failed';

/**
 * Why a payment was not made, in words the buyer's SMS can use. Every provider code maps to one
 * of these in its adapter's table; a code nobody listed is `other`.
 */
export type PaymentFailureReason =
  /** The payer saw the prompt and cancelled it (or declined the approval). */
  | 'declined'
  | 'insufficient_funds'
  /** The payer entered a wrong PIN (M-Pesa 2001). */
  | 'wrong_pin'
  /** The prompt was not answered in time. */
  | 'expired'
  /** A limit of the payer's wallet or of the provider (per transaction, per day, same amount twice). */
  | 'limit_reached'
  /** The prompt could not reach the handset (off, busy in another session, not a wallet). */
  | 'unreachable'
  /** The payer's wallet is locked, blocked or not active: only the provider can help. */
  | 'account_blocked'
  /**
   * The provider has no such payment: the collect never landed. MoMo advises one re-check after a
   * delay before taking it as final (its store may lag the 202).
   */
  | 'not_found'
  | 'other';

/** Ties a call to the hop or job that made it; sent as `X-Request-Id` and logged. */
export interface PaymentCallContext {
  requestId: string;
}

export interface CollectRequest {
  /**
   * Our payment's id, unique per payment intent and stored before the call. MoMo's `X-Reference-Id`
   * is derived from it (momoReferenceId: the id itself when it is a UUID v4), the generic provider
   * de-duplicates on it, Daraja does not see it (it has no key: see `collect`).
   */
  reference: string;
  /** Who pays and gets the PIN prompt: E.164 digits without `+`. */
  payerMsisdn: string;
  /** The total to take from the payer, exactly. */
  amount: Money;
  /**
   * A few words shown with the prompt where the provider shows any (`Electricity`): Daraja's
   * AccountReference keeps 12 characters, MoMo's payer message 160. Letters, digits and spaces.
   */
  description: string;
}

/** The provider accepted the request: the prompt is on its way. No money has moved yet. */
export interface CollectAccepted {
  accepted: true;
  /**
   * The provider's key for this payment, stored at once: Daraja's CheckoutRequestID (the only way
   * to query it), MoMo's X-Reference-Id, the generic provider's own id (or null).
   */
  providerReference: string | null;
}

export interface StatusQuery {
  reference: string;
  /** What `collect` answered; Daraja cannot be queried without it. */
  providerReference: string | null;
}

/** What the provider says about one payment at the time of asking. */
export interface PaymentStatus {
  /**
   * `pending`: not decided yet (or the provider cannot say now): ask again later, nothing is final.
   * `successful`: the payer's money was taken — the only state that may confirm a purchase.
   * `failed`: final, no money was taken (`reason` says why).
   */
  state: PaymentState;
  reason?: PaymentFailureReason;
  /** What was paid, when the provider says it (Daraja's query does not): compare it with the purchase. */
  amount?: Money;
  /** The provider's receipt for the money (M-Pesa receipt number, MoMo financialTransactionId). */
  receipt?: string;
  /** The provider's own words (its code and description), for the care queue; never shown to buyers. */
  detail?: string;
}

export interface RefundRequest {
  /** The payment being refunded (our id and the provider's). */
  reference: string;
  providerReference: string | null;
  /** The payment's receipt: Daraja reverses by MpesaReceiptNumber and cannot refund without it. */
  receipt: string | null;
  /** Who gets the money back (the payer). */
  payerMsisdn: string;
  /** How much goes back: at most what was paid. */
  amount: Money;
  /**
   * Our refund's id, unique per refund and stored before the call (at most one refund per payment
   * is the lifecycle's rule): MoMo's new X-Reference-Id is derived from it, the generic provider
   * de-duplicates on it.
   */
  refundReference: string;
}

/** Where a refund stands: `successful` = the money is back with the payer. */
export interface RefundStatus {
  state: PaymentState;
  /** The provider's key for the refund (Daraja OriginatorConversationID, MoMo X-Reference-Id). */
  providerReference: string | null;
  /** Why it failed, in the provider's words (for the care queue). */
  detail?: string;
  /** Daraja R000001: the receipt was reversed before (by us or by hand) — counted as refunded. */
  alreadyRefunded?: boolean;
}

export interface RefundQuery {
  refundReference: string;
  providerReference: string | null;
}

/** Which of our callback routes a provider called (each provider is told one URL per kind). */
export type CallbackKind = 'payment' | 'refund' | 'refund_timeout';

/** A provider's call to our callback route, as the route received it (already past the URL secret). */
export interface InboundCallback {
  kind: CallbackKind;
  /** Parsed JSON body. */
  body: unknown;
  /** The body's exact text, for a provider that signs it (generic provider with HMAC). */
  rawBody?: string;
  /** Lower-case header names. */
  headers: Record<string, string | undefined>;
}

/** A payment's result pushed by the provider. Correlate by `reference` or `providerReference`. */
export interface PaymentNotice extends PaymentStatus {
  type: 'payment';
  /** Our reference when the provider echoes it (MoMo externalId, generic provider); Daraja does not. */
  reference?: string;
  providerReference?: string;
  /** Who paid, when told (Daraja's success callback): E.164 digits. */
  payerMsisdn?: string;
}

/** A refund's result pushed by the provider (Daraja reversal result, generic provider). */
export interface RefundNotice extends RefundStatus {
  type: 'refund';
  refundReference?: string;
  /** The amount the provider says it refunded. */
  amount?: Money;
  /** The provider's receipt for the refund transaction. */
  receipt?: string;
  /**
   * The receipt of the payment it gives back (Daraja's OriginalTransactionID): matches a result
   * whose request's answer, the only carrier of the provider's key, was lost.
   */
  paymentReceipt?: string;
}

export type ProviderNotice = PaymentNotice | RefundNotice;

/**
 * What proves a success callback came from the provider, beyond our callback URL's key (which
 * travels in a URL and so may be logged by a proxy on the way):
 * - `signature`: the adapter checked the provider's signature over the body (the generic
 *   provider with HMAC);
 * - `provider_key`: the provider's own key for the payment, which it gave only to us in the
 *   collect's answer (Daraja's CheckoutRequestID): a callback naming the key we stored is the
 *   provider's; one naming a key we never stored (a push whose answer was lost) is not;
 * - `none`: nothing in the callback is the provider's secret (MoMo: the reference is ours).
 * A success not proven so is applied only once the provider's own status query says so.
 */
export type CallbackProof = 'signature' | 'provider_key' | 'none';

export interface PaymentProvider {
  /** The `PAYMENT_PROVIDER` name (`mpesa`, `momo`, `http`). */
  readonly name: string;

  /** What proves its success callbacks are its own (see {@link CallbackProof}). */
  readonly callbackProof: CallbackProof;

  /**
   * The longest a `collect` may stay in flight, token fetch and retries included (from
   * `PAYMENT_TIMEOUT_MS`): a `requested` payment is not called lost before it has passed.
   * Absent: 30 s.
   */
  readonly requestBudgetMs?: number;

  /**
   * Ask the provider to take `amount` from the payer (a PIN prompt on the handset). Resolves when
   * the provider accepted the request: no money has moved yet; the result comes by callback or
   * `status`. Throws when not accepted: `rejected` = no payment will happen; `not_sent` = nothing
   * reached the provider; `unknown` = the prompt may be on its way. Safe to call again with the
   * same reference only where the provider de-duplicates (MoMo, generic); Daraja has no key, so a
   * push is sent once and never again: an `unknown` push is resolved by callback or ends unknown.
   */
  collect(request: CollectRequest, ctx: PaymentCallContext): Promise<CollectAccepted>;

  /**
   * The payment's state now. Reads only: safe to repeat. A provider that cannot tell yet answers
   * `pending`; `failed` with `not_found` means the collect never landed. Never lets a weaker signal
   * overwrite a recorded success: that is the lifecycle's rule, not the adapter's.
   */
  status(query: StatusQuery, ctx: PaymentCallContext): Promise<PaymentStatus>;

  /**
   * Give money taken by a successful payment back to the payer. Usually answers `pending` (the
   * result comes by callback or `refundStatus`). Throws like `collect`; for a `rejected` refund
   * nothing was returned.
   */
  refund(request: RefundRequest, ctx: PaymentCallContext): Promise<RefundStatus>;

  /** The refund's state now, where the provider can be asked (MoMo, generic); Daraja cannot. */
  refundStatus?(query: RefundQuery, ctx: PaymentCallContext): Promise<RefundStatus>;

  /**
   * Read a callback. Null when the body is not a result this provider sends (the route answers it
   * 400 and changes nothing). Throws CallbackAuthenticationError when the provider signs callbacks
   * and this one's signature is wrong. Pure: no call to the provider.
   */
  parseCallback(callback: InboundCallback): ProviderNotice | null;
}
