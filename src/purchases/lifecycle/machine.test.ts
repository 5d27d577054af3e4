import { backoffMs } from './verdicts';
import { decide, nextRecheckMs, purchaseMachine, type ErrorInfo, type LifecycleSettings } from './machine';
import { PURCHASE_STATES, SETTLED_STATES } from '../types';
import type { Transaction } from '../../vas/port';
import { record } from '../../../test/purchases/fixtures';

const settings: LifecycleSettings = {
  confirmTimeoutMs: 30_000,
  inFlightMarginMs: 30_000,
  lostConfirmMarginMs: 5_000,
  baseDelayMs: 5000,
  maxDelayMs: 300_000,
  deadlineMs: 1_800_000,
  maxConfirmAttempts: 5,
  recheckForMs: 86_400_000,
  recheckEveryMs: 300_000,
};
const SENT = '2025-01-01T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(SENT) + seconds * 1000).toISOString();

const err = (over: Partial<ErrorInfo>): ErrorInfo => ({
  name: 'X',
  code: 'x',
  message: 'x',
  status: 400,
  outcome: 'rejected',
  retryable: false,
  retryAfterMs: null,
  ...over,
});
const tx = (status: Transaction['status']) =>
  ({ id: 7, status, rawToken: '1234', reference: 'TOP/1' }) as Transaction;

const confirming = record({ state: 'confirming', version: 2, confirmSentAt: SENT, confirmAttempts: 1 });
const reconciling = record({
  state: 'reconciling',
  version: 4,
  confirmSentAt: SENT,
  confirmAttempts: 1,
  reconcileDeadlineAt: at(1800),
});

describe('purchase machine: confirm outcomes', () => {
  it.each([
    ['SUCCESSFUL answer', { type: 'CONFIRM_OK', tx: tx('SUCCESSFUL') }, 'succeeded'],
    ['PENDING answer', { type: 'CONFIRM_OK', tx: tx('PENDING') }, 'unknown'],
    ['definitive 422', { type: 'CONFIRM_ERR', error: err({ status: 422, code: 'meter_blocked' }) }, 'failed'],
    [
      'provider_unavailable 502 (may be debited)',
      {
        type: 'CONFIRM_ERR',
        error: err({ status: 502, code: 'provider_unavailable', retryable: true, outcome: 'unknown' }),
      },
      'unknown',
    ],
    [
      'provider_timeout 504',
      { type: 'CONFIRM_ERR', error: err({ status: 504, code: 'provider_timeout', outcome: 'unknown' }) },
      'unknown',
    ],
    [
      '500',
      { type: 'CONFIRM_ERR', error: err({ status: 500, code: 'internal_error', outcome: 'unknown' }) },
      'unknown',
    ],
    [
      'read timeout',
      { type: 'CONFIRM_ERR', error: err({ status: null, code: 'OutcomeUnknownError', outcome: 'unknown' }) },
      'unknown',
    ],
    [
      'connection refused',
      { type: 'CONFIRM_ERR', error: err({ status: null, outcome: 'not_sent' }) },
      'created',
    ],
    [
      '429',
      { type: 'CONFIRM_ERR', error: err({ status: 429, code: 'rate_limited', retryAfterMs: 9000 }) },
      'created',
    ],
    ['crash found on resume', { type: 'CONFIRM_LOST' }, 'unknown'],
  ] as const)('%s → %s', (_label, event, to) => {
    const decision = decide(confirming, { ...event, at: at(1), random: 0 } as never, settings);
    expect(decision?.to).toBe(to);
  });

  it('never confirms a record that has left created', () => {
    for (const state of ['confirming', 'unknown', 'reconciling', 'succeeded', 'failed'] as const)
      expect(decide(record({ state }), { type: 'CONFIRM_START', at: at(0) }, settings)).toBeNull();
  });

  it('stops re-sending after maxConfirmAttempts not_sent answers (nothing was ever charged)', () => {
    const decision = decide(
      { ...confirming, confirmAttempts: 5 },
      { type: 'CONFIRM_ERR', error: err({ status: null, outcome: 'not_sent' }), at: at(1), random: 0 },
      settings,
    );
    expect(decision).toMatchObject({ to: 'failed', patch: { failure: { charged: false } } });
  });

  it('entering unknown sets the deadline from the confirm and waits one base delay', () => {
    const decision = decide(confirming, { type: 'CONFIRM_LOST', at: at(100) }, settings);
    expect(decision).toMatchObject({
      to: 'unknown',
      delayMs: 5000,
      patch: { reconcileDeadlineAt: at(1800) },
    });
  });
});

