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

// Providers spell it `KeyChange Token1`, `Key Change Token 1`, `Key-Change Token 2`, `key_change`, `KCT1`.
const KEY_CHANGE = /key[\s_-]*change|\bkct\s*\d*\b/i;

/**
 * Whether a provider's token description names a key-change token, in any spelling or case.
 * The one rule behind the order of the token SMS and of the CLI.
 */
export function isKeyChangeDescription(description: string | null | undefined): boolean {
  return description !== null && description !== undefined && KEY_CHANGE.test(description);
}

function tokenPart(part: string): Token {
  const colon = part.indexOf(':');
  if (colon < 0) return { description: null, value: part.trim(), isKeyChange: false };
  const description = part.slice(0, colon).trim();
  return {
    description,
    value: part.slice(colon + 1).trim(),
    isKeyChange: isKeyChangeDescription(description),
  };
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

/**
 * Order for the subscriber, used by the token SMS and the CLI: key-change tokens first (a meter
 * refuses the credit token until they are entered), otherwise the order returned (a stable
 * partition, so a correctly ordered response is left unchanged). Decided by the description.
 */
export function tokensForDisplay<T extends { description?: string | null }>(tokens: readonly T[]): T[] {
  const keyChange = tokens.filter((t) => isKeyChangeDescription(t.description));
  return [...keyChange, ...tokens.filter((t) => !isKeyChangeDescription(t.description))];
}
