import { createAgents, type Agent, type Agents } from '../../src/agents';
import { InProcessSmsQueue, MemoryOutboxStore, OutboxSender, SqlMessageStore } from '../../src/messaging';
import { loadConfig } from '../../src/config';
import { loadLocales } from '../../src/i18n';
import { CareInputError, CustomerCare } from '../../src/purchases/care/care';
import { SqlAuditTrail } from '../../src/purchases/care/audit-sql';
import { createPurchaseDesk, type RunningPurchaseDesk } from '../../src/purchases/desk';
import { createNotifier } from '../../src/purchases/notify';
import { InProcessJobQueue } from '../../src/queue';
import { SETTLED_STATES, SqlPurchaseStore } from '../../src/purchases/store';
import { AgentSide } from '../../src/sales/agent-side';
import { releaseOrphanHolds } from '../../src/sales/orphan-holds';
import type { PurchaseIntent, PurchaseRecord } from '../../src/purchases/types';
import { SANDBOX_ACCOUNTS, TEST_METERS, startSandbox, type RunningSandbox } from '../../src/sandbox';
import type { Database } from '../../src/records/database';
import { testDatabase } from '../support/database';
import { until } from '../support/wait';
import { CONFIRM_TIMEOUT_MS, makeService } from '../purchases/harness';

/**
 * An agent's float through the real purchase lifecycle against the sandbox, the purchases and
 * the float in the records (a PostgreSQL test schema): the float holds the total before the
 * purchase is created; the lifecycle settles it on success, gives it back on a definitive failure
 * and on a purchase reconciled to failed, and keeps it while the outcome is unknown — also when
 * no notifier is wired (no SMS is ever composed).
 */

let db: Database;
let cleanup: () => Promise<void>;
let store: SqlPurchaseStore;
let sandbox: RunningSandbox;
let agents: Agents;
let desk: RunningPurchaseDesk;
let jobs: InProcessJobQueue;
let sms: InProcessSmsQueue;
const outbox = new MemoryOutboxStore();
let agent: Agent;
let seq = 0;
const lifecycleConfig = {
  purchaseApi: { confirmTimeoutMs: CONFIRM_TIMEOUT_MS },
  reconcile: { baseDelayMs: 20, deadlineMs: 20_000 },
};

