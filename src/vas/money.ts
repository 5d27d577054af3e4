/**
 * Money as exact integer minor units. The purchase service speaks `<CCY> <amount>` strings
 * with two fraction digits (section 2.1) and takes request amounts as JSON numbers in
 * currency units; nothing here ever does arithmetic on floats.
 */
export interface Money {
  currency: string;
  /** Integer minor units (cents, thebe). */
  minor: number;
}

export class MoneyFormatError extends Error {
  constructor(
    readonly input: string,
    reason: string,
  ) {
    super(`invalid money ${JSON.stringify(input)}: ${reason}`);
    this.name = 'MoneyFormatError';
  }
}

const MONEY_STRING = /^([A-Z]{3}) (-?)(\d+)(?:\.(\d{1,2}))?$/;
const DECIMAL_AMOUNT = /^(\d+)(?:\.(\d{1,2}))?$/;

function toMinor(input: string, whole: string, fraction: string | undefined): number {
  const minor = Number(whole) * 100 + Number((fraction ?? '').padEnd(2, '0'));
  if (!Number.isSafeInteger(minor)) throw new MoneyFormatError(input, 'amount too large');
  return minor;
}

/** Parse `BWP 1000000.00` (also `BWP 12.5`, `BWP -3.00`) to exact minor units; throws MoneyFormatError. */
export function parseMoney(input: string): Money {
  const match = MONEY_STRING.exec(input.trim());
  if (!match) throw new MoneyFormatError(input, 'expected "<CCY> <amount>" with at most two decimals');
  const [, currency, sign, whole, fraction] = match;
  const minor = toMinor(input, whole, fraction);
  return { currency, minor: sign ? -minor : minor };
}

/** Parse a money string, or undefined for an absent/empty field. */
export function parseOptionalMoney(input: string | null | undefined): Money | undefined {
  return input === null || input === undefined || input === '' ? undefined : parseMoney(input);
}

/**
 * `{BWP, 123450}` → `BWP 1234.50`: the wire format of section 2.1, and how every screen and SMS
 * shows money (no thousands separator). Every amount of the service has two fraction digits,
 * so minor units are hundredths whatever the currency. Throws RangeError for minor units that
 * are not a safe integer or a currency that is not an ISO 4217 code, so a float never slips
 * into a message and what is written here always parses back.
 */
export function formatMoney(money: Money): string {
  if (!Number.isSafeInteger(money.minor)) {
    throw new RangeError(`money must be integer minor units, got ${money.minor}`);
  }
  if (!/^[A-Z]{3}$/.test(money.currency)) {
    throw new RangeError(`not an ISO 4217 currency code: ${money.currency}`);
  }
  const sign = money.minor < 0 ? '-' : '';
  const abs = Math.abs(money.minor);
  const whole = Math.floor(abs / 100);
  const fraction = String(abs % 100).padStart(2, '0');
  return `${money.currency} ${sign}${whole}.${fraction}`;
}

/**
 * Parse what a person typed as an amount (`100`, `100.5`, `100.50`) to minor units.
 * Returns a reason instead of throwing, because bad input is expected here.
 */
export function parseDecimalAmount(
  input: string,
): { ok: true; minor: number } | { ok: false; reason: 'notNumber' | 'tooManyDecimals' | 'notPositive' } {
  const text = input.trim();
  if (/^\d+\.\d{3,}$/.test(text)) return { ok: false, reason: 'tooManyDecimals' };
  const match = DECIMAL_AMOUNT.exec(text);
  if (!match) return { ok: false, reason: 'notNumber' };
  const minor = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  if (!Number.isSafeInteger(minor)) return { ok: false, reason: 'notNumber' };
  if (minor <= 0) return { ok: false, reason: 'notPositive' };
  return { ok: true, minor };
}

/**
 * The request `amount` (a JSON number in currency units). Dividing an integer by 100 yields
 * the double nearest the decimal, which JSON prints back as exactly that decimal.
 */
export function toRequestAmount(minor: number): number {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`minor units must be an integer, got ${minor}`);
  return minor / 100;
}
