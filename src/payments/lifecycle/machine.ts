import { and, assign, setup, type SnapshotFrom } from 'xstate';
import { nextSnapshot } from '../../xstate/internals';
import type { PaymentStatus } from '../port';
import type { PaymentRecord, PaymentRecordState } from '../store/types';
import type { PaymentContext, PaymentEvent, PaymentLifecycleSettings } from './types';
import {
  errorOf,
  eventAt,
  iso,
  mismatchOf,
  ms,
  nextPoll,
  paidFacts,
  polled,
  refundNotFound,
  waitUntil,
} from './verdicts';

/**
 * The payment lifecycle: a pure decision machine, shaped like src/purchases/lifecycle/machine.ts. It
 * classifies what the provider answered (the collect's answer, a callback, a status query, a
 * refund's answer) into the next state and computes when to ask again; it performs no I/O. The
 * lifecycle (src/payments/lifecycle/runner.ts) writes each decision with compare-and-set BEFORE the side
 * effect it allows (the payment row before the collect, `refund_requested` before the refund).
 *
 *   requested → pending → successful | failed | unknown        (requested → failed when refused)
 *   pending → requested        a collect that never landed, re-sent with the same reference
 *                              (only where the provider de-duplicates on it: never for Daraja)
 *   unknown | failed → successful    money that came after all (then given back)
 *   successful → refund_requested → refunded | refund_failed | needs_attention
 *   needs_attention → refunded | refund_failed       the provider answered late
 *
 * Only a `successful` answer whose amount, currency and references match the payment marks it
 * paid, and a callback only when the provider vouches for it (its signature, its own key, or its
 * status query since); a later, weaker signal never overwrites a success.
 */

export type {
  PaymentContext,
  PaymentErrorInfo,
  PaymentEvent,
  PaymentFacts,
  PaymentLifecycleSettings,
} from './types';

/** A definitive answer about the money decides the payment, whatever state awaited it. */
const verdict = [
  { guard: 'paid', target: 'successful', actions: 'markPaid' },
  { guard: 'notPaid', target: 'failed', actions: 'markUnpaid' },
] as const;

