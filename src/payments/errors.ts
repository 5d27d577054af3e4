import type { CallOutcome } from '../vas/errors';
import { wireTable } from '../http/wire-table';

/**
 * Typed errors of the payment providers. Callers branch on the class, specialise on `code`, and
 * read `outcome` to know what the failure means for the money:
 * - `rejected`: the provider refused; nothing will happen (no prompt, no debit, no refund);
 * - `not_sent`: nothing reached the provider;
 * - `unknown`: the request may have reached it. A Daraja push in this state is never pushed again
 *   (it has no idempotency key): it is resolved by callback or query, or ends unknown.
 */
export type PaymentCallOutcome = CallOutcome;

export interface ProviderErrorFields {
  provider: string;
  operation: string;
  /** The provider's code (`400.002.02`, `RESOURCE_ALREADY_EXIST`) or `http_<status>`. */
  code: string;
  message: string;
  /** HTTP status; 0 when refused locally before any call. */
  status: number;
  outcome: PaymentCallOutcome;
  raw?: unknown;
}

/** Base of every error answered by (or refused for) a payment provider. */
export class PaymentProviderError extends Error {
  readonly provider: string;
  readonly operation: string;
  readonly code: string;
  readonly status: number;
  readonly outcome: PaymentCallOutcome;
  readonly raw?: unknown;
  /** From `Retry-After`, when the provider gave one. */
  retryAfterMs: number | null = null;

  constructor(fields: ProviderErrorFields) {
    super(fields.message);
    this.name = new.target.name;
    this.provider = fields.provider;
    this.operation = fields.operation;
    this.code = fields.code;
    this.status = fields.status;
    this.outcome = fields.outcome;
    this.raw = fields.raw;
  }
}

/** 401/403, a refused or expired token (Daraja 404.001.03, 400.008.*): our credentials are wrong. */
export class ProviderAuthenticationError extends PaymentProviderError {}
/** Our request was refused as invalid (a field, the URL, the currency, the callback host). */
export class ProviderRequestError extends PaymentProviderError {}
/** Daraja 500.001.1001 "Unable to lock subscriber": the payer is in another transaction; try after a minute. */
export class SubscriberBusyError extends PaymentProviderError {}
/** 404: the provider does not know the payment or refund asked about. */
export class ProviderNotFoundError extends PaymentProviderError {}
/** 409 (MoMo RESOURCE_ALREADY_EXIST): a request with this reference exists: read its status. */
export class ReferenceExistsError extends PaymentProviderError {}
/** 429, Daraja spike arrest or quota (500.003.02/03, outcome unknown for a push). */
export class ProviderRateLimitError extends PaymentProviderError {}
/** 5xx without a verdict: the provider failed while handling the request (outcome unknown). */
export class ProviderUnavailableError extends PaymentProviderError {}
/**
 * Refused here before any call (status 0): the request cannot be made to this provider — an amount
 * with cents for Daraja, a currency it does not collect, a reversal without a receipt.
 */
export class PaymentNotPossibleError extends PaymentProviderError {
  constructor(provider: string, operation: string, code: string, message: string) {
    super({ provider, operation, code, message, status: 0, outcome: 'rejected' });
  }
}

/** A transport failure: no usable answer came back. */
export class PaymentTransportError extends Error {
  constructor(
    readonly outcome: Exclude<PaymentCallOutcome, 'rejected'>,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = outcome === 'not_sent' ? 'PaymentRequestNotSentError' : 'PaymentOutcomeUnknownError';
  }
}

/** No access token could be had: the call itself was never sent (nothing can have happened). */
export class PaymentTokenError extends PaymentTransportError {
  constructor(provider: string, operation: string, cause: unknown) {
    super(
      'not_sent',
      `${provider} ${operation}: no access token (${cause instanceof Error ? cause.message : String(cause)}); nothing was sent`,
      { cause },
    );
    this.name = 'PaymentTokenError';
  }
}

/** The answer arrived but could not be understood: whatever it said, the effect is unknown. */
export class MalformedAnswerError extends Error {
  readonly outcome: PaymentCallOutcome = 'unknown';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'MalformedAnswerError';
  }
}

/** A callback whose signature (generic provider, HMAC) is missing, wrong or too old. Not a call error. */
export class CallbackAuthenticationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallbackAuthenticationError';
  }
}

export type PaymentCallError = PaymentProviderError | PaymentTransportError | MalformedAnswerError;

/** The effect at the provider of any error a provider call threw; unknown for anything unexpected. */
export function outcomeOf(error: unknown): PaymentCallOutcome {
  if (
    error instanceof PaymentProviderError ||
    error instanceof PaymentTransportError ||
    error instanceof MalformedAnswerError
  )
    return error.outcome;
  return 'unknown';
}

type ErrorClass = new (fields: ProviderErrorFields) => PaymentProviderError;

/**
 * Codes the providers document, whatever the HTTP status they come with: Daraja `errorCode`s,
 * MoMo `code`s and the generic provider's `error.code`s (docs/payments-http-provider.md). An
 * `outcome` here overrides the status rule (4xx rejected, 5xx unknown).
 */
