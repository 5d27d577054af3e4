/**
 * Tables 7.2 and 7.3 of the purchase-service interface: every error type with its HTTP status,
 * every code with its type and `retryable`. The one transcription of the document, read by the
 * client (to type legacy errors, which carry only a code) and by the sandbox (to answer them).
 */

export type ErrorType =
  | 'authentication_error'
  | 'permission_error'
  | 'validation_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'insufficient_funds_error'
  | 'rate_limit_error'
  | 'provider_error'
  | 'provider_timeout'
  | 'provider_unavailable'
  | 'internal_error';

/** HTTP status of each error type (table 7.2). */
export const TYPE_STATUS: Record<ErrorType, number> = {
  authentication_error: 401,
  permission_error: 403,
  validation_error: 400,
  not_found_error: 404,
  conflict_error: 409,
  insufficient_funds_error: 402,
  rate_limit_error: 429,
  provider_error: 422,
  provider_timeout: 504,
  provider_unavailable: 502,
  internal_error: 500,
};

/** Codes of table 7.3 (plus `rate_limited`, which the document leaves unnamed). */
export const ERROR_CODES = {
  invalid_credentials: { type: 'authentication_error', retryable: false },
  missing_permission: { type: 'permission_error', retryable: false },
  forbidden: { type: 'permission_error', retryable: false },
  meter_not_allowed: { type: 'permission_error', retryable: false },
  retries_disabled: { type: 'permission_error', retryable: false },
  missing_field: { type: 'validation_error', retryable: false },
  invalid_argument: { type: 'validation_error', retryable: false },
  invalid_msisdn: { type: 'validation_error', retryable: false },
  invalid_meter_number: { type: 'validation_error', retryable: false },
  invalid_amount: { type: 'validation_error', retryable: false },
  amount_below_minimum: { type: 'validation_error', retryable: false },
  amount_above_maximum: { type: 'validation_error', retryable: false },
  amount_below_charges: { type: 'validation_error', retryable: false },
  method_not_allowed: { type: 'validation_error', retryable: false },
  meter_unsupported: { type: 'validation_error', retryable: false },
  resource_not_found: { type: 'not_found_error', retryable: false },
  meter_not_found: { type: 'not_found_error', retryable: false },
  transaction_not_found: { type: 'not_found_error', retryable: false },
  insufficient_balance: { type: 'insufficient_funds_error', retryable: false },
  duplicate_request: { type: 'conflict_error', retryable: false },
  transaction_pending: { type: 'conflict_error', retryable: true },
  rate_limited: { type: 'rate_limit_error', retryable: true },
  meter_blocked: { type: 'provider_error', retryable: false },
  merchant_credit_exhausted: { type: 'provider_unavailable', retryable: false },
  provider_busy: { type: 'provider_error', retryable: true },
  provider_error: { type: 'provider_error', retryable: false },
  provider_timeout: { type: 'provider_timeout', retryable: true },
  provider_unavailable: { type: 'provider_unavailable', retryable: true },
  upstream_error: { type: 'provider_error', retryable: false },
  internal_error: { type: 'internal_error', retryable: false },
} as const satisfies Record<string, { type: ErrorType; retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Whether `code` is one the document lists (table 7.3). */
export function isDocumentedCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

/**
 * The codes by which `retry` says the original transaction genuinely failed (1.2: "a 400-class
 * error means the transaction genuinely failed"): the provider's or the service's refusal of the
 * purchase itself. An allow-list: every other answer says nothing about the transaction and is
 * asked again — `upstream_error` (the service could not ask the provider), a refusal of the
 * retry request (its shape, its path, our role), `duplicate_request` (an earlier one may have
 * been sold), a code the document does not list (legacy codes are "not shown"), a proxy's page.
 * `transaction_not_found` is a verdict of its own (repeated, past the in-flight window).
 */
export const FAILED_TRANSACTION_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  'meter_blocked',
  'meter_not_found',
  'meter_not_allowed',
  'meter_unsupported',
  'invalid_meter_number',
  'amount_below_minimum',
  'amount_above_maximum',
  'amount_below_charges',
  'insufficient_balance',
  'provider_error',
]);

/**
 * A 4xx the service answered to confirm without settling it: `upstream_error` (its call to the
 * provider failed: the provider may have sold). A confirm refusal is otherwise final only with a
 * documented code; a proxy's page (`http_<status>`) or an unknown code leaves the outcome unknown.
 */
export const CONFIRM_NO_VERDICT_CODES: ReadonlySet<string> = new Set<ErrorCode>(['upstream_error']);
