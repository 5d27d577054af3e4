import { createAgents } from '../../src/agents';
import { loadConfig } from '../../src/config';
import type { PurchaseIntent } from '../../src/purchases/types';
import type { Database } from '../../src/records/database';
import { AgentSide } from '../../src/sales/agent-side';

/** A float agent (`msisdn`) with 100.00 BWP on its float, and the agent side a sale goes through. */
export async function floatAgent(db: Database, msisdn: string) {
  const agents = createAgents(db, loadConfig({ NODE_ENV: 'test' }));
  const { agent } = await agents.registry.add({ msisdn, name: 'Shop', funding: { kind: 'float' } });
  await agents.float.credit(agent, {
    amount: { currency: 'BWP', minor: 10_000 },
    reference: `top-${msisdn}`,
  });
  return { agents, agent, side: new AgentSide(agents, 'Africa/Gaborone') };
}

/** 20.00 BWP of electricity that the agent `agentMsisdn` sells to a customer over USSD. */
export function agentSaleIntent(agentMsisdn: string): PurchaseIntent {
  return {
    productType: 'ELECTRICITY',
    providerCode: 'BPC',
    subscriberIdentifier: '01234567890',
    amount: { currency: 'BWP', minor: 2_000 },
    debitedAccountId: 1001,
    beneficiaryMsisdn: '26772220000',
    requesterMsisdn: agentMsisdn,
    language: 'en-BW',
    channel: 'USSD',
    agent: { msisdn: agentMsisdn },
  };
}
