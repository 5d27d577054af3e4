import { formatMoney, type Money } from '../vas/money';
import type { CommissionPolicy } from './commission';
import { AgentInputError } from './errors';
import type { FloatStore } from './ledger/store';
import { localDay } from './lockout';
import type { Agent, ResolvedLimits } from './types';

/**
 * What every float operation shares: the store, the floats' currency and local day, an agent's
 * limits over the configured defaults, how amounts are shown, and the checks of the input
 * (exact minor units, references, keys) before anything is written.
 */

/** Largest amount one operation takes (10 billion in major units): sums stay exact integers. */
export const MAX_AMOUNT_MINOR = 1_000_000_000_000;
const MAX_REFERENCE = 64;
export const MAX_NOTE = 200;
const MAX_KEY = 200;

export interface AgentFloatOptions {
  store: FloatStore;
  /** Currency of every float (ISO 4217). */
  currency: string;
  /** The configured limits, overridden per agent. */
  defaults: ResolvedLimits;
  /** Zone of the local day the day's limits count in. */
  timeZone: string;
  /** `AGENT_COMMISSION`: what a sale earns unless the agent's own policy says (absent: nothing). */
  commission?: CommissionPolicy;
  /** `AGENT_DEALER_SHARE`: a dealer's share of its retailers' commission, basis points (absent: 0). */
  dealerShareBp?: number;
  clock?: () => Date;
}

/** The float's settings and store, as the holds, the funding and the statements use them. */
export class FloatAccount {
  readonly store: FloatStore;
  readonly currency: string;
  /** Zone of the local days limits and statements count in. */
  readonly timeZone: string;
  readonly clock: () => Date;

  constructor(readonly options: AgentFloatOptions) {
    this.store = options.store;
    this.currency = options.currency;
    this.timeZone = options.timeZone;
    this.clock = options.clock ?? (() => new Date());
  }

  /** The agent's limits: its overrides over the configured defaults. */
  limitsOf(agent: Pick<Agent, 'limits'>): ResolvedLimits {
    const d = this.options.defaults;
    return {
      maxSaleMinor: agent.limits.maxSaleMinor ?? d.maxSaleMinor,
      maxDayValueMinor: agent.limits.maxDayValueMinor ?? d.maxDayValueMinor,
      maxDayCount: agent.limits.maxDayCount ?? d.maxDayCount,
    };
  }

  /** The local day now (`YYYY-MM-DD`) in the configured zone. */
  today(): string {
    return localDay(this.clock(), this.options.timeZone);
  }

  money(minor: number): Money {
    return { currency: this.currency, minor };
  }

  /** `BWP 12.50`: how screens, SMS and the CLI show float amounts. */
  format(minor: number): string {
    return formatMoney(this.money(minor));
  }

  checkCurrency(amount: Money): void {
    if (amount.currency !== this.currency)
      throw new AgentInputError('amount', `amount must be in ${this.currency}, the floats' currency`);
  }
}

export function checkAmount(field: string, minor: number, signed: boolean): void {
  const ok =
    Number.isSafeInteger(minor) && Math.abs(minor) <= MAX_AMOUNT_MINOR && (signed ? minor !== 0 : minor > 0);
  if (!ok)
    throw new AgentInputError(
      field,
      `${field} must be ${signed ? 'a non-zero' : 'a positive'} amount in minor units`,
    );
}

export function checkReference(reference: string): void {
  if (!/^[\x20-\x7e]{1,64}$/.test(reference))
    throw new AgentInputError('reference', `reference must be 1 to ${MAX_REFERENCE} printable characters`);
}

export function checkKey(key: string, field = 'purchaseKey'): void {
  if (typeof key !== 'string' || key === '' || key.length > MAX_KEY)
    throw new AgentInputError(field, `${field} must be 1 to ${MAX_KEY} characters`);
}
