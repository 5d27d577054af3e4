import type { ProductType } from '../vas/port';
import { formatMoney, parseDecimalAmount, type Money } from '../vas/money';

/** Smallest and largest amount of one sale of a product, in minor units. */
export interface AmountRange {
  minMinor: number;
  maxMinor: number;
}

/** What one subscriber number may spend in a local day, over every channel. */
export interface DailyLimits {
  maxValueMinor: number;
  maxCount: number;
}

export interface SpendRules {
  amounts: Record<ProductType, AmountRange>;
  daily: DailyLimits;
  /** IANA zone of the local day the daily limits count in. */
  timeZone: string;
}

/** Sensible defaults for a prepaid market in pula: the operator raises them in config. */
export const DEFAULT_AMOUNTS: Record<ProductType, AmountRange> = {
  ELECTRICITY: { minMinor: 500, maxMinor: 500_000 },
  WATER: { minMinor: 500, maxMinor: 500_000 },
  AIRTIME: { minMinor: 100, maxMinor: 100_000 },
};
export const DEFAULT_DAILY: DailyLimits = { maxValueMinor: 1_000_000, maxCount: 20 };

const PRODUCTS: readonly ProductType[] = ['ELECTRICITY', 'WATER', 'AIRTIME'];

/**
 * `ELECTRICITY=5-5000,AIRTIME=1-1000` (amounts in currency units, at most two decimals) over the
 * defaults; throws naming what is wrong.
 */
export function parseAmountRanges(text: string | undefined): Record<ProductType, AmountRange> {
  const out = { ...DEFAULT_AMOUNTS };
  for (const part of (text ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^([A-Z]+)=([\d.]+)-([\d.]+)$/.exec(part);
    if (!match) throw new Error(`"${part}" is not PRODUCT=min-max (e.g. ELECTRICITY=5-5000)`);
    const product = match[1] as ProductType;
    if (!PRODUCTS.includes(product)) throw new Error(`unknown product ${match[1]} (${PRODUCTS.join(', ')})`);
    const min = parseDecimalAmount(match[2]);
    const max = parseDecimalAmount(match[3]);
    if (!min.ok || !max.ok)
      throw new Error(`"${part}": amounts must be positive numbers with at most two decimals`);
    if (min.minor > max.minor) throw new Error(`"${part}": the minimum is above the maximum`);
    out[product] = { minMinor: min.minor, maxMinor: max.minor };
  }
  return out;
}

/** Why a sale is refused by the operator's rules (not by the purchase service). */
export type SpendRefusal =
  | { code: 'spend_below_minimum'; limit: Money }
  | { code: 'spend_above_maximum'; limit: Money }
  | { code: 'spend_daily_value'; limit: Money; resetsOn: string }
  | { code: 'spend_daily_count'; count: number; resetsOn: string }
  | { code: 'spend_blocked' }
  /** A field agent's own float and limits (src/agents/): the amount screen names them. */
  | { code: 'agent_insufficient'; available: Money }
  | { code: 'agent_over_limit'; limit: string; value: string }
  /**
   * The agent's own account stopped selling since the PIN was checked: disabled (by an
   * operator, lockouts, or its own BLOCK) or locked by wrong PINs until `until` (local time).
   */
  | { code: 'agent_disabled'; reason: 'operator' | 'lockouts' | 'blocked' | 'dealer' | 'owner' | 'not_agent' }
  | { code: 'agent_locked'; until: string };

/** A refusal as an error, for the places that hand one back through a promise (order, quote). */
export class SpendRefusedError extends Error {
  constructor(readonly refusal: SpendRefusal) {
    super(`refused by the spending rules: ${refusal.code}`);
    this.name = 'SpendRefusedError';
  }
}

/** The refusal's message key and parameters (`spend.<code>` in locales/*.json). */
export function refusalText(refusal: SpendRefusal): { key: string; params: Record<string, string | number> } {
  switch (refusal.code) {
    case 'spend_below_minimum':
      return { key: 'spend.belowMinimum', params: { min: formatMoney(refusal.limit) } };
    case 'spend_above_maximum':
      return { key: 'spend.aboveMaximum', params: { max: formatMoney(refusal.limit) } };
    case 'spend_daily_value':
      return {
        key: 'spend.dailyValue',
        params: { limit: formatMoney(refusal.limit), date: refusal.resetsOn },
      };
    case 'spend_daily_count':
      return { key: 'spend.dailyCount', params: { count: refusal.count, date: refusal.resetsOn } };
    case 'spend_blocked':
      return { key: 'spend.blocked', params: {} };
    case 'agent_insufficient':
      return { key: 'spend.agentInsufficient', params: { available: formatMoney(refusal.available) } };
    case 'agent_over_limit':
      return { key: 'spend.agentOverLimit', params: { limit: refusal.limit, value: refusal.value } };
    case 'agent_disabled':
      return { key: refusal.reason === 'blocked' ? 'spend.agentBlocked' : 'spend.agentDisabled', params: {} };
    case 'agent_locked':
      return { key: 'spend.agentLocked', params: { until: refusal.until } };
  }
}

/** The per-product range check, before any quote. */
export function checkAmount(
  rules: Pick<SpendRules, 'amounts'>,
  product: ProductType,
  amount: Money,
): SpendRefusal | null {
  return checkRange(rules.amounts[product], amount);
}

/** One range's check: below its minimum, above its maximum, or null. */
export function checkRange(range: AmountRange, amount: Money): SpendRefusal | null {
  if (amount.minor < range.minMinor)
    return { code: 'spend_below_minimum', limit: { currency: amount.currency, minor: range.minMinor } };
  if (amount.minor > range.maxMinor)
    return { code: 'spend_above_maximum', limit: { currency: amount.currency, minor: range.maxMinor } };
  return null;
}

export { localDay, nextDay } from '../i18n/local-time';
