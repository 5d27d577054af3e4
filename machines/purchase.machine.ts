import { assign, setup, transition, type SnapshotFrom } from 'xstate';
import type { PurchaseFailure, PurchaseRecord, PurchaseResult, PurchaseState } from '../src/purchases/types';
import { resultFromTransaction } from '../src/purchases/types';
import type { CallOutcome } from '../src/vas/errors';
import type { Transaction } from '../src/vas/port';

/**
 * The purchase lifecycle: a pure decision machine. It classifies what the purchase service
 * answered into the next state and computes when to ask again; it performs no I/O. The engine
 * (src/purchases/engine.ts) persists each decided transition with compare-and-set BEFORE the
 * side effect it allows (e.g. `created → confirming` before sending confirm).
 *
 *   created → confirming → succeeded | failed | unknown   (confirming → created only when not sent)
 *   unknown → reconciling → succeeded | failed | needs_attention | managed_retry
 */

/** Tunables of the lifecycle, from config (see settingsFromConfig in src/purchases/engine.ts). */
export interface LifecycleSettings {
  /** The client's confirm read timeout: a confirm can be in flight this long after it was sent. */
  confirmTimeoutMs: number;
  /** Extra time after confirmTimeoutMs before `transaction_not_found` may mean "not charged". */
  inFlightMarginMs: number;
  /** First reconcile delay; doubles per attempt, plus up to 50% jitter. */
  baseDelayMs: number;
  /** Ceiling of one backoff delay. */
  maxDelayMs: number;
  /** How long after the confirm reconcile keeps asking before `needs_attention`. */
  deadlineMs: number;
  /** Confirm sends allowed when earlier ones provably never reached the service. */
  maxConfirmAttempts: number;
}

/** What the engine tells the machine about a failed call (plain data: no Error objects). */
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
  | { type: 'RETRY_ERR'; error: ErrorInfo; at: string; random: number };

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
 * The original confirm can no longer be in flight: well past its client timeout, counted from
 * the send at the latest — which is no later than when the call came back, if that is known.
 */
const pastInFlight = (context: PurchaseContext, event: { at: string }) => {
  const ended = ms(context.confirmEndedAt);
  const lastAnswer = Math.max(
    ms(context.confirmSentAt) + context.settings.confirmTimeoutMs,
    Number.isFinite(ended) ? ended : -Infinity,
  );
  return ms(event.at) > lastAnswer + context.settings.inFlightMarginMs;
};

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
     * `retries_disabled` (managed-retry account) hands the outcome to the service — but only once
     * the original confirm can no longer be in flight: the account mode is answered whatever the
     * transaction's state, and a live confirm's success arriving after `managed_retry` is lost.
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
    definitiveRefusal: ({ event }) => event.type === 'RETRY_ERR' && isDefinitiveRefusal(event.error),
    pastDeadline: ({ context, event }) => ms(event.at) >= ms(context.reconcileDeadlineAt),
  },
  actions: {
    startConfirm: assign({
      confirmSentAt: ({ event }) => (event as { at: string }).at,
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
    handOverToService: assign({
      lastError: ({ event }) => errorOf(event),
      failure: null,
      settledAt: ({ event }) => (event as { at: string }).at,
      delayMs: null,
    }),
    giveUp: assign({
      lastError: ({ context, event }) => errorOf(event) ?? context.lastError,
      failure: ({ context }) => ({
        code: context.lastError?.code ?? 'reconcile_deadline',
        message: 'The outcome could not be established before the reconcile deadline',
        charged: 'unknown' as const,
      }),
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
      on: { CONFIRM_START: { target: 'confirming', actions: 'startConfirm' } },
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
            target: 'managed_retry',
            actions: ['countAttempt', 'handOverToService'],
          },
          {
            guard: 'provedNotCharged',
            target: 'failed',
            actions: ['countAttempt', 'countNotFound', 'failNotCharged'],
          },
          { guard: 'definitiveRefusal', target: 'failed', actions: ['countAttempt', 'failNotCharged'] },
          { guard: 'pastDeadline', target: 'needs_attention', actions: ['countAttempt', 'giveUp'] },
          { guard: 'isNotFound', target: 'reconciling', actions: ['countNotFound', 'waitAndAskAgain'] },
          { target: 'reconciling', actions: ['resetNotFound', 'waitAndAskAgain'] },
        ],
      },
    },
    // The settled states (SETTLED_STATES of src/purchases/types.ts): nothing moves a purchase on.
    succeeded: { type: 'final' },
    failed: { type: 'final' },
    needs_attention: { type: 'final' },
    managed_retry: { type: 'final' },
  },
});

export type PurchaseSnapshot = SnapshotFrom<typeof purchaseMachine>;

/** The machine's context for a stored record. */
export function contextOf(record: PurchaseRecord, settings: LifecycleSettings): PurchaseContext {
  return {
    settings,
    confirmSentAt: record.confirmSentAt,
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