describe('purchase machine: reconcile outcomes', () => {
  const retryErr = (over: Partial<ErrorInfo>, seconds = 120) =>
    ({ type: 'RETRY_ERR', error: err(over), at: at(seconds), random: 0 }) as const;

  it.each([
    ['SUCCESSFUL', { type: 'RETRY_OK', tx: tx('SUCCESSFUL'), at: at(120), random: 0 }, 'succeeded'],
    ['400-class', retryErr({ status: 422, code: 'provider_error' }), 'failed'],
    [
      'transaction_pending',
      retryErr({ status: 409, code: 'transaction_pending', retryable: true }),
      'reconciling',
    ],
    ['retries_disabled', retryErr({ status: 403, code: 'retries_disabled' }), 'needs_attention'],
    ['404 without an envelope (a proxy)', retryErr({ status: 404, code: 'http_404' }), 'reconciling'],
    [
      '400 invalid_argument (the retry request itself)',
      retryErr({ code: 'invalid_argument' }),
      'reconciling',
    ],
    [
      'retries_disabled while the confirm may be in flight',
      retryErr({ status: 403, code: 'retries_disabled' }, 40),
      'reconciling',
    ],
    ['5xx', retryErr({ status: 500, code: 'internal_error', outcome: 'unknown' }), 'reconciling'],
    ['429', retryErr({ status: 429, code: 'rate_limited' }), 'reconciling'],
    ['transport', retryErr({ status: null, outcome: 'unknown' }), 'reconciling'],
    ['401', retryErr({ status: 401, code: 'invalid_credentials' }), 'reconciling'],
    [
      'anything past the deadline',
      retryErr({ status: 409, code: 'transaction_pending' }, 1801),
      'needs_attention',
    ],
  ] as const)('%s → %s', (_label, event, to) => {
    expect(decide(reconciling, event as never, settings)?.to).toBe(to);
  });

  const notFound = (seconds: number) => retryErr({ status: 404, code: 'transaction_not_found' }, seconds);
  const confirmErr = (over: Partial<ErrorInfo>, seconds: number) =>
    ({ type: 'CONFIRM_ERR', error: err(over), at: at(seconds), random: 0 }) as const;

  it('transaction_not_found once waits, even long after the confirm', () => {
    expect(decide(reconciling, notFound(600), settings)).toMatchObject({
      to: 'reconciling',
      patch: { notFoundCount: 1 },
    });
  });

  it('transaction_not_found repeated while the confirm may be in flight waits', () => {
    expect(decide({ ...reconciling, notFoundCount: 1 }, notFound(59), settings)?.to).toBe('reconciling');
  });

  it('transaction_not_found repeated after the in-flight window → failed, not charged', () => {
    expect(decide({ ...reconciling, notFoundCount: 1 }, notFound(61), settings)).toMatchObject({
      to: 'failed',
      patch: { failure: { code: 'transaction_not_found', charged: false } },
    });
  });

  it('a transaction_not_found while the confirm may be in flight does not count towards "not charged"', () => {
    // Window: confirm sent at 0 s, client timeout 30 s, margin 30 s → in flight until 60 s.
    const early = decide(reconciling, notFound(40), settings)!;
    expect(early.to).toBe('reconciling');
    const afterEarly = { ...reconciling, ...early.patch, state: early.to };
    // One answer past the window is not yet a repeat: the 40 s answer proved nothing.
    const first = decide(afterEarly, notFound(61), settings)!;
    expect(first.to).toBe('reconciling');
    const afterFirst = { ...afterEarly, ...first.patch, state: first.to };
    expect(decide(afterFirst, notFound(90), settings)).toMatchObject({
      to: 'failed',
      patch: { failure: { code: 'transaction_not_found', charged: false } },
    });
  });

  it('the in-flight window runs from when the confirm call came back when that was late (token refresh, re-send after a 401)', () => {
    // The call began at 0 s but only gave up at 100 s: its last send may be as late as 70 s,
    // and may be in flight until 100 s + margin = 130 s.
    const late = decide(
      confirming,
      confirmErr({ status: null, code: 'timeout', outcome: 'unknown' }, 100),
      settings,
    )!;
    expect(late.to).toBe('unknown');
    const reconcilingLate = { ...confirming, ...late.patch, state: 'reconciling' as const, version: 4 };
    const first = decide(reconcilingLate, notFound(110), settings)!;
    expect(first).toMatchObject({ to: 'reconciling', patch: { notFoundCount: 0 } });
    const second = decide({ ...reconcilingLate, ...first.patch }, notFound(125), settings)!;
    expect(second.to).toBe('reconciling');
    const third = decide({ ...reconcilingLate, ...second.patch }, notFound(131), settings)!;
    expect(third).toMatchObject({ to: 'reconciling', patch: { notFoundCount: 1 } });
    expect(decide({ ...reconcilingLate, ...third.patch }, notFound(140), settings)?.to).toBe('failed');
  });

  it('backs off exponentially with jitter, capped, never past the deadline', () => {
    expect(backoffMs(settings, 0, 0)).toBe(5000);
    expect(backoffMs(settings, 3, 0)).toBe(40_000);
    expect(backoffMs(settings, 3, 1)).toBe(60_000);
    expect(backoffMs(settings, 20, 0)).toBe(300_000);
    const nearDeadline = decide(
      { ...reconciling, reconcileAttempts: 10 },
      retryErr({ status: 409, code: 'transaction_pending' }, 1790),
      settings,
    );
    expect(nearDeadline).toMatchObject({ to: 'reconciling', delayMs: 10_000 });
  });

  it('honours Retry-After when it is longer than the backoff', () => {
    const decision = decide(
      reconciling,
      retryErr({ status: 429, code: 'rate_limited', retryAfterMs: 60_000 }),
      settings,
    );
    expect(decision?.delayMs).toBe(60_000);
  });
});

