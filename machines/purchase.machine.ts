import { assign, setup, transition, type SnapshotFrom } from 'xstate';
import type { PurchaseFailure, PurchaseRecord, PurchaseResult, PurchaseState } from '../src/purchases/types';
import { resultFromTransaction } from '../src/purchases/types';
import type { CallOutcome } from '../src/vas/errors';
import type { Transaction } from '../src/vas/port';

/**
 * The purchase lifecycle: a pure decision machine. It classifies what the purchase service
 * answered into the next state and computes when to ask again; it performs no I/O. The lifecycle
 * (src/purchases/lifecycle.ts) persists each decided transition with compare-and-set BEFORE the
 * side effect it allows (e.g. `created → confirming` before sending confirm).
 *
 *   created → confirming → succeeded | failed | unknown   (confirming → created only when not sent)
 *   created → succeeded | unknown      a probe found an earlier confirm (its write was lost)
 *   unknown → reconciling → succeeded | failed | needs_attention
 *   failed (no charge found) | needs_attention → succeeded   a later re-check found the success
 *   needs_attention → resolved (an operator closed it) | reconciling (an operator asked again)
 */

/** Tunables of the lifecycle, from config (see settingsFromConfig in src/purchases/lifecycle.ts). */
export interface LifecycleSettings {
  /** The client's confirm read timeout: a confirm can be in flight this long after it was sent. */
  confirmTimeoutMs: number;
  /** Extra time after confirmTimeoutMs before `transaction_not_found` may mean "not charged". */
  inFlightMarginMs: number;
  /**
   * Extra time after a confirm's in-flight deadline before a `confirming` record nobody answers
   * for (its worker died) is declared lost and reconciled. Shorter than inFlightMarginMs: losing
   * it only asks `retry` (never confirms), and the verdicts that infer from silence still wait for
   * the full margin.
   */
  lostConfirmMarginMs: number;
  /** First reconcile delay; doubles per attempt, plus up to 50% jitter. */
  baseDelayMs: number;
  /** Ceiling of one backoff delay. */
  maxDelayMs: number;
  /** How long after the confirm reconcile keeps asking before `needs_attention`. */
  deadlineMs: number;
  /** Confirm sends allowed when earlier ones provably never reached the service. */
  maxConfirmAttempts: number;
  /**
   * After a verdict that is not a fact ("no charge was found", needs_attention), how long the
   * lifecycle keeps asking `retry` whether the purchase succeeded after all.
   */
  recheckForMs: number;
  /** First wait between those re-checks; doubles up to maxDelayMs × 12 (an hour by default). */
  recheckEveryMs: number;
}

/** What the lifecycle tells the machine about a failed call (plain data: no Error objects). */
export interface ErrorInfo {
  name: string;
  code: string;
  message: string;
  /** HTTP status, null for transport failures. */
  status: number | null;
  outcome: CallOutcome;
  retryable: boolean;
  retryAfterMs: number | null;
}

export interface PurchaseContext {
  settings: LifecycleSettings;
  confirmSentAt: string | null;
  confirmInFlightUntil: string | null;
  recheckUntil: string | null;
  confirmEndedAt: string | null;
  confirmAttempts: number;
  reconcileAttempts: number;
  notFoundCount: number;
  reconcileDeadlineAt: string | null;
  result: PurchaseResult | null;
  failure: PurchaseFailure | null;
  lastError: PurchaseRecord['lastError'];
  settledAt: string | null;
  /** Decision: wait this long before the next confirm/reconcile attempt (null = none scheduled). */
  delayMs: number | null;
}

