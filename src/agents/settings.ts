import { parsePercent, type CommissionPolicy } from './commission';
import { serviceCodeKey } from './service-codes';

/**
 * Field agents' settings (`AGENT_*`), as the gateway's configuration assembles them
 * (src/config): the limits of an agent without overrides, the floats' currency, the codes
 * that serve the agent menu.
 */
export interface AgentSettings {
  /** Minor units. */
  maxSaleMinor: number;
  maxDayValueMinor: number;
  maxDayCount: number;
  currency: string;
  /** USSD codes (keyed: `384*9`) that serve the agent menu; empty: every code. */
  serviceCodes: string[];
  /** `AGENT_COMMISSION`: what a sale earns (empty: nothing); an agent's own policy overrides it. */
  commission: CommissionPolicy;
  /** `AGENT_DEALER_SHARE`: a dealer's share of its retailers' commission (basis points). */
  dealerShareBp: number;
  /** `AGENT_SUMMARY_TIME` (`HH:MM`, local): when the day's summary SMS goes out; null: never. */
  summaryTime: string | null;
  /** `DEALER_REGISTRATION`: a retailer a dealer adds by USSD waits for an operator, or is registered at once. */
  dealerRegistration: 'approve' | 'direct';
  /** `AGENT_PIN_SECRET`: the pepper of PIN hashes; null: the embedded mode's own (src/agents/pin-secret.ts). */
  pinSecret: string | null;
}

/** An agent's limits when neither `AGENT_*` nor the agent's own overrides say otherwise (minor units). */
export const DEFAULT_AGENT_LIMITS = { maxSaleMinor: 200_000, maxDayValueMinor: 2_000_000, maxDayCount: 200 };

/** `AGENT_SERVICE_CODES` (`*384*9#,*385#`) keyed as the dialogue compares them; throws what is wrong. */
export function parseServiceCodes(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value.split(',').map((code) => {
    const key = serviceCodeKey(code);
    if (!/^\d[\d*]*$/.test(key))
      throw new Error(`AGENT_SERVICE_CODES: "${code.trim()}" is not a USSD code such as *384*9#`);
    return key;
  });
}

/** `AGENT_DEALER_SHARE` (`20%`) in basis points; unset: 0. */
export function parseDealerShare(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 0;
  const bp = parsePercent(value);
  if (bp === null) throw new Error(`"${value}" is not a percentage such as 20%`);
  return bp;
}

/** `AGENT_SUMMARY_TIME` (`19:00`) as `HH:MM`; unset: null. */
export function parseSummaryTime(value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return null;
  const match = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(value.trim());
  if (!match) throw new Error(`"${value}" is not a local time such as 19:00`);
  return `${match[1].padStart(2, '0')}:${match[2]}`;
}