describe('purchase machine: only a verdict code settles a failure (an allow-list)', () => {
  const retryErr = (over: Partial<ErrorInfo>, seconds = 120) =>
    ({ type: 'RETRY_ERR', error: err(over), at: at(seconds), random: 0 }) as const;
  const confirmErr = (over: Partial<ErrorInfo>) =>
    ({ type: 'CONFIRM_ERR', error: err(over), at: at(1), random: 0 }) as const;

  it.each([
    ['upstream_error 422: the service could not ask the provider', { status: 422, code: 'upstream_error' }],
    ['an unknown legacy code in a 400', { status: 400, code: 'E042' }],
    ['an unknown legacy code in a 422', { status: 422, code: 'PROVIDER_DOWN' }],
    ['duplicate_request 409', { status: 409, code: 'duplicate_request' }],
    ['403 forbidden', { status: 403, code: 'forbidden' }],
    ['a proxy page 400', { status: 400, code: 'http_400' }],
    ['provider_busy 422 (transient)', { status: 422, code: 'provider_busy', retryable: true }],
  ] as const)('retry answered %s: asked again, no verdict', (_label, over) => {
    const decision = decide(reconciling, retryErr(over), settings);
    expect(decision).toMatchObject({ to: 'reconciling', patch: { failure: null } });
    expect(decision!.delayMs).toBeGreaterThan(0);
  });

  it.each([
    ['meter_blocked', 422],
    ['provider_error', 422],
    ['insufficient_balance', 402],
    ['amount_above_maximum', 400],
  ] as const)('retry answered %s: the transaction genuinely failed', (code, status) => {
    expect(decide(reconciling, retryErr({ status, code }), settings)).toMatchObject({
      to: 'failed',
      patch: { failure: { code, charged: false } },
    });
  });

  it.each([
    ['a proxy page (404 without an envelope)', { status: 404, code: 'http_404' }],
    ['a 400 page without an envelope', { status: 400, code: 'http_400' }],
    ['upstream_error 422', { status: 422, code: 'upstream_error' }],
    ['an unknown legacy code', { status: 400, code: 'E042' }],
  ] as const)('confirm answered %s: unknown, reconciled, never failed', (_label, over) => {
    expect(decide(confirming, confirmErr(over), settings)).toMatchObject({
      to: 'unknown',
      patch: { failure: null, reconcileDeadlineAt: at(1800) },
    });
  });

  it('confirm refused with a documented code, or before sending (status 0), fails not charged', () => {
    for (const over of [
      { status: 422, code: 'meter_blocked' },
      { status: 400, code: 'amount_below_minimum' },
      { status: 0, code: 'unsupported_product' },
    ])
      expect(decide(confirming, confirmErr(over), settings)).toMatchObject({
        to: 'failed',
        patch: { failure: { charged: false } },
      });
  });
});

