import { loadConfig } from '../config';
import { newPurchaseRecord, type PurchaseRecord } from '../purchases/types';
import { createAgents } from './index';
import { agentSettlement } from './settlement';

/** The settlement rule with the real registry and float (memory stores). */
async function setUp() {
  const agents = createAgents(undefined, 'test', loadConfig({}));
  const { agent } = await agents.registry.add({
    msisdn: '26771110000',
    name: 'Shop',
    funding: { kind: 'float' },
  });
  await agents.float.credit(agent, { amount: { currency: 'BWP', minor: 10_000 }, reference: 'top-1' });
  return { agents, agent, settlement: agentSettlement(agents) };
}

function sale(key: string, state: PurchaseRecord['state']): PurchaseRecord {
  return {
    ...newPurchaseRecord({
      id: `p-${key}`,
      idempotencyKey: key,
      externalReference: `GW-${key}`,
      createdAt: new Date().toISOString(),
      intent: {
        productType: 'ELECTRICITY',
        providerCode: 'BPC',
        subscriberIdentifier: '01234567890',
        amount: { currency: 'BWP', minor: 2_000 },
        debitedAccountId: 1001,
        beneficiaryMsisdn: '26772220000',
        requesterMsisdn: '26771110000',
        language: 'en-BW',
        channel: 'USSD',
        agent: { msisdn: '26771110000' },
      },
    }),
    state,
  };
}

it('a succeeded sale spends its hold, a failed one gives it back, needs_attention keeps it; each once', async () => {
  const { agents, agent, settlement } = await setUp();
  for (const key of ['ok', 'ko', 'unsure']) await agents.float.reserve(agent, key, 2_150);
  expect(await agents.float.balance(agent.msisdn)).toMatchObject({ availableMinor: 3_550, heldMinor: 6_450 });
  await settlement.settle(sale('ok', 'succeeded'));
  await settlement.settle(sale('ko', 'failed'));
  await settlement.settle(sale('unsure', 'needs_attention'));
  // Run again (a notify retried after a crash): nothing moves twice.
  await settlement.settle(sale('ok', 'succeeded'));
  await settlement.settle(sale('ko', 'failed'));
  expect(await agents.float.balance(agent.msisdn)).toMatchObject({ availableMinor: 5_700, heldMinor: 2_150 });
  expect(await settlement.floatOf(agent.msisdn)).toEqual({ currency: 'BWP', minor: 5_700 });
  const statement = await agents.float.statement(agent.msisdn);
  expect(statement.derivedMinor).toBe(statement.balance.availableMinor);
});
