/**
 * The payment machine's data: the lifecycle's tunables, the context it decides on, the events
 * the lifecycle feeds it (answers, callbacks, status queries, refunds), and failed calls as plain data.
 */
import type { PaymentNotice, PaymentStatus, RefundStatus } from '../port';
import type { PaymentRecord, RefundReason } from '../store/types';

/** Tunables of the payment lifecycle (see paymentLifecycleSettings in src/payments/lifecycle/settings.ts). */
export interface PaymentLifecycleSettings {
  /** The collect call's own timeout: a `requested` row older than this (+ lostMarginMs) lost its sender. */
  requestTimeoutMs: number;
  lostMarginMs: number;
  /** How long the payer has to approve (Daraja about 60-90 s, MoMo 5 minutes). */
  windowMs: number;
  /** Extra time after the window before a payment without a definitive answer is `unknown`. */
  marginMs: number;
  /** First status query after the push was accepted; the next ones double from it. */
  pollBaseMs: number;
  /** Ceiling of one wait between status queries. */
  pollMaxMs: number;
  /**
   * The provider de-duplicates collects on our reference (MoMo's X-Reference-Id, the generic
   * provider): a collect it says it never received may be sent again with the same reference.
   * False for Daraja, which has no key: a push is sent once.
   */
  resendSafe: boolean;
  /** Collects sent at most (the first included) where resendSafe. */
  maxRequestAttempts: number;
  /** A refund with no final answer after this long is handed to a person (needs_attention). */
  refundDeadlineMs: number;
  /** While `unknown`: keep asking the provider this long, in case the money came after all. */
  recheckForMs: number;
  /** First wait between those re-checks; doubles up to pollMaxMs × 12. */
  recheckEveryMs: number;
}

/** A failed provider call as plain data (the lifecycle reduces the thrown error to this). */
export interface PaymentErrorInfo {
  name: string;
  code: string;
  message: string;
  /** What the failure means for the money: see PaymentProvider.collect. */
  outcome: 'rejected' | 'not_sent' | 'unknown';
}

/** The facts of a notice or status answer the match is judged on. */
export type PaymentFacts = Pick<PaymentNotice, 'reference' | 'providerReference' | 'amount'>;

export interface PaymentContext {
  settings: PaymentLifecycleSettings;
  payment: PaymentRecord;
  /** Decision: wait this long before the next status or refund query (null = none scheduled). */
  delayMs: number | null;
}

export type PaymentEvent =
  /** The provider accepted the collect: the prompt is on its way. */
  | { type: 'REQUEST_ACCEPTED'; providerReference: string | null; at: string; random: number }
  | { type: 'REQUEST_ERR'; error: PaymentErrorInfo; at: string; random: number }
  /** Found `requested` with nobody answering for it (its sender died mid-call): it may have been sent. */
  | { type: 'REQUEST_LOST'; at: string }
  /**
   * The provider's callback, already authenticated and parsed by its adapter. `vouched`: the
   * provider itself stands behind it (its signature, its own key we stored, or its status query
   * asked since said paid) — a success that is not vouched for never marks the payment paid.
   */
  | { type: 'CALLBACK'; notice: PaymentNotice; vouched: boolean; at: string }
  /** The answer of a status query (for our stored reference). */
  | { type: 'STATUS'; status: PaymentStatus; at: string; random: number }
  | { type: 'STATUS_ERR'; error: PaymentErrorInfo; at: string; random: number }
  /** Time passed with nothing to ask (a Daraja push without its CheckoutRequestID; a silent refund). */
  | { type: 'DEADLINE'; at: string }
  /** Give the money back (written before the refund call; the database allows one per payment). */
  | { type: 'REFUND_START'; refundId: string; reason: RefundReason; at: string }
  | { type: 'REFUND_ANSWER'; status: RefundStatus; at: string; random: number }
  | { type: 'REFUND_ERR'; error: PaymentErrorInfo; at: string; random: number };
