import type { Money } from '../vas/money';

/** Small readers and writers the adapters share for values on the providers' wires. */

/** `10150` → `"101.50"` (`decimals` 2) or `"101"` (0; the caller has checked there are no cents). */
export function amountText(minor: number, decimals: 0 | 2): string {
  if (!Number.isSafeInteger(minor) || minor < 0)
    throw new RangeError(`not an amount in minor units: ${minor}`);
  const whole = Math.floor(minor / 100);
  return decimals === 0 ? String(whole) : `${whole}.${String(minor % 100).padStart(2, '0')}`;
}

/**
 * An amount as a provider writes it — a JSON number (`1.00` arrives as 1, `101.5`) or a string
 * (`"5.0"`, `"500"`) — as exact minor units; undefined when it is no plain amount with at most
 * two decimals. Numbers are read through their shortest decimal text, never multiplied as floats.
 */
export function moneyFromWire(value: unknown, currency: string): Money | undefined {
  const text =
    typeof value === 'number' && Number.isFinite(value)
      ? String(value)
      : typeof value === 'string'
        ? value.trim()
        : '';
  const match = /^(\d+)(?:\.(\d{1,2})0*)?$/.exec(text);
  if (!match) return undefined;
  const minor = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return Number.isSafeInteger(minor) ? { currency, minor } : undefined;
}

/** A non-empty string, or a number written as one (Daraja sends PhoneNumber and codes as numbers). */
export function wireText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** The object under `key` of `value`, or undefined. */
export function field(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

/** Free text a provider shows to the payer: letters, digits, spaces, cut to `max` characters. */
export function promptText(text: string, max: number): string {
  return text
    .replace(/[^A-Za-z0-9 ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max)
    .trim();
}

/** `{ [key]: value }` when value is defined, else nothing: optional fields spread into a result. */
export function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