describe('purchase machine: a managed-retry debit account', () => {
  const WINDOW_S = 1800;
  const managedSettings: LifecycleSettings = {
    ...settings,
    managedRetryAccountIds: [1004],
    managedRetryWindowMs: WINDOW_S * 1000,
  };
  const managed = (over: Parameters<typeof record>[0] = {}) =>
    record({ intent: { ...record().intent, debitedAccountId: 1004 }, ...over });
  const retryErr = (over: Partial<ErrorInfo>, seconds: number) =>
    ({ type: 'RETRY_ERR', error: err(over), at: at(seconds), random: 0 }) as const;
  const reconcilingManaged = managed({
    state: 'reconciling',
    version: 4,
    confirmSentAt: SENT,
    confirmAttempts: 1,
    managedRetryUntil: at(WINDOW_S),
    reconcileDeadlineAt: at(WINDOW_S + 1800),
  });

  it("the confirm stores the account's mode: the end of the service's own retries, or null", () => {
    const start = { type: 'CONFIRM_START', at: at(0) } as const;
    expect(decide(managed(), start, managedSettings)?.patch.managedRetryUntil).toBe(at(WINDOW_S));
    expect(decide(record(), start, managedSettings)?.patch.managedRetryUntil).toBeNull();
    // Self-managed by default: no account listed.
    expect(decide(managed(), start, settings)?.patch.managedRetryUntil).toBeNull();
  });

  it('a confirm refusal is not final: unknown, reconciled past the window', () => {
    const confirmingManaged = managed({
      state: 'confirming',
      version: 2,
      confirmSentAt: SENT,
      confirmAttempts: 1,
      managedRetryUntil: at(WINDOW_S),
    });
    const decision = decide(
      confirmingManaged,
      { type: 'CONFIRM_ERR', error: err({ status: 422, code: 'meter_blocked' }), at: at(1), random: 0 },
      managedSettings,
    );
    expect(decision).toMatchObject({
      to: 'unknown',
      patch: { failure: null, reconcileDeadlineAt: at(WINDOW_S + 1800), managedRetryUntil: at(WINDOW_S) },
    });
  });

  it('before the window has passed, no answer but a success settles it', () => {
    for (const over of [
      { status: 403, code: 'retries_disabled' },
      { status: 422, code: 'provider_error' },
      { status: 404, code: 'transaction_not_found' },
    ])
      expect(
        decide({ ...reconcilingManaged, notFoundCount: 1 }, retryErr(over, WINDOW_S - 1), managedSettings)
          ?.to,
      ).toBe('reconciling');
    expect(
      decide(
        reconcilingManaged,
        { type: 'RETRY_OK', tx: tx('SUCCESSFUL'), at: at(300), random: 0 },
        managedSettings,
      )?.to,
    ).toBe('succeeded');
  });

  it('not-found answers inside the window are not counted towards "not charged"', () => {
    const early = decide(
      reconcilingManaged,
      retryErr({ status: 404, code: 'transaction_not_found' }, 600),
      managedSettings,
    )!;
    expect(early.patch.notFoundCount).toBe(0);
  });

  it('past the window: retries_disabled → needs_attention (never a refund); a verdict → failed', () => {
    expect(
      decide(
        reconcilingManaged,
        retryErr({ status: 403, code: 'retries_disabled' }, WINDOW_S + 1),
        managedSettings,
      ),
    ).toMatchObject({
      to: 'needs_attention',
      patch: { failure: { code: 'retries_disabled', charged: 'unknown' } },
    });
    expect(
      decide(
        reconcilingManaged,
        retryErr({ status: 422, code: 'provider_error' }, WINDOW_S + 1),
        managedSettings,
      ),
    ).toMatchObject({ to: 'failed', patch: { failure: { code: 'provider_error', charged: false } } });
  });

  it('a restart with other settings decides the same: the stored window rules', () => {
    // The account was taken out of managed mode since the confirm: the record still says managed.
    expect(
      decide(reconcilingManaged, retryErr({ status: 422, code: 'provider_error' }, 600), settings)?.to,
    ).toBe('reconciling');
  });
});

