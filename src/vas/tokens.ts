/**
 * Token strings of section 2.5: a bare space-grouped token, or `Description: Token` pairs
 * separated by `|` (multi-token iff the string contains `|`). Order is significant.
 */
export interface Token {
  /** Provider description (`Credit Token`, `KeyChange Token1`, …); null for a bare single token. */
  description: string | null;
  value: string;
  /** Key-change tokens must be entered into the meter before the credit token. */
  isKeyChange: boolean;
}

const KEY_CHANGE = /key\s*-?\s*change/i;

function tokenPart(part: string): Token {
  const colon = part.indexOf(':');
  if (colon < 0) return { description: null, value: part.trim(), isKeyChange: false };
  const description = part.slice(0, colon).trim();
  return { description, value: part.slice(colon + 1).trim(), isKeyChange: KEY_CHANGE.test(description) };
}

/** Parse `product.token` (or legacy `token`); empty or absent → no tokens. */
export function parseTokens(raw: string | null | undefined): Token[] {
  if (raw === null || raw === undefined || raw.trim() === '') return [];
  if (!raw.includes('|')) return [{ description: null, value: raw.trim(), isKeyChange: false }];
  return raw
    .split('|')
    .map(tokenPart)
    .filter((token) => token.value !== '');
}

/** Order for the subscriber: key-change tokens first, otherwise the order returned (stable). */
export function tokensForDisplay(tokens: readonly Token[]): Token[] {
  return [...tokens.filter((t) => t.isKeyChange), ...tokens.filter((t) => !t.isKeyChange)];
}