export type PurchaseEvent =
  /** The worker is about to send confirm (persisted first). */
  | { type: 'CONFIRM_START'; at: string }
  | { type: 'CONFIRM_OK'; tx: Transaction; at: string; random: number }
  | { type: 'CONFIRM_ERR'; error: ErrorInfo; at: string; random: number }
  /** Found `confirming` with no worker on it (crash, stalled job): the confirm may have happened. */
  | { type: 'CONFIRM_LOST'; at: string }
  | { type: 'RECONCILE_START'; at: string }
  | { type: 'RETRY_OK'; tx: Transaction; at: string; random: number }
  | { type: 'RETRY_ERR'; error: ErrorInfo; at: string; random: number }
  /** Before a confirm, `retry` found an earlier attempt of this `created` record (a lost write). */
  | { type: 'PROBE_FOUND'; tx: Transaction; at: string }
  /** …or answered for an earlier attempt without its transaction (its failure, `retries_disabled`). */
  | { type: 'PROBE_REFUSED'; error: ErrorInfo; at: string }
  /** A late re-check of a verdict that was not a fact found the purchase successful. */
  | { type: 'RECHECK_OK'; tx: Transaction; at: string }
  /** An operator closed a `needs_attention` purchase (the note is kept by src/purchases/care). */
  | { type: 'RESOLVE'; at: string }
  /** An operator asked to reconcile a `needs_attention` purchase again: retry only, never confirm. */
  | { type: 'REOPEN'; at: string };

type TimedEvent = Extract<PurchaseEvent, { random: number }>;

const ms = (iso: string | null): number => (iso === null ? NaN : Date.parse(iso));

/** Exponential backoff from baseDelayMs with up to 50% jitter, capped by maxDelayMs. */
export function backoffMs(settings: LifecycleSettings, attempt: number, random: number): number {
  const exponential = settings.baseDelayMs * 2 ** Math.min(attempt, 30);
  const capped = Math.min(exponential, settings.maxDelayMs);
  return Math.round(capped + capped * 0.5 * Math.min(Math.max(random, 0), 1));
}

/** The next wait, never past the deadline (the last ask lands on it) and honouring Retry-After. */
function waitMs(context: PurchaseContext, event: TimedEvent): number {
  const hint = 'error' in event ? (event.error.retryAfterMs ?? 0) : 0;
  const delay = Math.max(backoffMs(context.settings, context.reconcileAttempts, event.random), hint);
  const untilDeadline = ms(context.reconcileDeadlineAt) - ms(event.at);
  return Number.isFinite(untilDeadline) ? Math.max(0, Math.min(delay, untilDeadline)) : delay;
}

/**
 * The original confirm can no longer be in flight: past the in-flight deadline the sender stored
 * when it sent it (its own client timeout, not the reader's), or past when the call came back if
 * that is later — plus a margin for clocks and the network.
 */
const pastInFlight = (context: PurchaseContext, event: { at: string }) => {
  const ended = ms(context.confirmEndedAt);
  const deadline = ms(context.confirmInFlightUntil);
  const lastAnswer = Math.max(
    Number.isFinite(deadline) ? deadline : ms(context.confirmSentAt) + context.settings.confirmTimeoutMs,
    Number.isFinite(ended) ? ended : -Infinity,
  );
  return ms(event.at) > lastAnswer + context.settings.inFlightMarginMs;
};

/** Until when a verdict that is not a fact keeps being re-checked. */
const recheckUntil = (context: PurchaseContext, at: string) =>
  new Date(ms(at) + context.settings.recheckForMs).toISOString();

const isNotSent = (error: ErrorInfo) => error.outcome === 'not_sent';
/** A refusal that says "not now" about this very request: nothing happened, it may be sent again. */
const isResendable = (error: ErrorInfo) =>
  error.outcome === 'rejected' && (error.code === 'transaction_pending' || error.status === 429);
/**
 * 4xx answers to `retry` that say nothing about the original transaction: no error envelope
 * (`http_<status>`: a proxy or load balancer answered, not the service), or a refusal of the
 * retry request itself (its shape, its path). Only retry reaches these; they never prove "not charged".
 */
const isNoVerdict = (error: ErrorInfo) =>
  /^http_\d+$/.test(error.code) ||
  ['missing_field', 'invalid_argument', 'method_not_allowed', 'resource_not_found'].includes(error.code);
/** 400-class answers that settle the transaction (not our credentials, not "ask later"). */
const isDefinitiveRefusal = (error: ErrorInfo) =>
  error.outcome === 'rejected' &&
  !isNoVerdict(error) &&
  // Not found may only mean "the confirm is still in flight": see provedNotCharged.
  error.code !== 'transaction_not_found' &&
  !error.retryable &&
  error.status !== null &&
  error.status >= 400 &&
  error.status < 500 &&
  error.status !== 401 &&
  error.status !== 403 &&
  error.status !== 409 &&
  error.status !== 429;

