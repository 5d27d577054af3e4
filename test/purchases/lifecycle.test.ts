import { randomUUID } from 'node:crypto';
import { SANDBOX_ACCOUNTS, TEST_METERS } from '../../src/sandbox';
import { confirmRequest } from '../../src/purchases/request';
import { TransportError } from '../../src/vas/errors';
import type { PurchaseService } from '../../src/vas/port';
import { intent, record as makeRecord } from './fixtures';
import { startHarness, type Harness, type Mode } from './harness';

/**
 * The lifecycle end to end: real sandbox over HTTP, the real client, both queue
 * implementations (BullMQ + Redis store, in-process + memory store). Every test checks the
 * sandbox ledger: never more than one transaction per external reference.
 */

const bwp = (units: number) => ({ currency: 'BWP', minor: units * 100 });

interface ScenarioCase {
  scenario: string;
  meter: string;
  amount: number;
  state: 'succeeded' | 'failed';
  code?: string;
}

const SCENARIOS: ScenarioCase[] = [
  { scenario: '1', meter: TEST_METERS.active, amount: 100, state: 'succeeded' },
  { scenario: '1a', meter: TEST_METERS.tariffCharge, amount: 100, state: 'succeeded' },
  { scenario: '1b', meter: TEST_METERS.subAccountSplit, amount: 100, state: 'succeeded' },
  { scenario: '1c', meter: TEST_METERS.active13, amount: 100, state: 'succeeded' },
  { scenario: '2', meter: TEST_METERS.blocked, amount: 100, state: 'failed', code: 'meter_blocked' },
  {
    scenario: '2a',
    meter: TEST_METERS.purchasesBlocked,
    amount: 100,
    state: 'failed',
    code: 'meter_blocked',
  },
  { scenario: '2b', meter: TEST_METERS.debtFirst, amount: 100, state: 'failed', code: 'provider_error' },
  { scenario: '2c', meter: TEST_METERS.accountBlock, amount: 100, state: 'failed', code: 'provider_error' },
  { scenario: '2d', meter: TEST_METERS.notFound, amount: 100, state: 'failed', code: 'meter_not_found' },
  { scenario: '3', meter: TEST_METERS.autoKeyChange, amount: 1500, state: 'succeeded' },
  {
    scenario: '4',
    meter: TEST_METERS.fixedCharge,
    amount: 900,
    state: 'failed',
    code: 'amount_below_minimum',
  },
  { scenario: '5', meter: TEST_METERS.fixedCharge, amount: 1500, state: 'succeeded' },
  {
    scenario: '7',
    meter: TEST_METERS.maxVend,
    amount: 100_001,
    state: 'failed',
    code: 'amount_above_maximum',
  },
];

/** Fails the first confirm as "connection refused" (nothing sent), then lets the real client through. */
function refuseFirstConfirm(service: PurchaseService): PurchaseService & { refused: number } {
  const wrapped = Object.create(service) as PurchaseService & { refused: number };
  wrapped.refused = 0;
  wrapped.confirm = async (request, ctx) => {
    if (wrapped.refused === 0) {
      wrapped.refused += 1;
      throw new TransportError('not_sent', 'connect ECONNREFUSED (test)', ctx.requestId);
    }
    return service.confirm(request, ctx);
  };
  return wrapped;
}

