import type { LocalText } from '../../src/session/dialogue';
import type { DialogueError } from './context';

/** Where a failed quote sends the subscriber. */
export type QuoteErrorRoute = 'identifier' | 'amount' | 'tryLater' | 'unavailable';

const IDENTIFIER_CODES = new Set([
  'invalid_meter_number',
  'meter_not_found',
  'meter_not_allowed',
  'meter_blocked',
  'meter_unsupported',
]);
const AMOUNT_CODES = new Set([
  'amount_below_minimum',
  'amount_above_maximum',
  'amount_below_charges',
  'invalid_amount',
]);
/** Provider-side trouble the subscriber can only wait out. */
const TRY_LATER_CODES = new Set([
  'provider_timeout',
  'provider_unavailable',
  'provider_busy',
  'provider_error',
  'upstream_error',
  'transaction_pending',
  'rate_limited',
  'transport_error',
]);
const TRY_LATER_TYPES = new Set(['provider_timeout', 'rate_limit_error']);
/** Codes with their own `reason.<code>` line in the locales. */
const REASON_KEYS = new Set([
  ...IDENTIFIER_CODES,
  ...AMOUNT_CODES,
  'invalid_msisdn',
  'transaction_pending',
  'provider_busy',
  'provider_error',
]);

/**
 * Reduces anything thrown by a service to plain data. Duck-typed on the fields of
 * PurchaseServiceError / TransportError (vas/errors.ts) so it survives module duplication.
 */
export function reduceError(error: unknown): DialogueError & { type: string | null } {
  const e = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
  const message = str(e.message) ?? String(error);
  const code = str(e.code);
  if (code !== null && typeof e.status === 'number') {
    return { code, type: str(e.type), message, param: str(e.param), operatorProblem: false };
  }
  if (e.name === 'RequestNotSentError' || e.name === 'OutcomeUnknownError') {
    return { code: 'transport_error', type: null, message, param: null, operatorProblem: false };
  }
  return { code: 'unexpected', type: null, message, param: null, operatorProblem: false };
}

/**
 * Routes a quote (validate) failure. `airtime`: the beneficiary number is the identifier the
 * subscriber typed, so `invalid_msisdn` is theirs to fix; otherwise the beneficiary is the
 * caller's own number, which re-typing a meter number cannot fix.
 */
export function routeQuoteError(
  err: { code: string; type: string | null; param: string | null },
  airtime: boolean,
): QuoteErrorRoute {
  if (IDENTIFIER_CODES.has(err.code)) return 'identifier';
  if (err.code === 'invalid_msisdn') return airtime ? 'identifier' : 'unavailable';
  if (err.code === 'invalid_argument' && err.param === 'subscriber_identifier') return 'identifier';
  if (err.code === 'invalid_argument' && err.param === 'amount') return 'amount';
  if (AMOUNT_CODES.has(err.code)) return 'amount';
  if (TRY_LATER_CODES.has(err.code) || (err.type !== null && TRY_LATER_TYPES.has(err.type)))
    return 'tryLater';
  return 'unavailable';
}

/** The line explaining a service refusal (`reason.<code>`), with a generic fallback. */
export function reasonText(code: string, fallback: string): LocalText {
  return { key: REASON_KEYS.has(code) ? `reason.${code}` : fallback };
}
