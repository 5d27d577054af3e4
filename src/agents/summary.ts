import type { AgentFloat } from './float';
import type { AgentRegistry } from './registry';
import type { Agent } from './types';

/** One agent's day as its summary SMS says it (amounts in minor units of the floats' currency). */
export interface AgentDaySummary {
  msisdn: string;
  day: string;
  /** Its sales and its assistants' that succeeded that day (the amounts sold). */
  sales: { count: number; valueMinor: number };
  commissionMinor: number;
  floatInMinor: number;
  floatOutMinor: number;
  /** Available float after the day's last entry; null: funded by an account of its own. */
  closingMinor: number | null;
}

/**
 * The day's summary of a float owner (an assistant's is its outlet's): sales, commission, float
 * in and out, closing balance. The same figures as the daily report's line for the agent.
 */
export async function agentDaySummary(
  agents: {
    registry: Pick<AgentRegistry, 'linked'>;
    float: Pick<AgentFloat, 'salesOn' | 'dayFigures' | 'today'>;
  },
  agent: Agent,
  day = agents.float.today(),
): Promise<AgentDaySummary> {
  const assistants = await agents.registry.linked('outlet', agent.msisdn);
  const sellers = [agent.msisdn, ...assistants.map((a) => a.msisdn)];
  const [sales, figures] = await Promise.all([
    agents.float.salesOn(sellers, day),
    agents.float.dayFigures(agent.msisdn, day),
  ]);
  return {
    msisdn: agent.msisdn,
    day,
    sales,
    commissionMinor: figures.commissionMinor,
    floatInMinor: figures.floatInMinor,
    floatOutMinor: figures.floatOutMinor,
    closingMinor: agent.funding.kind === 'float' ? figures.closingMinor : null,
  };
}