const KNOWN_CODES = wireTable<{ class: ErrorClass; outcome?: PaymentCallOutcome }>({
  // Daraja
  '400.002.02': { class: ProviderRequestError },
  '404.001.01': { class: ProviderRequestError, outcome: 'rejected' },
  '405.001': { class: ProviderRequestError, outcome: 'rejected' },
  '400.008.01': { class: ProviderAuthenticationError, outcome: 'rejected' },
  '400.008.02': { class: ProviderAuthenticationError, outcome: 'rejected' },
  '404.001.03': { class: ProviderAuthenticationError, outcome: 'rejected' },
  // Wrong credentials, merchant unknown, or the subscriber locked (told apart by its message below).
  '500.001.1001': { class: ProviderRequestError, outcome: 'rejected' },
  // Spike arrest and quota: the reference counts a push answered so as unknown (no CheckoutRequestID).
  '500.003.02': { class: ProviderRateLimitError, outcome: 'unknown' },
  '500.003.03': { class: ProviderRateLimitError, outcome: 'unknown' },
  // MoMo: refused before anything was created, even when answered with HTTP 500.
  RESOURCE_ALREADY_EXIST: { class: ReferenceExistsError, outcome: 'rejected' },
  RESOURCE_NOT_FOUND: { class: ProviderNotFoundError, outcome: 'rejected' },
  INVALID_CALLBACK_URL_HOST: { class: ProviderRequestError, outcome: 'rejected' },
  INVALID_CURRENCY: { class: ProviderRequestError, outcome: 'rejected' },
  NOT_ALLOWED: { class: ProviderRequestError, outcome: 'rejected' },
  NOT_ALLOWED_TARGET_ENVIRONMENT: { class: ProviderRequestError, outcome: 'rejected' },
  PAYEE_NOT_FOUND: { class: ProviderRequestError, outcome: 'rejected' },
  // Generic provider
  invalid_request: { class: ProviderRequestError, outcome: 'rejected' },
  unauthorized: { class: ProviderAuthenticationError, outcome: 'rejected' },
  not_found: { class: ProviderNotFoundError, outcome: 'rejected' },
  rate_limited: { class: ProviderRateLimitError, outcome: 'rejected' },
});

function byStatus(status: number): ErrorClass {
  if (status === 401 || status === 403) return ProviderAuthenticationError;
  if (status === 404) return ProviderNotFoundError;
  if (status === 409) return ReferenceExistsError;
  if (status === 429) return ProviderRateLimitError;
  if (status >= 500) return ProviderUnavailableError;
  return ProviderRequestError;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The code and message of any of the three envelopes: Daraja's, MoMo's, the generic provider's. */
function envelope(body: unknown): { code?: string; message?: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const b = body as Record<string, unknown>;
  if (typeof b.error === 'object' && b.error !== null) {
    const e = b.error as Record<string, unknown>;
    return { code: text(e.code), message: text(e.message) };
  }
  return { code: text(b.errorCode) ?? text(b.code), message: text(b.errorMessage) ?? text(b.message) };
}

/** `Retry-After` in seconds or as an HTTP date; null when absent or unreadable. */
function retryAfter(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export interface ProviderAnswer {
  provider: string;
  operation: string;
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * The typed error for an answer the adapter did not take as a result. A documented code decides
 * the class (and for some the outcome); otherwise the status does: 4xx = rejected (nothing
 * happened), 5xx = unknown (it may have). A 2xx/3xx that is no result is malformed (unknown).
 */
export function errorFromAnswer(
  answer: ProviderAnswer,
  now: number = Date.now(),
): PaymentProviderError | MalformedAnswerError {
  const { provider, operation, status, body } = answer;
  if (status < 400) {
    return new MalformedAnswerError(
      `${provider} ${operation}: HTTP ${status} without a result we can read (outcome unknown)`,
      status,
    );
  }
  const { code, message } = envelope(body);
  const known = KNOWN_CODES.get(code);
  let cls = known?.class ?? byStatus(status);
  if (code === '500.001.1001' && /lock subscriber|already in process/i.test(message ?? ''))
    cls = SubscriberBusyError;
  const error = new cls({
    provider,
    operation,
    code: code ?? `http_${status}`,
    message: `${provider} ${operation}: ${message ?? code ?? 'refused'} (HTTP ${status})`,
    status,
    outcome: known?.outcome ?? (status >= 500 ? 'unknown' : 'rejected'),
    raw: body,
  });
  error.retryAfterMs = retryAfter(answer.headers?.['retry-after'], now);
  return error;
}

/**
 * Whether a failed call may be sent again by itself. Only idempotent calls ever are: status
 * queries, and the requests the provider de-duplicates by our reference (MoMo requesttopay and
 * refund by X-Reference-Id, the generic provider by reference) — a resend with the SAME reference
 * cannot take the money twice. A Daraja push or reversal is never re-sent: their lost answers
 * stay unknown. Rejections and unreadable answers are final, except a rate limit.
 */
export function shouldRetry(error: unknown, idempotent: boolean): boolean {
  if (!idempotent) return false;
  if (error instanceof ProviderRateLimitError) return true;
  // An answer we could not read will not read better the next time.
  if (error instanceof MalformedAnswerError) return false;
  const outcome = outcomeOf(error);
  return outcome === 'not_sent' || outcome === 'unknown';
}

/** The longest wait before a re-attempt (`retryDelayMs`' default cap). */
export const RETRY_DELAY_MAX_MS = 5000;

/**
 * Wait before re-attempt `attempt` (1, 2…): exponential from `baseMs` with full jitter, never less
 * than the provider's `Retry-After`, at most `maxMs`.
 */
export function retryDelayMs(
  attempt: number,
  error: unknown,
  options: { baseMs?: number; maxMs?: number; random?: () => number } = {},
): number {
  const base = options.baseMs ?? 200;
  const max = options.maxMs ?? RETRY_DELAY_MAX_MS;
  const jittered = Math.round((options.random ?? Math.random)() * base * 2 ** (attempt - 1));
  const hinted = error instanceof PaymentProviderError ? (error.retryAfterMs ?? 0) : 0;
  return Math.min(max, Math.max(jittered, hinted));
}