describe.each<Mode>(['in-process', 'bullmq'])('purchase lifecycle (%s queue)', (mode) => {
  let h: Harness;
  let refusing: ReturnType<typeof refuseFirstConfirm> | undefined;

  beforeAll(async () => {
    h = await startHarness(mode, (service) => (refusing = refuseFirstConfirm(service)));
    refusing!.refused = 1; // only the dedicated test below arms the refusal
  });
  afterAll(() => h.close());
  afterEach(() => h.clearFaults());

  const key = () => `test:${randomUUID()}`;

  it.each(SCENARIOS)('scenario $scenario settles $state $code, confirmed once', async (c) => {
    const created = await h.desk.create(
      intent({ subscriberIdentifier: c.meter, amount: bwp(c.amount) }),
      key(),
    );
    expect(created.state).toBe('created');
    expect(created.externalReference).toMatch(/^GW-\d{8}-[A-Z2-7]{16}$/);
    const done = await h.settled(created.id);
    expect(done.state).toBe(c.state);
    const ledger = await h.ledger(created.externalReference);
    expect(ledger.length).toBeLessThanOrEqual(1);
    if (c.state === 'succeeded') {
      expect(ledger).toHaveLength(1);
      expect(ledger[0].debited_minor).toBeGreaterThan(0);
      expect(done.result?.rawToken).toBe(ledger[0].token);
      expect(done.confirmAttempts).toBe(1);
    } else {
      expect(done.failure).toEqual(expect.objectContaining({ code: c.code, charged: false }));
      expect(ledger.filter((r) => r.debited_minor > 0)).toHaveLength(0);
    }
    expect(h.notifier.for(created.id)).toEqual([
      expect.objectContaining({ reason: 'settled', requestKey: `settled:${created.id}` }),
    ]);
  });

  it('delayed meter: confirm times out → unknown → reconciling → succeeded with the original token, one debit', async () => {
    const created = await h.desk.create(
      intent({ subscriberIdentifier: TEST_METERS.delayed, amount: bwp(100) }),
      key(),
    );
    const done = await h.settled(created.id);
    expect(done.state).toBe('succeeded');
    expect(done.reconcileAttempts).toBeGreaterThanOrEqual(1);
    expect(done.confirmAttempts).toBe(1);
    const ledger = await h.ledger(created.externalReference);
    expect(ledger).toHaveLength(1);
    expect(ledger[0].status).toBe('SUCCESSFUL');
    expect(done.result?.rawToken).toBe(ledger[0].token);
    expect(done.result?.transactionId).toBe(ledger[0].id);
  });

  it('the same intent created twice concurrently gives one record and one confirm', async () => {
    const k = key();
    const i = intent({ amount: bwp(55) });
    const [a, b] = await Promise.all([h.desk.create(i, k), h.desk.create(i, k)]);
    expect(a.id).toBe(b.id);
    const done = await h.settled(a.id);
    expect(done.state).toBe('succeeded');
    const again = await h.desk.create(i, k);
    expect(again.id).toBe(a.id);
    expect(again.state).toBe('succeeded');
    expect(await h.ledger(a.externalReference)).toHaveLength(1);
    expect(h.notifier.for(a.id)).toHaveLength(1);
  });

  it('a confirm job run three times at once confirms once', async () => {
    const r = makeRecord({ intent: intent({ amount: bwp(42) }) });
    await h.store.create(r);
    await Promise.all([
      h.desk.lifecycle.runConfirm(r.id),
      h.desk.lifecycle.runConfirm(r.id),
      h.desk.lifecycle.runConfirm(r.id),
    ]);
    const done = await h.settled(r.id);
    expect(done.state).toBe('succeeded');
    expect(await h.ledger(r.externalReference)).toHaveLength(1);
  });

  it('a stale confirm job (earlier attempt) leaves a live confirm alone; the job that sent it, re-run, marks it lost', async () => {
    const r = makeRecord({ intent: intent({ amount: bwp(48) }) });
    await h.store.create({
      ...r,
      state: 'confirming',
      version: 3,
      confirmAttempts: 2,
      confirmSentAt: new Date().toISOString(),
    });
    await h.desk.lifecycle.handle({ kind: 'confirm', purchaseId: r.id, attempt: 0 });
    expect(await h.store.get(r.id)).toEqual(expect.objectContaining({ state: 'confirming', version: 3 }));
    await h.desk.lifecycle.handle({ kind: 'confirm', purchaseId: r.id, attempt: 1 });
    const lost = await h.store.get(r.id);
    expect(lost?.state).not.toBe('confirming');
    expect(lost?.confirmAttempts).toBe(2);
    await h.settled(r.id);
    expect(await h.ledger(r.externalReference)).toHaveLength(0);
  });

  it('a stale confirm job meeting `created` does not send before the due attempt (backoff, Retry-After)', async () => {
    const r = makeRecord({ intent: intent({ amount: bwp(49) }) });
    await h.store.create({
      ...r,
      version: 3,
      confirmAttempts: 1,
      nextAttemptAt: new Date(Date.now() + 60 * 60_000).toISOString(),
    });
    await h.desk.lifecycle.handle({ kind: 'confirm', purchaseId: r.id, attempt: 0 });
    expect(await h.store.get(r.id)).toEqual(expect.objectContaining({ state: 'created', version: 3 }));
    expect(await h.ledger(r.externalReference)).toHaveLength(0);
  });

  it('not_sent on confirm: the attempt is persisted as not sent, then confirm is sent again, once', async () => {
    refusing!.refused = 0;
    const created = await h.desk.create(intent({ amount: bwp(43) }), key());
    const done = await h.settled(created.id);
    expect(refusing!.refused).toBe(1);
    expect(done.state).toBe('succeeded');
    expect(done.confirmAttempts).toBe(2);
    expect(await h.ledger(created.externalReference)).toHaveLength(1);
  });

  it('crash while confirming after the sandbox debited: resume reconciles, never re-confirms', async () => {
    const r = makeRecord({ intent: intent({ amount: bwp(61) }) });
    const tx = await h.service.confirm(confirmRequest(r), { requestId: `test-${r.id}` });
    expect(tx.status).toBe('SUCCESSFUL');
    await h.store.create({
      ...r,
      state: 'confirming',
      version: 2,
      confirmAttempts: 1,
      confirmSentAt: new Date().toISOString(),
    });
    await h.desk.resumeStuck();
    const done = await h.settled(r.id);
    expect(done.state).toBe('succeeded');
    expect(done.result?.rawToken).toBe(tx.rawToken);
    expect(done.confirmAttempts).toBe(1);
    expect(await h.ledger(r.externalReference)).toHaveLength(1);
  });

  it('crash while confirming before anything reached the sandbox: reconciled to failed, not charged, never confirmed', async () => {
    const r = makeRecord({ intent: intent({ amount: bwp(62) }) });
    const sentAt = new Date(Date.now() - 10_000).toISOString();
    await h.store.create({
      ...r,
      state: 'confirming',
      version: 2,
      confirmAttempts: 1,
      confirmSentAt: sentAt,
    });
    await h.desk.resumeStuck();
    const done = await h.settled(r.id);
    expect(done.state).toBe('failed');
    expect(done.failure).toEqual(expect.objectContaining({ code: 'transaction_not_found', charged: false }));
    expect(done.notFoundCount).toBeGreaterThanOrEqual(2);
    expect(await h.ledger(r.externalReference)).toHaveLength(0);
  });

  it('provider_timeout on confirm that completed: reconciled success, one debit', async () => {
    await h.fault({ endpoint: 'confirm', fault: 'provider_timeout', completes: true });
    const created = await h.desk.create(intent({ amount: bwp(44) }), key());
    const done = await h.settled(created.id);
    expect(done.state).toBe('succeeded');
    expect(done.reconcileAttempts).toBeGreaterThanOrEqual(1);
    const ledger = await h.ledger(created.externalReference);
    expect(ledger.filter((row) => row.debited_minor > 0)).toHaveLength(1);
    expect(ledger).toHaveLength(1);
    expect(done.result?.rawToken).toBe(ledger[0].token);
  });

  it('provider_unavailable on confirm: a 5xx leaves it unknown; retry proves the failure, not charged', async () => {
    await h.fault({ endpoint: 'confirm', fault: 'provider_unavailable' });
    const created = await h.desk.create(intent({ amount: bwp(45) }), key());
    const done = await h.settled(created.id);
    expect(done.state).toBe('failed');
    expect(done.reconcileAttempts).toBeGreaterThanOrEqual(1);
    expect(done.failure).toEqual(expect.objectContaining({ code: 'provider_error', charged: false }));
    const ledger = await h.ledger(created.externalReference);
    expect(ledger.length).toBeLessThanOrEqual(1);
    expect(ledger.filter((row) => row.debited_minor > 0)).toHaveLength(0);
  });

  it('provider_unavailable (502) on a confirm that was debited: reconciled success, never "not charged"', async () => {
    await h.fault({ endpoint: 'confirm', fault: 'provider_unavailable', completes: true });
    const created = await h.desk.create(intent({ amount: bwp(47) }), key());
    const done = await h.settled(created.id);
    const ledger = await h.ledger(created.externalReference);
    expect(ledger.filter((row) => row.debited_minor > 0)).toHaveLength(1);
    expect(done.state).toBe('succeeded');
    expect(done.failure).toBeNull();
    expect(done.result?.rawToken).toBe(ledger[0].token);
  });

  it('connection dropped after the purchase completed: unknown → succeeded, one debit', async () => {
    await h.fault({ endpoint: 'confirm', fault: 'drop', completes: true });
    const created = await h.desk.create(intent({ amount: bwp(46) }), key());
    const done = await h.settled(created.id);
    expect(done.state).toBe('succeeded');
    expect(done.reconcileAttempts).toBeGreaterThanOrEqual(1);
    expect(await h.ledger(created.externalReference)).toHaveLength(1);
  });

  it('connection dropped before anything happened: transaction_not_found repeats past the in-flight window → failed, not charged', async () => {
    await h.fault({ endpoint: 'confirm', fault: 'drop', completes: false });
    const created = await h.desk.create(intent({ amount: bwp(47) }), key());
    const done = await h.settled(created.id);
    expect(done.state).toBe('failed');
    expect(done.failure).toEqual(expect.objectContaining({ code: 'transaction_not_found', charged: false }));
    expect(done.notFoundCount).toBeGreaterThanOrEqual(2);
    // not before the original confirm could have been answered
    expect(Date.parse(done.settledAt!) - Date.parse(done.confirmSentAt!)).toBeGreaterThan(
      h.desk.lifecycle.settings.confirmTimeoutMs,
    );
    expect(await h.ledger(created.externalReference)).toHaveLength(0);
  });

  it('retries_disabled (managed-retry account) after an ambiguous confirm → needs_attention with everything known', async () => {
    await h.fault({ endpoint: 'confirm', fault: 'provider_timeout', completes: true });
    const created = await h.desk.create(
      intent({ amount: bwp(48), debitedAccountId: SANDBOX_ACCOUNTS.managedRetry }),
      key(),
    );
    const done = await h.settled(created.id);
    // The service owns the outcome and will not tell it: an operator must, so it is never left silent.
    expect(done.state).toBe('needs_attention');
    expect(done.lastError?.code).toBe('retries_disabled');
    expect(done.failure).toMatchObject({ code: 'retries_disabled', charged: 'unknown' });
    expect(done.failure?.message).toMatch(/managed-retry mode/);
    expect(done.recheckUntil).not.toBeNull();
    expect(await h.ledger(created.externalReference)).toHaveLength(1);
    expect(h.notifier.for(created.id)).toHaveLength(1);
  });

  it('reconcile past its deadline → needs_attention (charged unknown), never re-confirmed', async () => {
    await h.fault({ endpoint: 'retry', fault: 'internal_error', count: 50 });
    const past = new Date(Date.now() - 60_000).toISOString();
    const r = makeRecord({ intent: intent({ amount: bwp(49) }) });
    await h.store.create({
      ...r,
      state: 'unknown',
      version: 3,
      confirmAttempts: 1,
      confirmSentAt: past,
      reconcileDeadlineAt: new Date(Date.now() - 1000).toISOString(),
    });
    await h.desk.resumeStuck();
    const done = await h.settled(r.id);
    expect(done.state).toBe('needs_attention');
    expect(done.failure).toEqual(expect.objectContaining({ charged: 'unknown' }));
    expect(await h.ledger(r.externalReference)).toHaveLength(0);
  });

  it('settled but not handed over (crash before notify): resume hands it over once; resend is separate', async () => {
    const r = makeRecord({ intent: intent({ amount: bwp(50) }), state: 'confirming', version: 2 });
    await h.store.create(r);
    const settled = await h.store.transition(r.id, ['confirming'], 'failed', 2, {
      failure: { code: 'meter_blocked', message: 'blocked', charged: false },
      settledAt: new Date().toISOString(),
    });
    expect(settled.ok).toBe(true);
    await h.desk.resumeStuck();
    const done = await h.settled(r.id);
    expect(done.notifications).toEqual([`settled:${r.id}`]);
    await h.desk.resumeStuck();
    expect(h.notifier.for(r.id)).toHaveLength(1);
    await h.desk.resendSms(r.id, 'resend:1');
    expect(h.notifier.for(r.id).map((c) => c.reason)).toEqual(['settled', 'resend']);
  });

  it('lists by MSISDN (beneficiary or requester) and by state', async () => {
    const agent = '26779990000';
    const customer = '26779990001';
    const created = await h.desk.create(
      intent({ amount: bwp(51), requesterMsisdn: agent, beneficiaryMsisdn: customer }),
      key(),
    );
    await h.settled(created.id);
    expect((await h.desk.listByMsisdn(agent)).map((p) => p.id)).toEqual([created.id]);
    expect((await h.desk.listByMsisdn(customer, { state: 'succeeded' })).map((p) => p.id)).toEqual([
      created.id,
    ]);
    expect(await h.desk.listByMsisdn(customer, { state: 'failed' })).toEqual([]);
    expect((await h.desk.listByState('succeeded', { limit: 100 })).map((p) => p.id)).toContain(created.id);
  });
});
