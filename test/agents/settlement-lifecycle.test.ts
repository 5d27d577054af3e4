import { createAgents, type Agent, type Agents } from '../../src/agents';
import { agentSettlement } from '../../src/agents/settlement';
import { MemoryOutboxStore, OutboxSender } from '../../src/channels/sms/outbound';
import { loadConfig } from '../../src/config';
import { loadLocales } from '../../src/i18n';
import { createPurchaseDesk, type RunningPurchaseDesk } from '../../src/purchases/desk';
import { createNotifier, InProcessSmsQueue } from '../../src/purchases/notify';
import { InProcessJobQueue } from '../../src/purchases/queue';
import { MemoryPurchaseStore, SETTLED_STATES } from '../../src/purchases/store';
import type { PurchaseIntent, PurchaseRecord } from '../../src/purchases/types';
import { TEST_METERS, startSandbox, type RunningSandbox } from '../../src/sandbox';
import { testRedis } from '../support/redis';
import { until } from '../support/wait';
import { CONFIRM_TIMEOUT_MS, makeService } from '../purchases/harness';

/**
 * An agent's float through the real purchase lifecycle against the sandbox: the float (in
 * Redis, the Lua scripts) holds the total before the purchase is created; the purchase's
 * notifier settles it on success, gives it back on a definitive failure and on a purchase
 * reconciled to failed, and keeps it while the outcome is unknown.
 */

const { redis, prefix, cleanup } = testRedis('agents-settle');
let sandbox: RunningSandbox;
let agents: Agents;
let desk: RunningPurchaseDesk;
let jobs: InProcessJobQueue;
let sms: InProcessSmsQueue;
const outbox = new MemoryOutboxStore();
const store = new MemoryPurchaseStore();
let agent: Agent;
let seq = 0;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
  const config = loadConfig({});
  agents = createAgents(redis, prefix, config);
  sms = new InProcessSmsQueue({ sender: new OutboxSender(outbox) });
  desk = createPurchaseDesk({
    store,
    queue: (jobs = new InProcessJobQueue({ retryDelayMs: 50 })),
    service: makeService(sandbox.url),
    notifier: createNotifier({ queue: sms, locales: loadLocales(), agents: agentSettlement(agents) }),
    config: {
      purchaseApi: { confirmTimeoutMs: CONFIRM_TIMEOUT_MS } as never,
      reconcile: { baseDelayMs: 20, deadlineMs: 20_000 },
    },
    settings: { inFlightMarginMs: 100, maxDelayMs: 200 },
  });
  await desk.startWorker();
  ({ agent } = await agents.registry.add({
    msisdn: '26771119999',
    name: 'Shop',
    funding: { kind: 'float' },
  }));
  await agents.float.credit(agent, { amount: { currency: 'BWP', minor: 100_000 }, reference: 'top-1' });
});
afterAll(async () => {
  desk.stopSweep();
  await jobs.close();
  await sms.close();
  await sandbox.close();
  await cleanup();
});

