import { keyPrefix } from '../redis/keys';

/**
 * Every Redis key of the spending rules, built here and nowhere else, all under `spend:`. A
 * number's day is one hash (one slot); each blocklist is one set.
 */
export interface SpendKeys {
  day(msisdn: string, day: string): string;
  blocked(kind: BlockKind): string;
}

export type BlockKind = 'msisdn' | 'identifier';

export function spendKeys(prefix: string): SpendKeys {
  const base = `${keyPrefix(prefix)}spend:`;
  return {
    day: (msisdn, day) => `${base}{${msisdn}}:day:${day}`,
    blocked: (kind) => `${base}blocked:${kind}`,
  };
}
