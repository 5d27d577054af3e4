import { SANDBOX_ACCOUNTS } from '../../src/sandbox';
import type { PurchaseService } from '../../src/vas/port';
import { intent, record as makeRecord } from './fixtures';
import { startHarness, type Harness, type Mode } from './harness';
import { until } from '../support/wait';

/**
 * Several gateway processes share Redis: one starting (a rolling deploy) runs `resumeStuck`
 * while another is in the middle of a confirm. The starting one must not declare that live
 * confirm lost: on a managed-retry account `retry` answers `retries_disabled` at once, the
 * record would settle `managed_retry` and the live confirm's success (a debit and a token)
 * would arrive too late to be told to the subscriber.
 */

interface Gate {
  entered: Promise<void>;
  release(): void;
}

/**
 * Holds the next confirm call at a gate: `before` it is sent (the live confirm of "the other
 * process"), or `after` the service answered (a worker whose answer is slow to come back).
 */
function gatedConfirm(service: PurchaseService): PurchaseService & { arm(where?: 'before' | 'after'): Gate } {
  const wrapped = Object.create(service) as PurchaseService & { arm(where?: 'before' | 'after'): Gate };
  let gate: { where: 'before' | 'after'; open: Promise<void>; entered: () => void } | null = null;
  wrapped.arm = (where = 'before') => {
    let release!: () => void;
    let entered!: () => void;
    const open = new Promise<void>((resolve) => (release = resolve));
    const enteredP = new Promise<void>((resolve) => (entered = resolve));
    gate = { where, open, entered };
    return { entered: enteredP, release };
  };
  wrapped.confirm = async (request, ctx) => {
    const current = gate;
    gate = null;
    if (current?.where === 'before') {
      current.entered();
      await current.open;
    }
    const answer = await service.confirm(request, ctx);
    if (current?.where === 'after') {
      current.entered();
      await current.open;
    }
    return answer;
  };
  return wrapped;
}

describe.each<Mode>(['in-process', 'bullmq'])('resumeStuck beside a live confirm (%s queue)', (mode) => {
  let h: Harness;
  let gated: ReturnType<typeof gatedConfirm>;

  beforeAll(async () => {
    // A wide in-flight margin, so "may still be in flight" holds for the whole of a test.
    h = await startHarness(mode, (service) => (gated = gatedConfirm(service)), { inFlightMarginMs: 10_000 });
  });
  afterAll(() => h.close());

  it('does not mark a confirm lost while it may still be in flight; its success is told (managed-retry account)', async () => {
    const r = makeRecord({
      intent: intent({
        amount: { currency: 'BWP', minor: 5100 },
        debitedAccountId: SANDBOX_ACCOUNTS.managedRetry,
      }),
    });
    await h.store.create(r);
    const gate = gated.arm();
    const live = h.desk.lifecycle.runConfirm(r.id, 0);
    await gate.entered;
    expect((await h.store.get(r.id))?.state).toBe('confirming');

    await h.desk.resumeStuck(); // another process starting up
    expect((await h.store.get(r.id))?.state).toBe('confirming');

    gate.release();
    await live;
    const done = await h.settled(r.id);
    expect(done.state).toBe('succeeded');
    expect(done.confirmAttempts).toBe(1);
    const ledger = await h.ledger(r.externalReference);
    expect(ledger).toHaveLength(1);
    expect(done.result?.rawToken).toBe(ledger[0].token);
    expect(h.notifier.for(r.id)).toHaveLength(1);
  });

  it('a stalled-job re-run marks a live confirm lost: retries_disabled does not settle managed_retry while it may still succeed', async () => {
    const r = makeRecord({
      intent: intent({
        amount: { currency: 'BWP', minor: 5300 },
        debitedAccountId: SANDBOX_ACCOUNTS.managedRetry,
      }),
    });
    await h.store.create(r);
    const gate = gated.arm('after'); // the confirm reached the sandbox (debited); its answer is slow
    const live = h.desk.lifecycle.runConfirm(r.id, 0);
    await gate.entered;
    // BullMQ lost the job's lock (Redis blip, blocked loop) and runs the same job again.
    await h.desk.lifecycle.handle({ kind: 'confirm', purchaseId: r.id, attempt: 0 });
    await until(
      'the retry verdict',
      async () => (await h.store.get(r.id))?.lastError?.code === 'retries_disabled',
    );
    expect((await h.store.get(r.id))?.lastError?.code).toBe('retries_disabled');

    gate.release();
    await live;
    const done = await h.settled(r.id);
    expect(done.state).toBe('succeeded');
    const ledger = await h.ledger(r.externalReference);
    expect(ledger).toHaveLength(1);
    expect(done.result?.rawToken).toBe(ledger[0].token);
  });

  it('a confirming record whose confirm can no longer be in flight is still marked lost at once', async () => {
    const r = makeRecord({ intent: intent({ amount: { currency: 'BWP', minor: 5200 } }) });
    await h.store.create({
      ...r,
      state: 'confirming',
      version: 2,
      confirmAttempts: 1,
      confirmSentAt: new Date(Date.now() - 15_000).toISOString(),
    });
    await h.desk.resumeStuck();
    expect((await h.store.get(r.id))?.state).not.toBe('confirming');
    const done = await h.settled(r.id);
    expect(done.state).toBe('failed');
    expect(await h.ledger(r.externalReference)).toHaveLength(0);
  });
});