async function clearFaults(): Promise<void> {
  await fetch(`${sandbox.url}/sandbox/faults`, { method: 'DELETE' });
}
async function fault(body: object): Promise<void> {
  const res = await fetch(`${sandbox.url}/sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
}
afterEach(clearFaults);

/** A sale as the channels make one: the float holds the total, then the purchase is created. */
async function sell(meter: string, totalMinor: number): Promise<{ key: string; record: PurchaseRecord }> {
  const key = `sale-${++seq}`;
  const intent: PurchaseIntent = {
    productType: 'ELECTRICITY',
    providerCode: 'BPC',
    subscriberIdentifier: meter,
    amount: { currency: 'BWP', minor: totalMinor - 150 },
    debitedAccountId: 1001,
    beneficiaryMsisdn: `2677222000${seq}`,
    requesterMsisdn: agent.msisdn,
    language: 'en-BW',
    channel: 'USSD',
    agent: { msisdn: agent.msisdn },
  };
  expect((await agents.float.reserve(agent, key, totalMinor)).status).toBe('reserved');
  return { key, record: await desk.create(intent, key) };
}

function settled(id: string): Promise<PurchaseRecord> {
  return until(`purchase ${id} settled and handed over`, async () => {
    const record = await store.get(id);
    return record && SETTLED_STATES.includes(record.state) && record.notifiedAt !== null ? record : null;
  });
}

async function expectBalanced(): Promise<void> {
  const statement = await agents.float.statement(agent.msisdn);
  expect(statement.derivedMinor).toBe(statement.balance.availableMinor);
  expect(statement.balance.availableMinor).toBeGreaterThanOrEqual(0);
}

it('a success spends the hold once: the float keeps the total taken', async () => {
  const before = await agents.float.balance(agent.msisdn);
  const { key, record } = await sell(TEST_METERS.active, 2_150);
  expect((await settled(record.id)).state).toBe('succeeded');
  await until('the hold settled', async () =>
    (await agents.float.reservation(agent.msisdn, key))?.state === 'settled' ? true : null,
  );
  expect(await agents.float.balance(agent.msisdn)).toMatchObject({
    availableMinor: before.availableMinor - 2_150,
    heldMinor: 0,
  });
  await expectBalanced();
});

it('a purchase that fails definitively gives the hold back, and the agent is told', async () => {
  const before = await agents.float.balance(agent.msisdn);
  const { key, record } = await sell(TEST_METERS.blocked, 1_150);
  expect(await agents.float.balance(agent.msisdn)).toMatchObject({
    availableMinor: before.availableMinor - 1_150,
  });
  const done = await settled(record.id);
  expect(done.state).toBe('failed');
  await until('the hold released', async () =>
    (await agents.float.reservation(agent.msisdn, key))?.state === 'released' ? true : null,
  );
  expect(await agents.float.balance(agent.msisdn)).toMatchObject({
    availableMinor: before.availableMinor,
    heldMinor: 0,
  });
  const told = await until('the agent told', async () => {
    const messages = await outbox.list({ to: agent.msisdn });
    return messages.find((m) => m.purchaseId === record.id) ?? null;
  });
  expect(told.message).toMatch(/failed: .*The float was given back\./);
  await expectBalanced();
});

it('an unknown outcome keeps the hold while it is reconciled; reconciled to failed, it is given back', async () => {
  const before = await agents.float.balance(agent.msisdn);
  // The confirm never reaches the provider (5xx: unknown), and retry cannot answer for a while.
  await fault({ endpoint: 'confirm', fault: 'provider_unavailable', completes: false });
  await fault({ endpoint: 'retry', fault: 'provider_unavailable', count: 10_000 });
  const { key, record } = await sell(TEST_METERS.active, 3_150);
  const reconciling = await until('the purchase reconciling', async () => {
    const r = await store.get(record.id);
    return r && r.state === 'reconciling' && r.reconcileAttempts >= 2 ? r : null;
  });
  expect(reconciling.state).toBe('reconciling');
  expect(await agents.float.reservation(agent.msisdn, key)).toMatchObject({
    state: 'held',
    amountMinor: 3_150,
  });
  expect(await agents.float.balance(agent.msisdn)).toMatchObject({
    availableMinor: before.availableMinor - 3_150,
    heldMinor: 3_150,
  });

  // Retry answers again: the provider failed it (nothing charged) → failed.
  await clearFaults();
  const done = await settled(record.id);
  expect(done.state).toBe('failed');
  expect(done.failure).toMatchObject({ charged: false });
  await until('the hold released', async () =>
    (await agents.float.reservation(agent.msisdn, key))?.state === 'released' ? true : null,
  );
  expect(await agents.float.balance(agent.msisdn)).toMatchObject({
    availableMinor: before.availableMinor,
    heldMinor: 0,
  });
  await expectBalanced();
});
