/**
 * Typed errors of the purchase service (section 7). Callers branch on the class (broad type),
 * specialise on `code`, and use `outcome` to know whether anything may have happened on the
 * server — which is what decides between "failed" and "reconcile with retry" for confirm.
 */

/** What a failed call tells us about its effect on the server. */
export type CallOutcome =
  /** The server answered with a definitive refusal: nothing happened. */
  | 'rejected'
  /** The request never reached the server (connection refused, DNS): safe to send again. */
  | 'not_sent'
  /** The request may have been processed (timeout after sending, reset, 5xx, provider_timeout). */
  | 'unknown';

export interface ServiceErrorFields {
  type: string;
  code: string;
  message: string;
  param: string | null;
  retryable: boolean;
  requestId: string | null;
  status: number;
  raw?: unknown;
}

/** Base of every error answered by the service (v1 `error` envelope or legacy envelope). */
export class PurchaseServiceError extends Error implements ServiceErrorFields {
  readonly type: string;
  readonly code: string;
  readonly param: string | null;
  readonly retryable: boolean;
  readonly requestId: string | null;
  readonly status: number;
  readonly raw?: unknown;

  constructor(fields: ServiceErrorFields) {
    super(fields.message);
    this.name = new.target.name;
    this.type = fields.type;
    this.code = fields.code;
    this.param = fields.param;
    this.retryable = fields.retryable;
    this.requestId = fields.requestId;
    this.status = fields.status;
    this.raw = fields.raw;
  }

  /**
   * Server-side effect of the failed call: every 5xx and provider_timeout leave it unknown. A 502
   * `provider_unavailable` / `merchant_credit_exhausted` too: the wallet may already be debited
   * when the provider turns out unreachable (the document promises no refund), so only `retry`
   * can tell whether the subscriber was charged.
   */
  get outcome(): CallOutcome {
    if (this.code === 'provider_timeout' || this.type === 'provider_timeout') return 'unknown';
    if (this.status >= 500) return 'unknown';
    return 'rejected';
  }
}

/** 401: token missing, expired or rejected (the client refreshes and retries once by itself). */
export class AuthenticationError extends PurchaseServiceError {}
/** 403: role lacks permission, meter not allowed, retries disabled. */
export class PermissionError extends PurchaseServiceError {}
/** 400: schema or business validation failed; `param` names the field. */
export class ValidationError extends PurchaseServiceError {}
/** 404: resource, meter or transaction not found. */
export class NotFoundError extends PurchaseServiceError {}
/**
 * Raised locally before any call (status 0, nothing sent): the configured interface cannot sell
 * this product — the legacy interface sells electricity only. Code `unsupported_product`.
 */
export class UnsupportedProductError extends ValidationError {
  constructor(productType: string) {
    super({
      type: 'validation_error',
      code: 'unsupported_product',
      message: `the legacy purchase interface sells electricity only, not ${productType}`,
      param: 'product_type',
      retryable: false,
      requestId: null,
      status: 0,
    });
  }
}
/** 409: conflict with current state (`transaction_pending`, `duplicate_request`). */
export class ConflictError extends PurchaseServiceError {}
/** 402: the debited account's balance is too low. */
export class InsufficientFundsError extends PurchaseServiceError {}
/** 429: rate-limited; `retryAfterMs` from the `Retry-After` header. */
export class RateLimitError extends PurchaseServiceError {
  retryAfterMs: number | null = null;
}
/** 422: the provider refused (bad meter, blocked subscriber, amount out of range). */
export class ProviderError extends PurchaseServiceError {}
/** 504: the provider did not answer in time; the transaction state is unknown. */
export class ProviderTimeoutError extends PurchaseServiceError {}
/** 502: the provider is unreachable (or the merchant credit is exhausted). */
export class ProviderUnavailableError extends PurchaseServiceError {}
/** 500: unexpected server error. */
export class InternalServerError extends PurchaseServiceError {}

/** A transport failure: no usable answer came back. */
export class TransportError extends Error {
  /**
   * The kept-alive connection the request went out on was reset (ECONNRESET, EPIPE): the server
   * closed it as an idle one while the request was on its way. A read is sent again on a new
   * connection; a write's outcome stays unknown.
   */
  readonly staleConnection: boolean;

  constructor(
    readonly outcome: Exclude<CallOutcome, 'rejected'>,
    message: string,
    readonly requestId: string | null,
    options?: { cause?: unknown; staleConnection?: boolean },
  ) {
    super(message, options);
    this.name = outcome === 'not_sent' ? 'RequestNotSentError' : 'OutcomeUnknownError';
    this.staleConnection = options?.staleConnection ?? false;
  }
}

/**
 * No access token could be had (login or refresh failed) before a confirm: the confirm itself
 * was never sent, so nothing was debited and it may be sent later. Raised for writes only; reads
 * keep the login's own error (the CLI's `check` names bad credentials as such).
 */
export class TokenUnavailableError extends TransportError {
  constructor(operation: string, cause: unknown, requestId: string | null) {
    super(
      'not_sent',
      `${operation}: no access token (${cause instanceof Error ? cause.message : String(cause)}); nothing was sent`,
      requestId,
      { cause },
    );
    this.name = 'TokenUnavailableError';
  }
}

/** The answer arrived but could not be understood (not JSON, missing fields, bad money string). */
export class MalformedResponseError extends Error {
  readonly outcome: CallOutcome = 'unknown';
  constructor(
    message: string,
    readonly requestId: string | null,
    readonly status: number,
  ) {
    super(message);
    this.name = 'MalformedResponseError';
  }
}

export type PurchaseCallError = PurchaseServiceError | TransportError | MalformedResponseError;

/** The effect on the server of any error thrown by the client; unknown for anything unexpected. */
export function outcomeOf(error: unknown): CallOutcome {
  if (error instanceof PurchaseServiceError || error instanceof TransportError) return error.outcome;
  return 'unknown';
}