describe.each<Mode>(['in-process', 'bullmq'])('a confirming record whose worker died (%s queue)', (mode) => {
  let h: Harness;
  let gated: ReturnType<typeof gatedConfirm>;

  beforeAll(async () => {
    // Verdicts from silence wait the wide margin; declaring the confirm lost waits the short one.
    h = await startHarness(mode, (service) => (gated = gatedConfirm(service)), {
      inFlightMarginMs: 10_000,
      lostConfirmMarginMs: 300,
    });
  });
  afterAll(() => h.close());

  it('found by the sweep while in flight: reconciled by the check it schedules, not at the next sweep; one confirm', async () => {
    const r = makeRecord({ intent: intent({ amount: { currency: 'BWP', minor: 5400 } }) });
    await h.store.create(r);
    // The confirm reached the sandbox (debited, token issued); its answer never comes back to a
    // worker that is gone.
    const gate = gated.arm('after');
    const dead = h.desk.lifecycle.runConfirm(r.id, 0);
    await gate.entered;

    const swept = await h.desk.resumeStuck();
    expect(swept).toEqual(expect.objectContaining({ deferred: 1, lost: 0 }));
    expect((await h.store.get(r.id))?.state).toBe('confirming');

    const done = await h.settled(r.id);
    expect(done.state).toBe('succeeded');
    expect(done.lastError?.code).toBe('confirm_lost');
    // Not before its confirm could no longer be in flight: start + confirm timeout + lost margin.
    expect(Date.parse(done.settledAt!)).toBeGreaterThanOrEqual(Date.parse(done.confirmInFlightUntil!) + 300);
    const ledger = await h.ledger(r.externalReference);
    expect(ledger).toHaveLength(1);
    expect(done.result?.rawToken).toBe(ledger[0].token);
    expect(done.confirmAttempts).toBe(1);

    // The old answer arriving late changes nothing and tells nothing twice.
    gate.release();
    await dead;
    expect((await h.store.get(r.id))?.version).toBe(done.version);
    expect(h.notifier.for(r.id)).toHaveLength(1);
  });

  it('a check for a confirm that answered meanwhile does nothing', async () => {
    const r = makeRecord({ intent: intent({ amount: { currency: 'BWP', minor: 5500 } }) });
    await h.store.create(r);
    const gate = gated.arm('after');
    const live = h.desk.lifecycle.runConfirm(r.id, 0);
    await gate.entered;
    expect((await h.desk.resumeStuck()).deferred).toBe(1);
    gate.release();
    await live;
    const done = await h.settled(r.id);
    await h.desk.lifecycle.handle({ kind: 'lost-check', purchaseId: r.id, attempt: 1 });
    const after = await h.store.get(r.id);
    expect(after).toEqual(
      expect.objectContaining({ state: 'succeeded', version: done.version, lastError: null }),
    );
    expect(h.notifier.for(r.id)).toHaveLength(1);
  });
});