const errorOf = (event: PurchaseEvent) =>
  'error' in event
    ? { code: event.error.code, message: event.error.message, outcome: event.error.outcome }
    : null;

export const purchaseMachine = setup({
  types: {
    context: {} as PurchaseContext,
    events: {} as PurchaseEvent,
    input: {} as PurchaseContext,
  },
  guards: {
    isSuccessful: ({ event }) => 'tx' in event && event.tx.status === 'SUCCESSFUL',
    mayResend: ({ context, event }) =>
      event.type === 'CONFIRM_ERR' &&
      (isNotSent(event.error) || isResendable(event.error)) &&
      context.confirmAttempts < context.settings.maxConfirmAttempts,
    neverReachedService: ({ event }) =>
      event.type === 'CONFIRM_ERR' && (isNotSent(event.error) || isResendable(event.error)),
    outcomeUnknown: ({ event }) => event.type === 'CONFIRM_ERR' && event.error.outcome === 'unknown',
    /**
     * `retries_disabled` (managed-retry account): the gateway cannot learn the outcome, so an
     * operator must — but only once the original confirm can no longer be in flight, since the
     * account mode is answered whatever the transaction's state and a live confirm may still answer.
     */
    retriesDisabled: ({ context, event }) =>
      event.type === 'RETRY_ERR' && event.error.code === 'retries_disabled' && pastInFlight(context, event),
    /**
     * `transaction_not_found` repeated, both answers given once the original confirm could no
     * longer be in flight (notFoundCount counts only those: see countNotFound).
     */
    provedNotCharged: ({ context, event }) =>
      event.type === 'RETRY_ERR' &&
      event.error.code === 'transaction_not_found' &&
      context.notFoundCount + 1 >= 2 &&
      pastInFlight(context, event),
    isNotFound: ({ event }) => event.type === 'RETRY_ERR' && event.error.code === 'transaction_not_found',
    /** Only a verdict inferred from silence is re-checked, never the service's own refusal. */
    noChargeFound: ({ context, event }) =>
      event.type === 'RECHECK_OK' &&
      event.tx.status === 'SUCCESSFUL' &&
      context.failure?.charged === false &&
      context.failure.code === 'transaction_not_found',
    definitiveRefusal: ({ event }) => event.type === 'RETRY_ERR' && isDefinitiveRefusal(event.error),
    pastDeadline: ({ context, event }) => ms(event.at) >= ms(context.reconcileDeadlineAt),
  },
  actions: {
    startConfirm: assign({
      confirmSentAt: ({ event }) => (event as { at: string }).at,
      confirmInFlightUntil: ({ context, event }) =>
        new Date(ms((event as { at: string }).at) + context.settings.confirmTimeoutMs).toISOString(),
      confirmAttempts: ({ context }) => context.confirmAttempts + 1,
      delayMs: null,
    }),
    scheduleResend: assign({
      lastError: ({ event }) => errorOf(event),
      delayMs: ({ context, event }) => {
        const e = event as Extract<PurchaseEvent, { type: 'CONFIRM_ERR' }>;
        return Math.max(
          backoffMs(context.settings, context.confirmAttempts - 1, e.random),
          e.error.retryAfterMs ?? 0,
        );
      },
    }),
    succeed: assign({
      result: ({ event }) => resultFromTransaction((event as { tx: Transaction }).tx),
      failure: null,
      settledAt: ({ event }) => (event as { at: string }).at,
      delayMs: null,
    }),
    /** "No charge was found" is inferred, not told: keep asking for a while. */
    watchVerdict: assign({
      recheckUntil: ({ context, event }) => recheckUntil(context, (event as { at: string }).at),
    }),
    failNotCharged: assign({
      failure: ({ event }) => {
        const error = 'error' in event ? event.error : null;
        return {
          code: error?.code ?? 'failed',
          message: error?.message ?? 'The purchase did not complete',
          charged: false as const,
        };
      },
      lastError: ({ event }) => errorOf(event),
      settledAt: ({ event }) => (event as { at: string }).at,
      delayMs: null,
    }),
    /** Entering `unknown`: the deadline runs from the confirm, reconcile starts after one base delay. */
    becomeUnknown: assign({
      lastError: ({ event }) =>
        errorOf(event) ??
        ('tx' in event
          ? {
              code: `status_${event.tx.status.toLowerCase()}`,
              message: 'confirm answered without success',
              outcome: 'unknown',
            }
          : { code: 'confirm_lost', message: 'worker stopped while confirming', outcome: 'unknown' }),
      confirmEndedAt: ({ event }) => (event.type === 'CONFIRM_LOST' ? null : (event as { at: string }).at),
      reconcileDeadlineAt: ({ context, event }) =>
        new Date(
          (Number.isFinite(ms(context.confirmSentAt))
            ? ms(context.confirmSentAt)
            : ms((event as { at: string }).at)) + context.settings.deadlineMs,
        ).toISOString(),
      delayMs: ({ context }) => context.settings.baseDelayMs,
    }),
    /** A not-found while the confirm may still be in flight proves nothing and is not counted. */
    countNotFound: assign({
      notFoundCount: ({ context, event }) =>
        pastInFlight(context, event as TimedEvent) ? context.notFoundCount + 1 : context.notFoundCount,
    }),
    resetNotFound: assign({ notFoundCount: 0 }),
    waitAndAskAgain: assign({
      lastError: ({ context, event }) => errorOf(event) ?? context.lastError,
      delayMs: ({ context, event }) => waitMs(context, event as TimedEvent),
      reconcileAttempts: ({ context }) => context.reconcileAttempts + 1,
    }),
    countAttempt: assign({ reconcileAttempts: ({ context }) => context.reconcileAttempts + 1 }),
    giveUp: assign({
      lastError: ({ context, event }) => errorOf(event) ?? context.lastError,
      failure: ({ context }) => ({
        code: context.lastError?.code ?? 'reconcile_deadline',
        message: 'The outcome could not be established before the reconcile deadline',
        charged: 'unknown' as const,
      }),
      settledAt: ({ event }) => (event as { at: string }).at,
      recheckUntil: ({ context, event }) => recheckUntil(context, (event as { at: string }).at),
      delayMs: null,
    }),
    /**
     * A managed-retry debit account: the service answers `retries_disabled` and owns the outcome,
     * so the gateway cannot learn it — an operator must, with everything known on the record.
     */
    giveUpManaged: assign({
      lastError: ({ event }) => errorOf(event),
      failure: () => ({
        code: 'retries_disabled',
        message:
          'The debit account is in managed-retry mode: the service owns the outcome; find the ' +
          'transaction by its external reference and resend the token if it succeeded',
        charged: 'unknown' as const,
      }),
      settledAt: ({ event }) => (event as { at: string }).at,
      recheckUntil: ({ context, event }) => recheckUntil(context, (event as { at: string }).at),
      delayMs: null,
    }),
    /** Reconcile again from now: a fresh deadline, not-found answers counted anew, asked at once. */
    reopen: assign({
      reconcileDeadlineAt: ({ context, event }) =>
        new Date(ms((event as { at: string }).at) + context.settings.deadlineMs).toISOString(),
      notFoundCount: 0,
      recheckUntil: null,
      delayMs: 0,
    }),
    /** A success found after a verdict: the outcome is corrected and told again. */
    correct: assign({
      result: ({ event }) => resultFromTransaction((event as { tx: Transaction }).tx),
      failure: null,
      recheckUntil: null,
      settledAt: ({ event }) => (event as { at: string }).at,
      delayMs: null,
    }),
  },
}).createMachine({
  id: 'purchase',
  context: ({ input }) => input,
  initial: 'created',
  states: {
    created: {
      on: {
        CONFIRM_START: { target: 'confirming', actions: 'startConfirm' },
        // The `created → confirming` write was lost (Redis restarted from older data) but this
        // process's confirm answered: the purchase happened, adopt it.
        CONFIRM_OK: { guard: 'isSuccessful', target: 'succeeded', actions: 'succeed' },
        PROBE_FOUND: [
          { guard: 'isSuccessful', target: 'succeeded', actions: 'succeed' },
          // Pending or failed: the earlier attempt exists; reconcile settles it.
          { target: 'unknown', actions: 'becomeUnknown' },
        ],
        PROBE_REFUSED: { target: 'unknown', actions: 'becomeUnknown' },
      },
    },
    confirming: {
      on: {
        CONFIRM_OK: [
          { guard: 'isSuccessful', target: 'succeeded', actions: 'succeed' },
          // FAILED/PENDING in a 200: the service's own retry answer tells what really happened.
          { target: 'unknown', actions: 'becomeUnknown' },
        ],
        CONFIRM_ERR: [
          { guard: 'mayResend', target: 'created', actions: 'scheduleResend' },
          { guard: 'neverReachedService', target: 'failed', actions: 'failNotCharged' },
          { guard: 'outcomeUnknown', target: 'unknown', actions: 'becomeUnknown' },
          { target: 'failed', actions: 'failNotCharged' },
        ],
        CONFIRM_LOST: { target: 'unknown', actions: 'becomeUnknown' },
      },
    },
    unknown: {
      on: {
        RECONCILE_START: { target: 'reconciling' },
        // A confirm answer that arrived after the record was declared lost still settles it.
        CONFIRM_OK: { guard: 'isSuccessful', target: 'succeeded', actions: 'succeed' },
      },
    },
    reconciling: {
      on: {
        CONFIRM_OK: { guard: 'isSuccessful', target: 'succeeded', actions: 'succeed' },
        RETRY_OK: [
          { guard: 'isSuccessful', target: 'succeeded', actions: ['countAttempt', 'succeed'] },
          { guard: 'pastDeadline', target: 'needs_attention', actions: ['countAttempt', 'giveUp'] },
          { target: 'reconciling', reenter: false, actions: ['resetNotFound', 'waitAndAskAgain'] },
        ],
        RETRY_ERR: [
          {
            guard: 'retriesDisabled',
            target: 'needs_attention',
            actions: ['countAttempt', 'giveUpManaged'],
          },
          {
            guard: 'provedNotCharged',
            target: 'failed',
            actions: ['countAttempt', 'countNotFound', 'failNotCharged', 'watchVerdict'],
          },
          { guard: 'definitiveRefusal', target: 'failed', actions: ['countAttempt', 'failNotCharged'] },
          { guard: 'pastDeadline', target: 'needs_attention', actions: ['countAttempt', 'giveUp'] },
          { guard: 'isNotFound', target: 'reconciling', actions: ['countNotFound', 'waitAndAskAgain'] },
          { target: 'reconciling', actions: ['resetNotFound', 'waitAndAskAgain'] },
        ],
      },
    },
    // The settled states (SETTLED_STATES of src/purchases/types.ts). Only a verdict that is not a
    // fact (no charge found, needs_attention) can still be corrected by a success found later.
    succeeded: { type: 'final' },
    failed: {
      on: { RECHECK_OK: { guard: 'noChargeFound', target: 'succeeded', actions: 'correct' } },
    },
    needs_attention: {
      on: {
        RECHECK_OK: { guard: 'isSuccessful', target: 'succeeded', actions: 'correct' },
        RESOLVE: { target: 'resolved' },
        REOPEN: { target: 'reconciling', actions: 'reopen' },
      },
    },
    // Closed by an operator; a success the re-checks still find corrects it all the same.
    resolved: {
      on: { RECHECK_OK: { guard: 'isSuccessful', target: 'succeeded', actions: 'correct' } },
    },
  },
});

