import type { Money } from '../../vas/money';
import type { PaymentFailureReason } from '../port';

/**
 * Lifecycle states of a payment (see src/payments/lifecycle/machine.ts), in order:
 *
 *   requested → pending → successful | failed | unknown
 *   successful → refund_requested → refunded | refund_failed | needs_attention
 *
 * `requested`: the row is written and the collect is being sent (or its sender died);
 * `unknown`: no definitive answer before the provider's window closed — money that still comes
 * is recorded (→ successful) and given back.
 */
export const PAYMENT_STATES = [
  'requested',
  'pending',
  'successful',
  'failed',
  'unknown',
  'refund_requested',
  'refunded',
  'refund_failed',
  'needs_attention',
] as const;

export type PaymentRecordState = (typeof PAYMENT_STATES)[number];

/** States in which the buyer's money is with us (or on its way back): collected. */
export const COLLECTED_STATES: readonly PaymentRecordState[] = [
  'successful',
  'refund_requested',
  'refunded',
  'refund_failed',
  'needs_attention',
];

/** The refund states a person must look at (the care queue): the provider refused, or never said. */
export const REFUND_CARE_STATES: readonly PaymentRecordState[] = ['refund_failed', 'needs_attention'];

/** Why a payment ended without money: a provider's reason, or `unknown` (no answer in time). */
export type UnpaidReason = PaymentFailureReason | 'unknown';

/** Why money is given back. */
export type RefundReason =
  /** The purchase was paid, then its vend failed definitively (no token issued). */
  | 'vend_failed'
  /** The money came after the purchase was ended unpaid (a late success). */
  | 'late_payment';

export interface RefundRecord {
  /** Our refund's key (UUID): MoMo's X-Reference-Id for it, the generic provider's key. */
  id: string;
  amount: Money;
  reason: RefundReason;
  requestedAt: string;
  /** The provider's key for the refund, once told (Daraja OriginatorConversationID). */
  providerReference: string | null;
  /** No final answer by then → needs_attention. */
  deadlineAt: string;
  /** When the provider last answered about it (null: the call's answer was lost). */
  answeredAt: string | null;
  pollAttempts: number;
  decidedAt: string | null;
  /** The provider's words, for care. */
  detail: string | null;
  /** Daraja R000001: the receipt had been reversed before. */
  alreadyRefunded: boolean;
}

export interface PaymentRecord {
  /** Our reference (UUID), sent to the provider with the collect. */
  id: string;
  /**
   * What it pays for, the key of its jobs: a purchase's id, or `topup:<id>` for an agent's own
   * float top-up (agent_topups, no purchase behind it; see {@link topUpIdOf}).
   */
  purchaseId: string;
  /** `PAYMENT_PROVIDER` name that was asked. */
  provider: string;
  /** Who pays (E.164 digits). */
  payerMsisdn: string;
  amount: Money;
  description: string;
  state: PaymentRecordState;
  /** Compare-and-set version: every write increments it. */
  version: number;
  /** When the row was written, just before the first collect (ISO). */
  requestedAt: string;
  updatedAt: string;
  /** Collect calls started, each after a compare-and-set (>1 only where the provider de-duplicates). */
  requestAttempts: number;
  /** When the last collect was started (ISO). */
  requestSentAt: string;
  /** The provider's key for the payment, once told. */
  providerReference: string | null;
  /** The provider's window plus a margin (ISO): no definitive answer by then → unknown. */
  expiresAt: string;
  pollAttempts: number;
  /** Consecutive `not_found` status answers (MoMo: re-check once before believing it). */
  notFoundCount: number;
  /** The provider's receipt for the money (M-Pesa receipt number, MoMo financialTransactionId). */
  receipt: string | null;
  /** What the provider said was paid, when it said it. */
  paidAmount: Money | null;
  reason: UnpaidReason | null;
  /** The provider's words, for care. */
  detail: string | null;
  lastError: { code: string; message: string; outcome: string } | null;
  /** When it became successful, failed or unknown (ISO). */
  decidedAt: string | null;
  /** Earliest time of the next status query (ISO), for operators and resume. */
  nextAttemptAt: string | null;
  /** While `unknown`: ask the provider now and then until this time (ISO). */
  recheckUntil: string | null;
  /**
   * While `unknown`: the re-check round due next and when (ISO; absent: round 0 at
   * `nextAttemptAt`), so the sweep resumes the one chain where it stands, never a second beside it.
   */
  recheckRound?: number;
  recheckAt?: string | null;
  /** A person looked an `unknown` payment up at the provider once its re-checks were over (src/payments/unknown.ts). */
  review?: { by: string; at: string; note: string };
  refund: RefundRecord | null;
}

/** A payment as it is first written: `requested`, its collect about to be sent. */
export function newPaymentRecord(
  fields: Pick<
    PaymentRecord,
    'id' | 'purchaseId' | 'provider' | 'payerMsisdn' | 'amount' | 'description' | 'requestedAt' | 'expiresAt'
  >,
): PaymentRecord {
  return {
    ...fields,
    state: 'requested',
    version: 1,
    updatedAt: fields.requestedAt,
    requestAttempts: 1,
    requestSentAt: fields.requestedAt,
    providerReference: null,
    pollAttempts: 0,
    notFoundCount: 0,
    receipt: null,
    paidAmount: null,
    reason: null,
    detail: null,
    lastError: null,
    decidedAt: null,
    nextAttemptAt: null,
    recheckUntil: null,
    refund: null,
  };
}

const TOPUP_SUBJECT = 'topup:';

/** The subject key (`PaymentRecord.purchaseId`) of an agent's top-up. */
export function topUpSubject(topUpId: string): string {
  return `${TOPUP_SUBJECT}${topUpId}`;
}

/** The top-up a payment pays for, or null when it pays for a purchase. */
export function topUpIdOf(subject: string): string | null {
  return subject.startsWith(TOPUP_SUBJECT) ? subject.slice(TOPUP_SUBJECT.length) : null;
}

/** An agent's own float top-up (agent_topups): one payment request per request key. */
export interface AgentTopUp {
  id: string;
  /** The request that asked for it (the TOPUP message's key): asked once per key. */
  requestKey: string;
  msisdn: string;
  amount: Money;
  /** `requested` until the agent is told: `credited` (the float has it) or `failed` (no money came). */
  state: 'requested' | 'credited' | 'failed';
  requestedAt: string;
  decidedAt: string | null;
}
