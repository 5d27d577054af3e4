import {
  AuthenticationError,
  ConflictError,
  InsufficientFundsError,
  InternalServerError,
  MalformedResponseError,
  NotFoundError,
  PermissionError,
  ProviderError,
  ProviderTimeoutError,
  ProviderUnavailableError,
  PurchaseServiceError,
  RateLimitError,
  ValidationError,
  type ServiceErrorFields,
} from './errors';
import { ERROR_CODES, TYPE_STATUS, type ErrorType } from './error-codes';

/**
 * One pure function from an error answer (status, body, headers) to the typed error of
 * section 7, for the v1 `error` envelope (7.1) and the legacy envelope (7.5, where
 * `response_code` carries the same code strings). Unknown types fall back by HTTP status.
 */

type ErrorClass = new (fields: ServiceErrorFields) => PurchaseServiceError;

/** Broad type → class; each type's HTTP status is `TYPE_STATUS` (table 7.2, written once). */
const CLASSES: Record<ErrorType, ErrorClass> = {
  authentication_error: AuthenticationError,
  permission_error: PermissionError,
  validation_error: ValidationError,
  not_found_error: NotFoundError,
  conflict_error: ConflictError,
  insufficient_funds_error: InsufficientFundsError,
  rate_limit_error: RateLimitError,
  provider_error: ProviderError,
  provider_timeout: ProviderTimeoutError,
  provider_unavailable: ProviderUnavailableError,
  internal_error: InternalServerError,
};

function isErrorType(type: string): type is ErrorType {
  return Object.hasOwn(CLASSES, type);
}

/** Table 7.3: code → type and retryable, used for the legacy envelope, which carries only the code. */
const CODES: Record<string, { type: ErrorType; retryable: boolean }> = ERROR_CODES;

/** HTTP status → type, for answers whose envelope names no type we know. */
const STATUS_TYPES = new Map<number, ErrorType>(
  (Object.entries(TYPE_STATUS) as Array<[ErrorType, number]>).map(([type, status]) => [status, type]),
);

/**
 * `Retry-After` as milliseconds: delta-seconds or an HTTP date; null when absent or unreadable.
 * The one parser of this header: the SMS drivers use it too.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  if (!/^[A-Za-z]{3},/.test(text)) return null; // HTTP-date (RFC 9110) starts with the day name
  const date = Date.parse(text);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function typeForStatus(status: number): ErrorType {
  const type = STATUS_TYPES.get(status);
  if (type) return type;
  if (status >= 500) return 'internal_error';
  return 'validation_error';
}

function build(fields: ServiceErrorFields, headers: Record<string, string>): PurchaseServiceError {
  const cls = CLASSES[isErrorType(fields.type) ? fields.type : typeForStatus(fields.status)];
  const error = new cls(fields);
  if (error instanceof RateLimitError) error.retryAfterMs = parseRetryAfter(headers['retry-after']);
  return error;
}

/** True when `body` is a legacy error envelope (7.5). */
export function isLegacyErrorBody(body: unknown): body is Record<string, unknown> {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    typeof (body as Record<string, unknown>).response_code === 'string' &&
    !('error' in body)
  );
}

/**
 * The typed error for an error answer. A 5xx without a readable envelope is not a service
 * verdict: the caller must treat it as outcome unknown, hence MalformedResponseError (outcome
 * `unknown`) rather than a guessed class. A 4xx without an envelope (a proxy, a wrong base URL)
 * is mapped by status with code `http_<status>` (`rate_limited` for 429).
 */
export function mapErrorResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): PurchaseServiceError | MalformedResponseError {
  const headerRequestId = headers['x-request-id'] ?? null;
  const envelope =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>).error : undefined;

  if (typeof envelope === 'object' && envelope !== null && !Array.isArray(envelope)) {
    const e = envelope as Record<string, unknown>;
    const code = str(e.code) ?? str(e.type) ?? typeForStatus(status);
    const type = str(e.type) ?? CODES[code]?.type ?? typeForStatus(status);
    // An envelope in a 2xx/3xx answer (never documented): the status says nothing, the type does —
    // a 500-class type must stay "outcome unknown"; a type we do not know is no verdict either.
    const effectiveStatus = status >= 400 ? status : isErrorType(type) ? TYPE_STATUS[type] : 500;
    return build(
      {
        type,
        code,
        message: str(e.message) ?? `${code} (HTTP ${status})`,
        param: str(e.param) ?? null,
        retryable: typeof e.retryable === 'boolean' ? e.retryable : (CODES[code]?.retryable ?? false),
        requestId: str(e.request_id) ?? headerRequestId,
        status: effectiveStatus,
        raw: body,
      },
      headers,
    );
  }

  if (isLegacyErrorBody(body)) {
    const code = body.response_code as string;
    const known = CODES[code];
    // Legacy errors may come with any status (7.5: "not shown"); trust the code's documented one.
    // An unknown code in a non-error status is no verdict: internal_error (outcome unknown).
    const type = known?.type ?? (status >= 400 ? typeForStatus(status) : 'internal_error');
    const effectiveStatus = status >= 400 ? status : TYPE_STATUS[type];
    const errors = body.errors;
    const param =
      typeof errors === 'object' && errors !== null && !Array.isArray(errors)
        ? (Object.keys(errors)[0] ?? null)
        : null;
    return build(
      {
        type,
        code,
        message: str(body.response_message) ?? `${code} (HTTP ${status})`,
        param,
        retryable: known?.retryable ?? false,
        requestId: headerRequestId,
        status: effectiveStatus,
        raw: body,
      },
      headers,
    );
  }

  if (status >= 500) {
    return new MalformedResponseError(
      `HTTP ${status} without an error envelope (outcome unknown)`,
      headerRequestId,
      status,
    );
  }
  const type = typeForStatus(status);
  return build(
    {
      type,
      code: status === 429 ? 'rate_limited' : `http_${status}`,
      message: `HTTP ${status} without an error envelope`,
      param: null,
      retryable: status === 429,
      requestId: headerRequestId,
      status,
      raw: body,
    },
    headers,
  );
}
