import type { LocalText } from '../../src/session/dialogue';
import { SpendRefusedError } from '../../src/spend/rules';
import type { ServiceErrorInfo } from '../../src/vas/error-info';
import { formatMoney, parseMoney } from '../../src/vas/money';
import type { DialogueError } from './context';

/**
 * Where a failed quote sends the subscriber: back to the identifier or the amount, "try later",
 * "unavailable", or `refused` — a closing screen that says why (the operator's spending rules,
 * or the provider refusing this subscriber for good, in its own words).
 */
export type QuoteErrorRoute = 'identifier' | 'amount' | 'tryLater' | 'unavailable' | 'refused';

/**
 * Where a refusal by the operator's spending rules sends the subscriber: an amount out of the
 * product's range back to the amount prompt; a daily limit or a blocked number to a closing
 * screen that says why. Null for any other error.
 */
export function spendRoute(error: unknown): QuoteErrorRoute | null {
  if (!(error instanceof SpendRefusedError)) return null;
  const { code } = error.refusal;
  return code === 'spend_below_minimum' || code === 'spend_above_maximum' || code.startsWith('agent_')
    ? 'amount'
    : 'refused';
}

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

/** What the context keeps of a failure (the closing line reads its code). */
export function dialogueError(info: ServiceErrorInfo): DialogueError {
  return { code: info.code, message: info.message, param: info.param, retryable: info.retryable };
}

/**
 * Routes a quote (validate) failure. `airtime`: the beneficiary number is the identifier the
 * subscriber typed, so `invalid_msisdn` is theirs to fix; otherwise the beneficiary is the
 * caller's own number, which re-typing a meter number cannot fix.
 */
export function routeQuoteError(
  err: Pick<ServiceErrorInfo, 'code' | 'type' | 'param'> & { retryable?: boolean },
  airtime: boolean,
): QuoteErrorRoute {
  if (IDENTIFIER_CODES.has(err.code)) return 'identifier';
  // "Purchase only allowed once the debt is paid": waiting will not help, the reason will.
  if (err.code === 'provider_error' && err.retryable === false) return 'refused';
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

/** The first money amount a provider's message names (`... greater than BWP 1000.00`), formatted. */
export function moneyIn(message: string): string | null {
  const match = /\b([A-Z]{3}) ?(\d+(?:\.\d{1,2})?)(?!\d)/.exec(message);
  if (!match) return null;
  try {
    return formatMoney(parseMoney(`${match[1]} ${match[2]}`));
  } catch {
    return null;
  }
}

/** Longest provider wording shown on a screen (the rest of the screen must still fit). */
const MAX_PROVIDER_WORDS = 100;

/**
 * What the subscriber reads about a refused quote: the provider's limit when its message names
 * one (`amount_below_minimum` carries the meter's minimum), the provider's own wording for a
 * refusal for good (a debt to pay first), else `reason.<code>` or the fallback.
 */
export function refusalNotice(
  err: Pick<ServiceErrorInfo, 'code' | 'message'> & { retryable?: boolean },
  fallback: string,
): LocalText {
  const limit = moneyIn(err.message);
  if (err.code === 'amount_below_minimum' && limit)
    return /greater|more than|above|exceed/i.test(err.message)
      ? { key: 'reason.amount_below_minimum.moreThan', params: { limit } }
      : { key: 'reason.amount_below_minimum.atLeast', params: { limit } };
  if (err.code === 'amount_above_maximum' && limit)
    return { key: 'reason.amount_above_maximum.atMost', params: { limit } };
  const words = err.message.replace(/\s+/g, ' ').trim();
  if (err.code === 'provider_error' && err.retryable === false && words !== '')
    return {
      key: 'reason.provider_refused',
      params: {
        message: words.length > MAX_PROVIDER_WORDS ? `${words.slice(0, MAX_PROVIDER_WORDS - 3)}...` : words,
      },
    };
  return reasonText(err.code, fallback);
}

/**
 * The operator's own problems (credentials, permissions, balance, merchant credit, anything
 * unexpected): the subscriber only sees "service unavailable", so the gateway must say why.
 */
export function isOperatorProblem(
  err: Pick<ServiceErrorInfo, 'code' | 'type' | 'param'>,
  airtime: boolean,
): boolean {
  return routeQuoteError(err, airtime) === 'unavailable';
}
