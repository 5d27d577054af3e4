import { parsePhoneNumberFromString, isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';

export type { CountryCode };

/** Result of {@link normaliseMsisdn}: E.164 digits (no `+`) or why the input was refused. */
export type MsisdnResult =
  { ok: true; e164: string; region: CountryCode | undefined } | { ok: false; reason: 'invalid' | 'empty' };

/** Separators people type between digit groups; anything else (letters, `*`, `#`) is refused. */
const SEPARATORS = /[\s\-.()/]/g;
const ALLOWED = /^\+?\d+$/;

/**
 * Number types we accept: the number must be able to receive SMS and airtime.
 * Some regions cannot tell mobile from fixed line (`FIXED_LINE_OR_MOBILE`); we give those the
 * benefit of the doubt. A valid number whose type the metadata does not know is also accepted.
 */
const MOBILE_TYPES = new Set(['MOBILE', 'FIXED_LINE_OR_MOBILE']);

/**
 * Normalises a subscriber-typed phone number to E.164 digits without `+`.
 *
 * Accepts the local/national form of `region` (`71234567` in BW, `0712345678` in KE), the
 * `+`-international form, the `00`-international form (whatever the region's own international
 * prefix is: `00` is what people type on USSD), and bare E.164 digits. Spaces, dashes, dots,
 * slashes and parentheses are ignored. The number must be valid per libphonenumber's full
 * metadata and, when its type is known, a mobile number — so `invalid_msisdn` never reaches
 * the purchase service from us.
 */
export function normaliseMsisdn(input: string, region: CountryCode): MsisdnResult {
  const compact = input.replace(SEPARATORS, '');
  if (compact === '') return { ok: false, reason: 'empty' };
  if (!ALLOWED.test(compact)) return { ok: false, reason: 'invalid' };
  const text = compact.startsWith('00') ? `+${compact.slice(2)}` : compact;
  const parsed = parsePhoneNumberFromString(text, region);
  if (!parsed || !parsed.isValid()) return { ok: false, reason: 'invalid' };
  const type = parsed.getType();
  if (type !== undefined && !MOBILE_TYPES.has(type)) return { ok: false, reason: 'invalid' };
  return { ok: true, e164: parsed.number.slice(1), region: parsed.country };
}

/**
 * Region of a BCP 47 language tag (`en-BW` → `BW`, `tn_BW` → `BW`, `en-Latn-BW` → `BW`), or
 * `fallback` when the tag carries no region libphonenumber knows.
 */
export function regionFromLanguageTag(tag: string | undefined, fallback: CountryCode): CountryCode {
  if (!tag) return fallback;
  const subtags = tag.split(/[-_]/).slice(1);
  const region = subtags.find((s) => /^[A-Za-z]{2}$/.test(s))?.toUpperCase();
  return region !== undefined && isSupportedCountry(region) ? region : fallback;
}