export type PurchaseSnapshot = SnapshotFrom<typeof purchaseMachine>;

/** The machine's context for a stored record. */
export function contextOf(record: PurchaseRecord, settings: LifecycleSettings): PurchaseContext {
  return {
    settings,
    confirmSentAt: record.confirmSentAt,
    confirmInFlightUntil: record.confirmInFlightUntil ?? null,
    recheckUntil: record.recheckUntil ?? null,
    confirmEndedAt: record.confirmEndedAt ?? null,
    confirmAttempts: record.confirmAttempts,
    reconcileAttempts: record.reconcileAttempts,
    notFoundCount: record.notFoundCount,
    reconcileDeadlineAt: record.reconcileDeadlineAt,
    result: record.result,
    failure: record.failure,
    lastError: record.lastError,
    settledAt: record.settledAt,
    delayMs: null,
  };
}

/** A decided transition: the state and record fields to persist, and when to act next. */
export interface Decision {
  from: PurchaseState;
  to: PurchaseState;
  patch: Pick<
    PurchaseRecord,
    | 'confirmSentAt'
    | 'confirmInFlightUntil'
    | 'recheckUntil'
    | 'confirmEndedAt'
    | 'confirmAttempts'
    | 'reconcileAttempts'
    | 'notFoundCount'
    | 'reconcileDeadlineAt'
    | 'result'
    | 'failure'
    | 'lastError'
    | 'settledAt'
  >;
  delayMs: number | null;
}