describe('purchase machine: states', () => {
  it('has exactly the lifecycle states; settled ones take nothing but a late-found success (and an operator)', () => {
    const states = Object.values(purchaseMachine.root.states);
    expect(states.map((s) => s.key).sort()).toEqual([...PURCHASE_STATES].sort());
    expect(states.filter((s) => s.type === 'final').map((s) => s.key)).toEqual(['succeeded']);
    // A paid purchase whose refund cannot be completed goes to an operator (REFUND_STUCK).
    expect(Object.keys(purchaseMachine.root.states.failed.on)).toEqual(['RECHECK_OK', 'REFUND_STUCK']);
    expect(Object.keys(purchaseMachine.root.states.needs_attention.on)).toEqual([
      'RECHECK_OK',
      'RESOLVE',
      'REOPEN',
    ]);
    expect(Object.keys(purchaseMachine.root.states.resolved.on)).toEqual(['RECHECK_OK']);
    expect(SETTLED_STATES).not.toContain('resolved');
  });

  it('an operator resolves or reopens only a needs_attention purchase; reopening asks at once with a fresh deadline', () => {
    const attention = record({ state: 'needs_attention', notFoundCount: 1, recheckUntil: SENT });
    const at = '2025-06-01T00:00:00.000Z';
    expect(decide(attention, { type: 'RESOLVE', at }, settings)?.to).toBe('resolved');
    const reopened = decide(attention, { type: 'REOPEN', at }, settings);
    expect(reopened).toMatchObject({
      to: 'reconciling',
      delayMs: 0,
      patch: {
        notFoundCount: 0,
        recheckUntil: null,
        reconcileDeadlineAt: new Date(Date.parse(at) + settings.deadlineMs).toISOString(),
      },
    });
    for (const state of [
      'created',
      'confirming',
      'reconciling',
      'succeeded',
      'failed',
      'resolved',
    ] as const) {
      expect(decide(record({ state }), { type: 'RESOLVE', at }, settings)).toBeNull();
      expect(decide(record({ state }), { type: 'REOPEN', at }, settings)).toBeNull();
    }
  });
});

describe('purchase machine: the in-flight deadline travels with the send', () => {
  it("CONFIRM_START stores the sender's deadline; a reader with a shorter timeout waits for it", () => {
    const start = decide(record(), { type: 'CONFIRM_START', at: SENT }, settings);
    expect(start?.patch.confirmInFlightUntil).toBe(at(30));
    // A record sent with a 120 s timeout, read by a process whose own timeout is 30 s.
    const patient = record({ ...reconciling, confirmInFlightUntil: at(120), notFoundCount: 1 });
    const notFoundAt = (t: number) =>
      decide(
        patient,
        {
          type: 'RETRY_ERR',
          error: err({ status: 404, code: 'transaction_not_found' }),
          at: at(t),
          random: 0,
        },
        settings,
      );
    expect(notFoundAt(100)?.to).toBe('reconciling');
    const late = notFoundAt(151);
    expect(late?.to).toBe('failed');
    expect(late?.patch.recheckUntil).toBe(at(151 + 86_400));
  });
});

describe('purchase machine: verdicts that are not facts are corrected by a late success', () => {
  const noChargeFound = record({
    state: 'failed',
    failure: { code: 'transaction_not_found', message: 'x', charged: false },
    recheckUntil: at(3600),
  });
  it('failed "no charge found" + RECHECK_OK SUCCESSFUL → succeeded with the token', () => {
    const decision = decide(
      noChargeFound,
      { type: 'RECHECK_OK', tx: tx('SUCCESSFUL'), at: at(600) },
      settings,
    );
    expect(decision?.to).toBe('succeeded');
    expect(decision?.patch.result?.rawToken).toBe('1234');
    expect(decision?.patch.failure).toBeNull();
  });
  it('a refusal the service stated is never re-opened', () => {
    const refused = record({
      state: 'failed',
      failure: { code: 'meter_blocked', message: 'x', charged: false },
    });
    expect(decide(refused, { type: 'RECHECK_OK', tx: tx('SUCCESSFUL'), at: at(600) }, settings)).toBeNull();
  });
  it('needs_attention + RECHECK_OK SUCCESSFUL → succeeded', () => {
    const attention = record({
      state: 'needs_attention',
      failure: { code: 'retries_disabled', message: 'x', charged: 'unknown' },
    });
    expect(decide(attention, { type: 'RECHECK_OK', tx: tx('SUCCESSFUL'), at: at(600) }, settings)?.to).toBe(
      'succeeded',
    );
  });
  it('re-checks back off from recheckEveryMs and stop at recheckUntil', () => {
    expect(nextRecheckMs(noChargeFound, at(0), settings, 0)).toBe(300_000);
    expect(nextRecheckMs(noChargeFound, at(0), settings, 1)).toBe(600_000);
    expect(nextRecheckMs(noChargeFound, at(3500), settings, 3)).toBe(100_000);
    expect(nextRecheckMs(noChargeFound, at(3600), settings, 0)).toBeNull();
  });
});
