/**
 * Money for the sandbox: integer minor units (thebe) inside, `<CCY> <amount>` strings on the
 * wire (section 2.1). Never a float in arithmetic.
 */

/** Parses a request `amount` (JSON number, > 0, at most two decimals) into minor units, or null. */
export function parseAmount(value: unknown): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return null;
  // String(n) is the shortest round-trip form, so 10.1 stays "10.1" and 0.1 + 0.2 is rejected.
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(String(value));
  if (!match) return null;
  const major = Number(match[1]);
  const minor = major * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return Number.isSafeInteger(major) && Number.isSafeInteger(minor) && minor > 0 ? minor : null;
}

/** Formats minor units as a money string, e.g. `BWP 1000000.00`. */
export function formatMoney(minor: number, currency = 'BWP'): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${currency} ${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** floor(minor * numerator / denominator) without floating point. */
export function share(minor: number, numerator: number, denominator: number): number {
  return Number((BigInt(minor) * BigInt(numerator)) / BigInt(denominator));
}