beforeAll(async () => {
  ({ db, cleanup } = await testDatabase('agents_settle'));
  store = new SqlPurchaseStore({ db });
  sandbox = await startSandbox({ port: 0, silent: true });
  const config = loadConfig({ NODE_ENV: 'test' });
  agents = createAgents(db, config);
  const agentSide = new AgentSide(agents, config.timeZone);
  sms = new InProcessSmsQueue({ sender: new OutboxSender(outbox), store: new SqlMessageStore(db) });
  desk = createPurchaseDesk({
    store,
    queue: (jobs = new InProcessJobQueue({ retryDelayMs: 50 })),
    service: makeService(sandbox.url),
    settlement: agentSide,
    notifier: createNotifier({
      queue: sms,
      locales: loadLocales(),
      floatOf: async (msisdn) => (await agentSide.floatOf(msisdn))?.available ?? null,
    }),
    config: lifecycleConfig,
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
async function sell(
  meter: string,
  totalMinor: number,
  on: RunningPurchaseDesk = desk,
  debitedAccountId = 1001,
): Promise<{ key: string; record: PurchaseRecord }> {
  const key = `sale-${++seq}`;
  const intent: PurchaseIntent = {
    productType: 'ELECTRICITY',
    providerCode: 'BPC',
    subscriberIdentifier: meter,
    amount: { currency: 'BWP', minor: totalMinor - 150 },
    debitedAccountId,
    beneficiaryMsisdn: `2677222000${seq}`,
    requesterMsisdn: agent.msisdn,
    language: 'en-BW',
    channel: 'USSD',
    agent: { msisdn: agent.msisdn },
  };
  expect((await agents.float.reserve(agent, key, totalMinor)).status).toBe('reserved');
  return { key, record: await on.create(intent, key) };
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

describe('no notifier wired', () => {
  let quiet: RunningPurchaseDesk;
  let quietJobs: InProcessJobQueue;
  beforeAll(async () => {
    quiet = createPurchaseDesk({
      store,
      queue: (quietJobs = new InProcessJobQueue({ retryDelayMs: 50 })),
      service: makeService(sandbox.url),
      settlement: new AgentSide(agents, 'Africa/Gaborone'),
      config: lifecycleConfig,
      settings: { inFlightMarginMs: 100, maxDelayMs: 200 },
    });
    await quiet.startWorker();
  });
  afterAll(() => quietJobs.close());

  it('the purchase lifecycle settles the float: a success spends the hold, a failure gives it back', async () => {
    const before = await agents.float.balance(agent.msisdn);
    const ok = await sell(TEST_METERS.active, 2_150, quiet);
    const ko = await sell(TEST_METERS.blocked, 1_150, quiet);
    for (const [sale, state] of [
      [ok, 'settled'],
      [ko, 'released'],
    ] as const)
      await until(`the hold ${state}`, async () =>
        (await agents.float.reservation(agent.msisdn, sale.key))?.state === state ? true : null,
      );
    expect((await store.get(ok.record.id))?.state).toBe('succeeded');
    expect((await store.get(ko.record.id))?.state).toBe('failed');
    expect(await agents.float.balance(agent.msisdn)).toMatchObject({
      availableMinor: before.availableMinor - 2_150,
      heldMinor: 0,
    });
    // Nobody was told: no SMS was ever composed for them.
    expect(await outbox.list({ to: agent.msisdn })).not.toContainEqual(
      expect.objectContaining({ purchaseId: ok.record.id }),
    );
    await expectBalanced();
  });
});

describe('an agent sale care resolved', () => {
  let careDesk: RunningPurchaseDesk;
  let careJobs: InProcessJobQueue;
  let care: CustomerCare;
  let audit: SqlAuditTrail;
  beforeAll(async () => {
    careDesk = createPurchaseDesk({
      store,
      queue: (careJobs = new InProcessJobQueue({ retryDelayMs: 50 })),
      service: makeService(sandbox.url),
      settlement: new AgentSide(agents, 'Africa/Gaborone'),
      // Reconciled for a moment only: the sale needs attention soon.
      config: { ...lifecycleConfig, reconcile: { baseDelayMs: 20, deadlineMs: 300 } },
      settings: { inFlightMarginMs: 100, maxDelayMs: 200 },
    });
    await careDesk.startWorker();
    audit = new SqlAuditTrail(db);
    care = new CustomerCare({ store, lifecycle: careDesk.lifecycle, audit, region: 'BW' });
  });
  afterAll(() => careJobs.close());

  /** A sale whose confirm never reached the provider and that retry cannot answer: needs attention. */
  async function stuckSale(totalMinor: number): Promise<{ key: string; record: PurchaseRecord }> {
    await fault({ endpoint: 'confirm', fault: 'provider_unavailable', completes: false });
    await fault({ endpoint: 'retry', fault: 'provider_unavailable', count: 10_000 });
    const { key, record } = await sell(TEST_METERS.active, totalMinor, careDesk);
    const stuck = await until('the sale needs attention', async () => {
      const r = await store.get(record.id);
      return r?.state === 'needs_attention' ? r : null;
    });
    await clearFaults();
    expect(await agents.float.reservation(agent.msisdn, key)).toMatchObject({ state: 'held' });
    return { key, record: stuck };
  }

  /** Retention deletes every retained record (a clock years ahead), then the orphan-hold sweep runs. */
  async function yearsLater(): Promise<number> {
    const later = new Date(Date.now() + 10 * 365 * 24 * 3600_000);
    await new SqlPurchaseStore({ db, retentionMs: 1, clock: () => later }).purgeExpired();
    return releaseOrphanHolds(db, agents.float, later);
  }

  it('resolved as sold: the hold is spent at once, and retention later gives nothing back', async () => {
    const before = await agents.float.balance(agent.msisdn);
    const { key, record } = await stuckSale(2_150);
    const resolved = await care.resolve(record.id, 'token read out to the agent', 'care:ann', 'sold');
    expect(resolved).toMatchObject({ state: 'resolved', resolution: { by: 'care:ann', outcome: 'sold' } });
    // At once, not by a later sweep.
    expect(await agents.float.reservation(agent.msisdn, key)).toMatchObject({ state: 'settled' });
    expect(await agents.float.balance(agent.msisdn)).toMatchObject({
      availableMinor: before.availableMinor - 2_150,
      heldMinor: 0,
    });
    expect(await care.trail({ purchaseId: record.id })).toContainEqual(
      expect.objectContaining({
        action: 'resolve',
        actor: 'care:ann',
        detail: expect.stringContaining('outcome sold: the agent float hold is spent'),
      }),
    );

    expect(await yearsLater()).toBe(0);
    expect(await store.get(record.id)).toBeNull();
    expect(await agents.float.reservation(agent.msisdn, key)).toMatchObject({ state: 'settled' });
    expect((await agents.float.balance(agent.msisdn)).availableMinor).toBe(before.availableMinor - 2_150);
    await expectBalanced();
  });

  it('resolved as not sold: the hold is given back once', async () => {
    const before = await agents.float.balance(agent.msisdn);
    const { key, record } = await stuckSale(1_150);
    // An agent's sale is never resolved without saying which: nothing changes.
    await expect(care.resolve(record.id, 'looked at it', 'care:ann')).rejects.toThrow(CareInputError);
    expect((await store.get(record.id))?.state).toBe('needs_attention');
    expect(await agents.float.reservation(agent.msisdn, key)).toMatchObject({ state: 'held' });

    await care.resolve(record.id, 'no token was issued', 'care:ann', 'not_sold');
    expect(await agents.float.reservation(agent.msisdn, key)).toMatchObject({ state: 'released' });
    expect(await agents.float.balance(agent.msisdn)).toMatchObject({
      availableMinor: before.availableMinor,
      heldMinor: 0,
    });
    expect(await care.trail({ purchaseId: record.id })).toContainEqual(
      expect.objectContaining({
        detail: expect.stringContaining('outcome not_sold: the agent float hold is given back'),
      }),
    );

    expect(await yearsLater()).toBe(0);
    expect(await agents.float.balance(agent.msisdn)).toMatchObject({
      availableMinor: before.availableMinor,
      heldMinor: 0,
    });
    const statement = await agents.float.statement(agent.msisdn);
    expect(statement.entries.filter((e) => e.purchaseKey === key && e.kind === 'release')).toHaveLength(1);
    await expectBalanced();
  });
});

describe('a managed-retry debit account (the service retries a failure itself)', () => {
  const WINDOW_MS = 1500;
  let managed: RunningPurchaseDesk;
  let managedJobs: InProcessJobQueue;
  beforeAll(async () => {
    const agentSide = new AgentSide(agents, 'Africa/Gaborone');
    managed = createPurchaseDesk({
      store,
      queue: (managedJobs = new InProcessJobQueue({ retryDelayMs: 50 })),
      service: makeService(sandbox.url),
      settlement: agentSide,
      notifier: createNotifier({
        queue: sms,
        locales: loadLocales(),
        floatOf: async (msisdn) => (await agentSide.floatOf(msisdn))?.available ?? null,
      }),
      config: {
        ...lifecycleConfig,
        reconcile: {
          ...lifecycleConfig.reconcile,
          managedRetryAccountIds: [SANDBOX_ACCOUNTS.managedRetry],
          managedRetryWindowMs: WINDOW_MS,
        },
      },
      settings: { inFlightMarginMs: 100, maxDelayMs: 200 },
    });
    await managed.startWorker();
  });
  afterAll(() => managedJobs.close());

  it("a refused confirm keeps the agent's hold through the window, then needs attention: never released", async () => {
    const before = await agents.float.balance(agent.msisdn);
    // The blocked meter: confirm answers 422 meter_blocked, a refusal that would release the hold.
    const { key, record } = await sell(TEST_METERS.blocked, 1_150, managed, SANDBOX_ACCOUNTS.managedRetry);
    const done = await until(
      'the purchase handed to a person',
      async () => {
        const r = await store.get(record.id);
        expect(r?.state).not.toBe('failed');
        // Held the whole time: the service may still sell it.
        expect((await agents.float.reservation(agent.msisdn, key))?.state).toBe('held');
        // Handed over: its settlement ran before the note (notifiedAt).
        return r?.state === 'needs_attention' && r.notifiedAt !== null ? r : null;
      },
      { timeoutMs: 15_000 },
    );
    expect(Date.parse(done.managedRetryUntil!) - Date.parse(done.confirmSentAt!)).toBe(WINDOW_MS);
    expect(Date.parse(done.settledAt!)).toBeGreaterThanOrEqual(Date.parse(done.managedRetryUntil!));
    expect(done.failure).toMatchObject({ code: 'retries_disabled', charged: 'unknown' });
    expect(await agents.float.reservation(agent.msisdn, key)).toMatchObject({
      state: 'held',
      amountMinor: 1_150,
    });
    expect(await agents.float.balance(agent.msisdn)).toMatchObject({
      availableMinor: before.availableMinor - 1_150,
      heldMinor: before.heldMinor + 1_150,
    });
    await expectBalanced();
  });
});
