/**
 * The sandbox's errors of section 7: the two wire envelopes — v1 (7.1) and legacy (7.5) — over
 * the document's tables of types (7.2) and codes (7.3), which the client reads too.
 */

export { ERROR_CODES, TYPE_STATUS, type ErrorCode, type ErrorType } from '../vas/error-codes';
import { ERROR_CODES, TYPE_STATUS, type ErrorCode, type ErrorType } from '../vas/error-codes';

/** A documented failure; thrown anywhere in the sandbox and rendered by the route's envelope. */
export class SandboxError extends Error {
  readonly type: ErrorType;
  readonly status: number;
  readonly retryable: boolean;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param: string | null = null,
    retryable?: boolean,
  ) {
    super(message);
    this.name = 'SandboxError';
    this.type = ERROR_CODES[code].type;
    this.status = TYPE_STATUS[this.type];
    this.retryable = retryable ?? ERROR_CODES[code].retryable;
  }
}

/** The v1 envelope (7.1): one root key `error` with all seven fields. */
export function v1ErrorBody(err: SandboxError, requestId: string, docBase: string): object {
  return {
    error: {
      type: err.type,
      code: err.code,
      message: err.message,
      param: err.param,
      retryable: err.retryable,
      doc_url: `${docBase}/sandbox/errors#${err.code}`,
      request_id: requestId,
    },
  };
}

/** v1 field names that the legacy body spells differently. */
const LEGACY_PARAM: Record<string, string> = { subscriber_identifier: 'meter_number' };

/** The legacy envelope (7.5); `response_code` carries the v1 code string. */
export function legacyErrorBody(err: SandboxError): object {
  const exception = err.code
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
  const param = err.param === null ? null : (LEGACY_PARAM[err.param] ?? err.param);
  return {
    response_code: err.code,
    response_message: err.message,
    timestamp: Date.now(),
    developer_message: `${exception}Exception`,
    errors: param === null ? {} : { [param]: err.message },
  };
}
