import { assign, setup, type SnapshotFrom } from 'xstate';
import { nextSnapshot } from '../../xstate/internals';
import type { PurchaseRecord, PurchaseState } from '../types';
import { resultFromTransaction } from '../types';
import type { Transaction } from '../../vas/port';
import type { LifecycleSettings, PurchaseContext, PurchaseEvent } from './types';
import {
  backoffMs,
  errorOf,
  isConfirmRefusal,
  isDefinitiveRefusal,
  isNotSent,
  isResendable,
  mayConclude,
  ms,
  pastManagedWindow,
  recheckUntil,
  waitMs,
  type TimedEvent,
} from './verdicts';

/**
 * The purchase lifecycle: a pure decision machine. It classifies what the purchase service
 * answered into the next state and computes when to ask again; it performs no I/O. The lifecycle
 * (src/purchases/lifecycle/runner.ts) persists each decided transition with compare-and-set BEFORE the
 * side effect it allows (e.g. `created → confirming` before sending confirm).
 *
 *   created → confirming → succeeded | failed | unknown   (confirming → created only when not sent)
 *   unknown → reconciling → succeeded | failed | needs_attention
 *   failed (no charge found) | needs_attention → succeeded   a later re-check found the success
 *   needs_attention → resolved (an operator closed it) | reconciling (an operator asked again)
 *   created → failed          the buyer's payment did not come (payment_failed, nothing confirmed),
 *                             or was never asked for (payment_not_started)
 *   failed → needs_attention  the buyer's money could not be given back (the refund needs a person)
 */

export type { ErrorInfo, LifecycleSettings, PurchaseContext, PurchaseEvent } from './types';

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
    /**
     * The service refused the confirm with a documented code and owns no retry of it (a
     * managed-retry account's service retries a refusal itself: not final for its window).
     */
    confirmRefused: ({ context, event }) =>
      event.type === 'CONFIRM_ERR' && isConfirmRefusal(event.error) && context.managedRetryUntil === null,
    /**
     * `retries_disabled` (managed-retry account): the gateway cannot learn the outcome, so an
     * operator must — but only once the original confirm can no longer be in flight, since the
     * account mode is answered whatever the transaction's state and a live confirm may still answer,
     * and once the service's own retries are over (managedRetryUntil).
     */
    retriesDisabled: ({ context, event }) =>
      event.type === 'RETRY_ERR' && event.error.code === 'retries_disabled' && mayConclude(context, event),
    /**
     * `transaction_not_found` repeated, both answers given once the original confirm could no
     * longer be in flight (notFoundCount counts only those: see countNotFound).
     */
    provedNotCharged: ({ context, event }) =>
      event.type === 'RETRY_ERR' &&
      event.error.code === 'transaction_not_found' &&
      context.notFoundCount + 1 >= 2 &&
      mayConclude(context, event),
    isNotFound: ({ event }) => event.type === 'RETRY_ERR' && event.error.code === 'transaction_not_found',
    /** Only a verdict inferred from silence is re-checked, never the service's own refusal. */
    noChargeFound: ({ context, event }) =>
      event.type === 'RECHECK_OK' &&
      event.tx.status === 'SUCCESSFUL' &&
      context.failure?.charged === false &&
      context.failure.code === 'transaction_not_found',
    definitiveRefusal: ({ context, event }) =>
      event.type === 'RETRY_ERR' && isDefinitiveRefusal(event.error) && pastManagedWindow(context, event),
    pastDeadline: ({ context, event }) => ms(event.at) >= ms(context.reconcileDeadlineAt),
  },
  actions: {
    startConfirm: assign({
      confirmSentAt: ({ event }) => (event as { at: string }).at,
      confirmInFlightUntil: ({ context, event }) =>
        new Date(ms((event as { at: string }).at) + context.settings.confirmTimeoutMs).toISOString(),
      confirmAttempts: ({ context }) => context.confirmAttempts + 1,
      // The debit account's mode as it is when this confirm goes out: a restart decides the same.
      managedRetryUntil: ({ context, event }) =>
        context.settings.managedRetryAccountIds?.includes(context.debitedAccountId)
          ? new Date(
              ms((event as { at: string }).at) + (context.settings.managedRetryWindowMs ?? 30 * 60_000),
            ).toISOString()
          : null,
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
    /**
     * Entering `unknown`: the deadline runs from the confirm (from the end of a managed-retry
     * account's own retries, when later), reconcile starts after one base delay.
     */
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
          Math.max(
            Number.isFinite(ms(context.confirmSentAt))
              ? ms(context.confirmSentAt)
              : ms((event as { at: string }).at),
            ms(context.managedRetryUntil) || -Infinity,
          ) + context.settings.deadlineMs,
        ).toISOString(),
      delayMs: ({ context }) => context.settings.baseDelayMs,
    }),
    /** A not-found while the confirm may still be in flight proves nothing and is not counted. */
    countNotFound: assign({
      notFoundCount: ({ context, event }) =>
        mayConclude(context, event as TimedEvent) ? context.notFoundCount + 1 : context.notFoundCount,
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
          'The debit account is in managed-retry mode: the service owns the outcome (it refunds the ' +
          'account if its own retries failed); find the transaction by its external reference and ' +
          "resend the token if it succeeded, or return the buyer's money if it did not",
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
    /** No money came from the buyer: nothing was bought, nobody was charged. */
    failUnpaid: assign({
      failure: ({ event }) => ({
        code: (event as { code?: string }).code ?? 'payment_failed',
        message: (event as { reason: string }).reason,
        charged: false as const,
      }),
      lastError: ({ event }) => ({
        code: (event as { code?: string }).code ?? 'payment_failed',
        message: (event as { reason: string }).reason,
        outcome: 'rejected' as const,
      }),
      settledAt: ({ event }) => (event as { at: string }).at,
      delayMs: null,
    }),
    /** The failure stands (nothing was bought); what is left is the buyer's money, for a person. */
    refundStuck: assign({
      lastError: ({ event }) => ({
        code: 'refund_needs_attention',
        message: (event as { detail: string }).detail,
        outcome: 'unknown' as const,
      }),
      settledAt: ({ event }) => (event as { at: string }).at,
      delayMs: null,
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
        PAYMENT_FAILED: { target: 'failed', actions: 'failUnpaid' },
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
          { guard: 'confirmRefused', target: 'failed', actions: 'failNotCharged' },
          // Unknown outcome (timeout, 5xx), a 4xx that is no verdict (a proxy's page, an unknown
          // code, upstream_error), or a refusal a managed-retry account's service still retries.
          { target: 'unknown', actions: 'becomeUnknown' },
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
      on: {
        RECHECK_OK: { guard: 'noChargeFound', target: 'succeeded', actions: 'correct' },
        REFUND_STUCK: { target: 'needs_attention', actions: 'refundStuck' },
      },
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
    debitedAccountId: record.intent.debitedAccountId,
    managedRetryUntil: record.managedRetryUntil ?? null,
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
    | 'managedRetryUntil'
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
  const next = nextSnapshot(purchaseMachine, snapshot, event);
  const { settings: _settings, debitedAccountId: _account, delayMs, ...patch } = next.context;
  return { from: record.state, to: next.value as PurchaseState, patch, delayMs };
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
