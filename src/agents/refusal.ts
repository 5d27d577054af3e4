import type { SpendRefusal } from '../spend/rules';
import { formatMoney } from '../vas/money';
import type { AgentFloat } from './float';
import type { Agent } from './types';

/**
 * An agent that may no longer sell (disabled by an operator, lockouts or its own BLOCK; locked
 * by wrong PINs; gone from the registry) as the refusal that says so, or null for an active
 * one. The sale's screens then tell the agent what happened, as the SMS path does, never the
 * blocklist's text. `localTime` words the end of a lockout in the operator's time zone.
 */
export function accountRefusalOf(
  agent: Pick<Agent, 'status' | 'disabledReason' | 'lockedUntil'> | null,
  localTime: (at: Date) => string,
): SpendRefusal | null {
  if (!agent) return { code: 'agent_disabled', reason: 'not_agent' };
  if (agent.status === 'disabled')
    return { code: 'agent_disabled', reason: agent.disabledReason ?? 'operator' };
  if (agent.status === 'locked')
    return { code: 'agent_locked', until: agent.lockedUntil ? localTime(new Date(agent.lockedUntil)) : '' };
  return null;
}

/**
 * A sale the agent's float or limits refuse (from `checkSale` or `reserve`), as the spending
 * refusal every channel words the same way (`spend.agentInsufficient`, `spend.agentOverLimit`).
 */
export function saleRefusalOf(
  float: Pick<AgentFloat, 'money'>,
  refused: {
    reason?: string;
    status?: string;
    availableMinor?: number;
    limit?: string;
    limitValue?: number;
  } | null,
): SpendRefusal | null {
  if (!refused) return null;
  if (refused.reason === 'insufficient' || refused.status === 'insufficient')
    return { code: 'agent_insufficient', available: float.money(refused.availableMinor ?? 0) };
  if (refused.reason !== 'over_limit' && refused.status !== 'over_limit') return null;
  const value =
    refused.limit === 'day_count'
      ? String(refused.limitValue ?? 0)
      : formatMoney(float.money(refused.limitValue ?? 0));
  return { code: 'agent_over_limit', limit: (refused.limit ?? '').replace('_', ' '), value };
}
