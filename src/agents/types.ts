/**
 * Field agents: who they are, how their sales are funded, their limits. An agent is known by
 * its E.164 MSISDN (digits, no `+`), the number it dials and texts from.
 */

/** `locked`: too many wrong PINs, until `lockedUntil`; `disabled`: until an operator enables it. */
export const AGENT_STATUSES = ['active', 'locked', 'disabled'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/**
 * Why an agent is disabled: an operator, three lockouts in a day, the agent's own `BLOCK`, its
 * dealer (a retailer) or its outlet's owner (an assistant).
 */
export type DisabledReason = 'operator' | 'lockouts' | 'blocked' | 'dealer' | 'owner';

/** How an agent's sales are paid: a purchase-service account of its own, or the gateway's float. */
export type AgentFunding = { kind: 'account'; debitedAccountId: number } | { kind: 'float' };

/** Per-agent overrides of the configured limits (absent: the default applies). */
export interface AgentLimits {
  maxSaleMinor?: number;
  maxDayValueMinor?: number;
  maxDayCount?: number;
}

/** The limits in force for one agent: its overrides over the configured defaults. */
export interface ResolvedLimits {
  maxSaleMinor: number;
  maxDayValueMinor: number;
  maxDayCount: number;
}

/** scrypt cost parameters, kept with each hash so they can be raised without locking anyone out. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  keyLen: number;
  /** scrypt was given HMAC-SHA256(AGENT_PIN_SECRET, PIN), not the PIN (absent: an older hash). */
  pepper?: boolean;
}

/** A PIN at rest: never the PIN itself. `version` changes with every new PIN. */
export interface StoredPin {
  hash: string;
  salt: string;
  params: ScryptParams;
  version: number;
}

/** An agent as the rest of the gateway sees it: everything but the PIN hash. */
export interface Agent {
  msisdn: string;
  name: string;
  /** Locale code of the agent's screens and SMS (`en`, `tn`). */
  language: string;
  status: AgentStatus;
  disabledReason: DisabledReason | null;
  failedAttempts: number;
  /** ISO time a lockout ends; null when not locked. */
  lockedUntil: string | null;
  /** Local day (`YYYY-MM-DD`) `lockoutsToday` counts. */
  lockoutDay: string | null;
  lockoutsToday: number;
  /** The one-time PIN the operator set must be replaced before anything else. */
  mustChangePin: boolean;
  funding: AgentFunding;
  limits: AgentLimits;
  /** A retailer: the dealer that registered it and may move float to it (null: none). */
  dealerMsisdn?: string | null;
  /**
   * A dealer: may register retailers and move float to them (made one by an operator, or by
   * registering a retailer under it; absent: not a dealer). Never an assistant.
   */
  dealer?: boolean;
  /** An assistant: the outlet (an agent) whose float it sells from (null: an agent of its own). */
  outletMsisdn?: string | null;
  /** The agent's own commission policy (`AGENT_COMMISSION`'s grammar); null: the configured one. */
  commission?: string | null;
  /** A dealer's share of its retailers' commission, in basis points; null: `AGENT_DEALER_SHARE`. */
  dealerShareBp?: number | null;
  createdAt: string;
  updatedAt: string;
}

/** What the stores keep: the agent and its PIN hash. Never leaves src/agents/. */
export interface AgentRecord extends Agent {
  pin: StoredPin;
}

/** The public view of a record: the PIN hash dropped. */
export function publicAgent(record: AgentRecord): Agent {
  const { pin: _pin, ...agent } = record;
  return agent;
}
