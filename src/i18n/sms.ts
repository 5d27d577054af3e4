import { isKeyChangeDescription, tokensForDisplay } from '../vas/tokens';
import type { Locales } from './catalogue';
import { smsParts, transliterate, type SmsEncoding } from './gsm';

/** A rendered SMS-MT: GSM-7 where transliteration allows, with its length and parts as phones count. */
export interface RenderedSms {
  text: string;
  encoding: SmsEncoding;
  length: number;
  parts: number;
}

/** One token as parsed from the purchase service (`description` only for multi-token values). */
export interface SmsToken {
  description?: string;
  token: string;
}

/**
 * What a successful purchase SMS says; money already formatted, units as the service wrote them.
 * `amount` is what was bought (before charges) and `total` what was paid, as on the quote.
 */
export interface SuccessSms {
  product: string;
  identifier: string;
  amount: string;
  total: string;
  reference: string;
  tokens: readonly SmsToken[];
  units?: string;
}

/**
 * The success SMS in the purchase's language: product, identifier, tokens (key-change first, each
 * with its description; a lone token as `Token: …`), units, amount, total and reference, followed by
 * the key-change instruction when there are key-change tokens. Picks the catalogue variant
 * matching what the purchase has (`sms.success`, `…NoUnits`, `…NoToken`, `…Bare`).
 */
export function successSms(locales: Locales, lang: string, sms: SuccessSms): RenderedSms {
  const ordered = tokensForDisplay(sms.tokens);
  const lines = ordered.map((t) =>
    ordered.length === 1 && !t.description
      ? locales.t(lang, 'sms.tokenSingle', { token: t.token })
      : locales.t(lang, 'sms.tokenLine', { description: t.description ?? '', token: t.token }),
  );
  const base = {
    product: sms.product,
    identifier: sms.identifier,
    amount: sms.amount,
    total: sms.total,
    reference: sms.reference,
  };
  const units = sms.units?.trim() ? { units: sms.units.trim() } : undefined;
  let text: string;
  if (lines.length > 0) {
    const tokens = lines.join('\n');
    text = units
      ? locales.t(lang, 'sms.success', { ...base, ...units, tokens })
      : locales.t(lang, 'sms.successNoUnits', { ...base, tokens });
    if (ordered.some((t) => isKeyChangeDescription(t.description))) {
      text += '\n' + locales.t(lang, 'sms.keyChangeNote');
    }
  } else {
    text = units
      ? locales.t(lang, 'sms.successNoToken', { ...base, ...units })
      : locales.t(lang, 'sms.successBare', base);
  }
  const out = transliterate(text);
  return { text: out, ...smsParts(out) };
}
