import {
  MalformedResponseError,
  outcomeOf,
  PurchaseServiceError,
  RateLimitError,
  TransportError,
  type CallOutcome,
} from './errors';

/**
 * A failed call reduced to plain data: what the purchase lifecycle decides on and what the
 * dialogue routes on. Plain JSON, so it may be persisted in a record or a dialogue snapshot.
 */
export interface ServiceErrorInfo {
  /** The error class name (`ValidationError`, `OutcomeUnknownError`, `TypeError`). */
  name: string;
  /** The service's code; `transport_error`, `malformed_response` or `unexpected` for the others. */
  code: string;
  /** The service's broad type (`validation_error`), null when the service did not answer. */
  type: string | null;
  message: string;
  /** The field the service refused, if it named one. */
  param: string | null;
  /** HTTP status, null for transport failures and the unexpected. */
  status: number | null;
  outcome: CallOutcome;
  retryable: boolean;
  /** The server's `Retry-After`, for a rate-limited call. */
  retryAfterMs: number | null;
}

/** The one reduction of anything a purchase-service call throws to {@link ServiceErrorInfo}. */
export function errorInfo(error: unknown): ServiceErrorInfo {
  if (error instanceof PurchaseServiceError) {
    return {
      name: error.name,
      code: error.code,
      type: error.type,
      message: error.message,
      param: error.param,
      status: error.status,
      outcome: error.outcome,
      retryable: error.retryable,
      retryAfterMs: error instanceof RateLimitError ? error.retryAfterMs : null,
    };
  }
  const other = {
    name: error instanceof Error ? error.name : 'Error',
    type: null,
    message: error instanceof Error ? error.message : String(error),
    param: null,
    outcome: outcomeOf(error),
    // Nothing says the same call would fail again: the lifecycle may ask again.
    retryable: true,
    retryAfterMs: null,
  };
  if (error instanceof TransportError) return { ...other, code: 'transport_error', status: null };
  if (error instanceof MalformedResponseError)
    return { ...other, code: 'malformed_response', status: error.status };
  return { ...other, code: 'unexpected', status: null };
}
