import type { LocalText } from '../../src/ussd/engine/dialogue';
import { AMOUNT_CODES, IDENTIFIER_CODES } from '../../src/sales/quote';
import type { ServiceErrorInfo } from '../../src/vas/error-info';
import { formatMoney, parseMoney } from '../../src/vas/money';
import type { DialogueError } from './context';

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