/** Feed `event` to the machine in the record's state; null when the state does not accept it. */
export function decide(
  record: PurchaseRecord,
  event: PurchaseEvent,
  settings: LifecycleSettings,
): Decision | null {
  const snapshot = purchaseMachine.resolveState({
    value: record.state,
    context: contextOf(record, settings),
  });
  if (!snapshot.can(event)) return null;
  const [next] = transition(purchaseMachine, snapshot, event);
  const { settings: _settings, delayMs, ...patch } = next.context;
  return { from: record.state, to: next.value as PurchaseState, patch, delayMs };
}

/** What a `retry` asked before a confirm (the probe) allows. */
export type ProbeVerdict =
  /** No earlier attempt exists, and none can still be on its way: confirm now. */
  | { kind: 'confirm' }
  /** An earlier attempt exists: feed `PROBE_FOUND` (adopt its success, or reconcile it). */
  | { kind: 'found' }
  /** Not known yet (pending, a transient error, or a lost confirm may still be in flight). */
  | { kind: 'wait'; delayMs: number };

/**
 * Decide on the probe's answer. `holdUntil` is when any confirm sent before a Redis data loss can
 * no longer be in flight (null when no loss is involved): a `transaction_not_found` before then
 * may only mean that confirm has not reached the service yet.
 */