export const paymentMachine = setup({
  types: {
    context: {} as PaymentContext,
    events: {} as PaymentEvent,
    input: {} as PaymentContext,
  },
  guards: {
    /**
     * A success that is this payment's: references and money match (see mismatchOf), and, for a
     * callback, the provider stands behind it (our URL's key alone is no proof).
     */
    paid: ({ context, event }) =>
      (event.type === 'CALLBACK' &&
        event.notice.state === 'successful' &&
        event.vouched &&
        mismatchOf(context.payment, event.notice, true) === null) ||
      (event.type === 'STATUS' &&
        event.status.state === 'successful' &&
        mismatchOf(context.payment, event.status, false) === null),
    /** A definitive "not paid" (a not-found status is judged apart: it may only be lag). */
    notPaid: ({ event }) =>
      (event.type === 'CALLBACK' && event.notice.state === 'failed') ||
      (event.type === 'STATUS' && event.status.state === 'failed' && event.status.reason !== 'not_found'),
    notFound: ({ event }) =>
      event.type === 'STATUS' && event.status.state === 'failed' && event.status.reason === 'not_found',
    /** Not found twice: the collect never landed. */
    neverLanded: ({ context, event }) =>
      event.type === 'STATUS' &&
      event.status.state === 'failed' &&
      event.status.reason === 'not_found' &&
      context.payment.notFoundCount + 1 >= 2,
    mayResend: ({ context }) =>
      context.settings.resendSafe && context.payment.requestAttempts < context.settings.maxRequestAttempts,
    /** The collect may have reached the provider: wait for its answer, never send it again blindly. */
    requestUnknown: ({ event }) => event.type === 'REQUEST_ERR' && event.error.outcome === 'unknown',
    pastExpiry: ({ context, event }) => ms(eventAt(event)) >= ms(context.payment.expiresAt),
    refundDone: ({ event }) => event.type === 'REFUND_ANSWER' && event.status.state === 'successful',
    /** The provider refused the refund (a not-found status answer is no refusal: see refundNotFound). */
    refundRefused: ({ event }) =>
      (event.type === 'REFUND_ANSWER' && event.status.state === 'failed' && !refundNotFound(event.status)) ||
      (event.type === 'REFUND_ERR' && event.error.outcome !== 'unknown'),
    pastRefundDeadline: ({ context, event }) => ms(eventAt(event)) >= ms(context.payment.refund?.deadlineAt),
  },
  actions: {
    accept: assign({
      payment: ({ context, event }) => ({
        ...context.payment,
        providerReference:
          (event as Extract<PaymentEvent, { type: 'REQUEST_ACCEPTED' }>).providerReference ??
          context.payment.providerReference,
        lastError: null,
      }),
      delayMs: ({ context, event }) => waitUntil(context.settings, 0, event, context.payment.expiresAt),
    }),
    /** The collect may be on its way: ask about it from the first poll on. */
    awaitAnswer: assign({
      payment: ({ context, event }) => ({ ...context.payment, lastError: errorOf(event) ?? lostError }),
      delayMs: ({ context, event }) =>
        event.type === 'REQUEST_LOST' ? 0 : waitUntil(context.settings, 0, event, context.payment.expiresAt),
    }),
    refused: assign({
      payment: ({ context, event }) => ({
        ...context.payment,
        reason: 'other' as const,
        detail: 'error' in event ? event.error.message : null,
        lastError: errorOf(event),
        decidedAt: eventAt(event),
      }),
      delayMs: null,
    }),
    markPaid: assign({
      payment: ({ context, event }) => {
        const facts = paidFacts(event);
        return {
          ...context.payment,
          receipt: facts?.receipt ?? context.payment.receipt,
          paidAmount: facts?.amount ?? context.payment.paidAmount,
          providerReference:
            context.payment.providerReference ??
            (event.type === 'CALLBACK' ? (event.notice.providerReference ?? null) : null),
          reason: null,
          decidedAt: eventAt(event),
          recheckUntil: null,
        };
      },
      delayMs: null,
    }),
    markUnpaid: assign({
      payment: ({ context, event }) => {
        const facts = (
          event.type === 'CALLBACK' ? event.notice : (event as { status: PaymentStatus }).status
        ) as PaymentStatus | undefined;
        return {
          ...context.payment,
          reason: facts?.reason ?? 'other',
          detail: facts?.detail ?? null,
          decidedAt: eventAt(event),
          recheckUntil: null,
        };
      },
      delayMs: null,
    }),
    countNotFound: assign({
      payment: ({ context }) => polled(context.payment, context.payment.notFoundCount + 1),
      delayMs: nextPoll,
    }),
    /** The compare-and-set before a collect is sent again with the same reference. */
    resend: assign({
      payment: ({ context, event }) => ({
        ...polled(context.payment, 0),
        requestAttempts: context.payment.requestAttempts + 1,
        requestSentAt: eventAt(event),
      }),
      delayMs: null,
    }),
    askAgain: assign({
      payment: ({ context, event }) => ({
        ...polled(context.payment, 0),
        lastError: errorOf(event) ?? context.payment.lastError,
      }),
      delayMs: nextPoll,
    }),
    /** No definitive answer in the provider's window: money may still move, keep listening. */
    giveUp: assign({
      payment: ({ context, event }) => ({
        ...context.payment,
        reason: 'unknown' as const,
        lastError: errorOf(event) ?? context.payment.lastError,
        decidedAt: eventAt(event),
        recheckUntil: iso(ms(eventAt(event)) + context.settings.recheckForMs),
      }),
      delayMs: ({ context }) => context.settings.recheckEveryMs,
    }),
    startRefund: assign({
      payment: ({ context, event }) => {
        const e = event as Extract<PaymentEvent, { type: 'REFUND_START' }>;
        return {
          ...context.payment,
          refund: {
            id: e.refundId,
            amount: context.payment.amount,
            reason: e.reason,
            requestedAt: e.at,
            providerReference: null,
            deadlineAt: iso(ms(e.at) + context.settings.refundDeadlineMs),
            answeredAt: null,
            pollAttempts: 0,
            decidedAt: null,
            detail: null,
            alreadyRefunded: false,
          },
        };
      },
      delayMs: null,
    }),
    /** A refund answer: what it says is kept on the refund (settled or not). */
    noteRefund: assign({
      payment: ({ context, event }) => {
        const refund = context.payment.refund!;
        const status = event.type === 'REFUND_ANSWER' ? event.status : null;
        const settles =
          status !== null
            ? status.state !== 'pending' && !refundNotFound(status)
            : event.type === 'REFUND_ERR' && event.error.outcome !== 'unknown';
        return {
          ...context.payment,
          refund: {
            ...refund,
            providerReference: status?.providerReference ?? refund.providerReference,
            answeredAt: status ? eventAt(event) : refund.answeredAt,
            pollAttempts: refund.pollAttempts + 1,
            detail: status?.detail ?? ('error' in event ? event.error.message : refund.detail),
            alreadyRefunded: status?.alreadyRefunded ?? refund.alreadyRefunded,
            decidedAt: settles ? eventAt(event) : refund.decidedAt,
          },
          lastError: errorOf(event) ?? context.payment.lastError,
        };
      },
      delayMs: ({ context, event }) =>
        waitUntil(
          context.settings,
          context.payment.refund!.pollAttempts,
          event,
          context.payment.refund!.deadlineAt,
        ),
    }),
    settled: assign({ delayMs: null }),
  },
}).createMachine({
  id: 'payment',
  context: ({ input }) => input,
  initial: 'requested',
  states: {
    requested: {
      on: {
        REQUEST_ACCEPTED: { target: 'pending', actions: 'accept' },
        REQUEST_ERR: [
          { guard: 'requestUnknown', target: 'pending', actions: 'awaitAnswer' },
          // Refused, or never sent: no prompt will reach the payer.
          { target: 'failed', actions: 'refused' },
        ],
        REQUEST_LOST: { target: 'pending', actions: 'awaitAnswer' },
        // A callback can come before the collect's own answer.
        CALLBACK: verdict,
        DEADLINE: { guard: 'pastExpiry', target: 'unknown', actions: 'giveUp' },
      },
    },
    pending: {
      on: {
        // The collect's answer after its row was declared lost (another clock): keep its reference.
        REQUEST_ACCEPTED: { target: 'pending', actions: 'accept' },
        CALLBACK: verdict,
        STATUS: [
          ...verdict,
          { guard: and(['neverLanded', 'mayResend']), target: 'requested', actions: 'resend' },
          { guard: 'neverLanded', target: 'failed', actions: 'markUnpaid' },
          { guard: 'pastExpiry', target: 'unknown', actions: 'giveUp' },
          { guard: 'notFound', target: 'pending', actions: 'countNotFound' },
          // pending, or a success that does not match (refused and logged by the lifecycle)
          { target: 'pending', actions: 'askAgain' },
        ],
        STATUS_ERR: [
          { guard: 'pastExpiry', target: 'unknown', actions: 'giveUp' },
          { target: 'pending', actions: 'askAgain' },
        ],
        DEADLINE: { guard: 'pastExpiry', target: 'unknown', actions: 'giveUp' },
      },
    },
    unknown: {
      on: {
        CALLBACK: verdict,
        STATUS: verdict,
      },
    },
    // A failure told by the provider is final for collection, but money that moves all the same
    // is recorded: it is given back (the purchase was ended unpaid).
    failed: {
      on: { CALLBACK: { guard: 'paid', target: 'successful', actions: 'markPaid' } },
    },
    successful: {
      on: { REFUND_START: { target: 'refund_requested', actions: 'startRefund' } },
    },
    refund_requested: {
      on: {
        REFUND_ANSWER: [
          { guard: 'refundDone', target: 'refunded', actions: ['noteRefund', 'settled'] },
          { guard: 'refundRefused', target: 'refund_failed', actions: ['noteRefund', 'settled'] },
          { guard: 'pastRefundDeadline', target: 'needs_attention', actions: ['noteRefund', 'settled'] },
          { target: 'refund_requested', actions: 'noteRefund' },
        ],
        REFUND_ERR: [
          { guard: 'refundRefused', target: 'refund_failed', actions: ['noteRefund', 'settled'] },
          { guard: 'pastRefundDeadline', target: 'needs_attention', actions: ['noteRefund', 'settled'] },
          { target: 'refund_requested', actions: 'noteRefund' },
        ],
        DEADLINE: { guard: 'pastRefundDeadline', target: 'needs_attention', actions: 'settled' },
      },
    },
    refunded: { type: 'final' },
    // The provider refused the refund: a person returns the money (the care queue).
    refund_failed: {},
    // No final answer in time: a person finds out; a late answer still settles it.
    needs_attention: {
      on: {
        REFUND_ANSWER: [
          { guard: 'refundDone', target: 'refunded', actions: ['noteRefund', 'settled'] },
          { guard: 'refundRefused', target: 'refund_failed', actions: ['noteRefund', 'settled'] },
        ],
      },
    },
  },
});

