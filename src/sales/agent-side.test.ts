import { newPurchaseRecord, type PurchaseRecord } from '../purchases/types';
import type { Database } from '../records/database';
import { agentSaleIntent, floatAgent } from '../../test/support/agent-sale';
import { testPglite } from '../../test/support/database';

/** An agent's side of a sale with the real registry and float, in the embedded database (PGlite). */
let db: Database;
let closeDb: () => Promise<void>;
beforeAll(async () => {
  ({ db, cleanup: closeDb } = await testPglite());
});
afterAll(() => closeDb());

let seq = 0;
const setUp = () => floatAgent(db, `2677111000${++seq}`);

function sale(key: string, state: PurchaseRecord['state'], msisdn: string): PurchaseRecord {
  return {
    ...newPurchaseRecord({
      id: `p-${key}`,
      idempotencyKey: key,
      externalReference: `GW-${key}`,
      createdAt: new Date().toISOString(),
      intent: agentSaleIntent(msisdn),
    }),
    state,
  };
}

it('a succeeded sale spends its hold, a failed one gives it back, needs_attention keeps it; each once', async () => {
  const { agents, agent, side } = await setUp();
  for (const key of ['ok', 'ko', 'unsure']) await agents.float.reserve(agent, key, 2_150);
  expect(await agents.float.balance(agent.msisdn)).toMatchObject({ availableMinor: 3_550, heldMinor: 6_450 });
  await side.settled(sale('ok', 'succeeded', agent.msisdn));
  await side.settled(sale('ko', 'failed', agent.msisdn));
  await side.settled(sale('unsure', 'needs_attention', agent.msisdn));
  // Run again (a hand-over retried after a crash, the sweep): nothing moves twice.
  await side.settled(sale('ok', 'succeeded', agent.msisdn));
  await side.settled(sale('ko', 'failed', agent.msisdn));
  expect(await agents.float.balance(agent.msisdn)).toMatchObject({ availableMinor: 5_700, heldMinor: 2_150 });
  expect(await side.floatOf(agent.msisdn)).toEqual({
    available: { currency: 'BWP', minor: 5_700 },
    held: { currency: 'BWP', minor: 2_150 },
  });
  const statement = await agents.float.statement(agent.msisdn);
  expect(statement.derivedMinor).toBe(statement.balance.availableMinor);
});

it('a sale is checked, held once and released: refused with the reason when the float or the agent cannot', async () => {
  const { agents, agent, side } = await setUp();
  expect(await side.check(agent.msisdn, 10_001)).toMatchObject({ code: 'agent_insufficient' });
  expect(await side.check(agent, 2_000)).toBeNull();
  expect(await side.hold(agent.msisdn, 'k1', 6_000)).toBeNull();
  expect(await side.hold(agent.msisdn, 'k1', 6_000)).toBeNull(); // the same key: held once
  expect(await side.hold(agent.msisdn, 'k2', 6_000)).toMatchObject({ code: 'agent_insufficient' });
  expect(await agents.float.balance(agent.msisdn)).toMatchObject({ availableMinor: 4_000, heldMinor: 6_000 });
  await side.release(agent.msisdn, 'k1');
  await side.release(agent.msisdn, 'k2'); // nothing held under it: nothing moves
  expect(await agents.float.balance(agent.msisdn)).toMatchObject({ availableMinor: 10_000, heldMinor: 0 });
  await agents.registry.disable(agent.msisdn, 'blocked');
  expect(await side.hold(agent.msisdn, 'k3', 100)).toMatchObject({ code: 'agent_disabled' });
  expect(await side.check('26770000000', 100)).toMatchObject({ code: 'agent_disabled', reason: 'not_agent' });
});