export function probeVerdict(
  answer: { tx: Transaction } | { error: ErrorInfo },
  holdUntil: string | null,
  at: string,
  settings: LifecycleSettings,
  round: number,
  random: number,
): ProbeVerdict {
  const backoff = () => backoffMs(settings, round, random);
  if ('tx' in answer)
    return answer.tx.status === 'ON_GOING' ? { kind: 'wait', delayMs: backoff() } : { kind: 'found' };
  const { error } = answer;
  if (error.code === 'transaction_not_found') {
    const wait = ms(holdUntil) - ms(at);
    return Number.isFinite(wait) && wait > 0 ? { kind: 'wait', delayMs: wait } : { kind: 'confirm' };
  }
  // An original exists on a managed-retry account.
  if (error.code === 'retries_disabled') return { kind: 'found' };
  if (
    isNotSent(error) ||
    error.outcome === 'unknown' ||
    isResendable(error) ||
    isNoVerdict(error) ||
    error.status === 401 ||
    error.status === 403
  )
    return { kind: 'wait', delayMs: Math.max(backoff(), error.retryAfterMs ?? 0) };
  // The earlier attempt's definitive failure.
  return { kind: 'found' };
}

/** The wait before the next re-check of a verdict that is not a fact; null once it is past its time. */
export function nextRecheckMs(
  record: PurchaseRecord,
  at: string,
  settings: LifecycleSettings,
  round: number,
): number | null {
  const until = ms(record.recheckUntil ?? null);
  if (!Number.isFinite(until) || ms(at) >= until) return null;
  const delay = Math.min(settings.recheckEveryMs * 2 ** Math.min(round, 20), settings.maxDelayMs * 12);
  return Math.min(delay, until - ms(at));
}