const lostError = { code: 'request_lost', message: 'worker stopped while requesting', outcome: 'unknown' };

export type PaymentSnapshot = SnapshotFrom<typeof paymentMachine>;

/** A decided transition: the next record (state and version are the store's to write) and when to ask next. */
export interface PaymentDecision {
  from: PaymentRecordState;
  to: PaymentRecordState;
  next: PaymentRecord;
  delayMs: number | null;
}

/** Feed `event` to the machine in the payment's state; null when the state does not take it. */
export function decidePayment(
  payment: PaymentRecord,
  event: PaymentEvent,
  settings: PaymentLifecycleSettings,
): PaymentDecision | null {
  const snapshot = paymentMachine.resolveState({
    value: payment.state,
    context: { settings, payment, delayMs: null },
  });
  if (!snapshot.can(event)) return null;
  const next = nextSnapshot(paymentMachine, snapshot, event);
  const to = next.value as PaymentRecordState;
  return {
    from: payment.state,
    to,
    next: { ...next.context.payment, state: to },
    delayMs: next.context.delayMs,
  };
}

/** The wait before the next re-check of an `unknown` payment; null once its window is over. */
export function nextRecheckMs(
  payment: PaymentRecord,
  at: string,
  settings: PaymentLifecycleSettings,
  round: number,
) {
  const until = ms(payment.recheckUntil);
  if (!Number.isFinite(until) || ms(at) >= until) return null;
  const delay = Math.min(settings.recheckEveryMs * 2 ** Math.min(round, 20), settings.pollMaxMs * 12);
  return Math.min(delay, until - ms(at));
}
