import { randomUUID } from 'node:crypto';
import { createAgents } from '../agents';
import { loadConfig } from '../config';
import { checkIntent, InvalidIntentError } from '../purchases/desk';
import { SqlPurchaseStore } from '../purchases/store/sql';
import { newPurchaseRecord, type PurchaseIntent } from '../purchases/types';
import type { Database } from '../records/database';
import { agentSaleIntent, floatAgent } from '../../test/support/agent-sale';
import { testPglite } from '../../test/support/database';
import { buySale } from './buy';
import { ORPHAN_HOLD_GRACE_MS, releaseOrphanHolds } from './orphan-holds';

/**
 * An agent's sale never leaves its float held with no purchase behind it: an intent the desk
 * refuses is refused before the hold; a write that fails after the hold is cleared by the sweep.
 */
let db: Database;
let closeDb: () => Promise<void>;
beforeAll(async () => {
  ({ db, cleanup: closeDb } = await testPglite());
});
afterAll(() => closeDb());

const TOTAL = { currency: 'BWP', minor: 2_150 };
let seq = 0;

async function setUp() {
  const { agents, agent, side } = await floatAgent(db, `2677222000${++seq}`);
  const held = async () => (await agents.float.balance(agent.msisdn))!.heldMinor;
  return { agents, agent, intent: agentSaleIntent(agent.msisdn), held, agentSide: side };
}

/** The real purchase store behind `create`, as the desk writes it. */
const store = () => new SqlPurchaseStore({ db });
const writingDesk = {
  create: async (intent: PurchaseIntent, key: string) => {
    checkIntent(intent);
    const record = newPurchaseRecord({
      id: randomUUID(),
      idempotencyKey: key,
      externalReference: `GW-${key}`,
      intent,
      createdAt: new Date().toISOString(),
    });
    return (await store().create(record)).record;
  },
};

it('refuses an intent the desk would refuse before holding anything', async () => {
  const { intent, held, agentSide } = await setUp();
  await expect(
    buySale({ desk: writingDesk, agentSide }, { ...intent, subscriberIdentifier: ' ' }, 'bad-1', TOTAL),
  ).rejects.toBeInstanceOf(InvalidIntentError);
  expect(await held()).toBe(0);
});

it("releases a hold whose purchase was never written, after the grace, and leaves a sale's hold alone", async () => {
  const { agent, intent, held, agentSide } = await setUp();
  // The purchase's write fails after the hold (the database went away): the hold stays for now.
  const failing = {
    create: async () => {
      throw new Error('Connection terminated unexpectedly');
    },
  };
  await expect(buySale({ desk: failing, agentSide }, intent, `lost-${seq}`, TOTAL)).rejects.toThrow(
    /Connection terminated/,
  );
  // A sale whose purchase was written keeps its hold until it settles.
  await buySale({ desk: writingDesk, agentSide }, intent, `sold-${seq}`, TOTAL);
  expect(await held()).toBe(2 * TOTAL.minor);

  const { float } = createAgents(db, loadConfig({ NODE_ENV: 'test' }));
  // Within the grace the write may still be under way: nothing released.
  expect(await releaseOrphanHolds(db, float, new Date())).toBe(0);
  const later = new Date(Date.now() + ORPHAN_HOLD_GRACE_MS + 60_000);
  expect(await releaseOrphanHolds(db, float, later)).toBe(1);
  expect(await held()).toBe(TOTAL.minor);
  expect(await float.reservation(agent.msisdn, `lost-${seq}`)).toMatchObject({ state: 'released' });
  expect(await float.reservation(agent.msisdn, `sold-${seq}`)).toMatchObject({ state: 'held' });
  // Run again (every sweep): released once.
  expect(await releaseOrphanHolds(db, float, later)).toBe(0);
  expect(await held()).toBe(TOTAL.minor);
});
