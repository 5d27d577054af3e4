import { componentLogger, maskMsisdn } from '../observability/logger';
import type { PurchaseRecord } from '../purchases/types';
import type { Money } from '../vas/money';
import type { Agents } from './index';

const log = componentLogger('agents');

/**
 * What the purchase notifier calls for a field agent's sale once it settles: `succeeded` spends
 * the float hold, `failed` (definitive) gives it back, `needs_attention` keeps it until an
 * operator or a re-check decides. Keyed by the purchase's idempotency key, as the hold was.
 */
export function agentSettlement(agents: Pick<Agents, 'registry' | 'float'>) {
  return {
    async settle(record: PurchaseRecord): Promise<void> {
      const msisdn = record.intent.agent?.msisdn;
      if (!msisdn) return;
      if (record.state === 'succeeded') await agents.float.settle(msisdn, record.idempotencyKey);
      else if (record.state === 'failed') await agents.float.release(msisdn, record.idempotencyKey);
      else
        log.warn('agent sale needs attention: its float hold is kept', {
          agent: maskMsisdn(msisdn),
          purchaseId: record.id,
        });
    },
    async floatOf(msisdn: string): Promise<Money | null> {
      const agent = await agents.registry.get(msisdn);
      if (!agent || agent.funding.kind !== 'float') return null;
      return agents.float.money((await agents.float.balance(msisdn)).availableMinor);
    },
  };
}
