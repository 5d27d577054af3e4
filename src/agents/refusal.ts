import type { SpendRefusal } from '../spend/rules';
import { formatMoney } from '../vas/money';
import type { AgentFloat } from './float';

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
