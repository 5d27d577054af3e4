/**
 * The payment sandbox's state: every payment prompt and every refund, in memory, in exact
 * minor units. State changes happen here and only here, synchronously, so two concurrent
 * refunds of one payment can never both pass the "at most what was paid, at most once" check.
 */
import { randomInt } from 'node:crypto';
import { formatMoney, type Money } from '../../vas/money';
import type { Behaviour } from './payers';

export type Wire = 'daraja' | 'momo';
export type PaymentState = 'pending' | 'successful' | 'failed';
export type Failure = 'declined' | 'insufficient_funds' | 'expired';
/** Why a refund was refused (recorded as a failed refund, answered in each wire's words). */
export type RefundRefusal =
  'not_found' | 'not_paid' | 'already_refunded' | 'exceeds_paid' | 'currency_mismatch';

export interface Payment {
  /** The provider's key: Daraja's CheckoutRequestID, MoMo's X-Reference-Id. */
  id: string;
  wire: Wire;
  msisdn: string;
  amount: Money;
  behaviour: Behaviour;
  state: PaymentState;
  failure: Failure | null;
  /** Daraja's MpesaReceiptNumber or MoMo's financialTransactionId, once paid. */
  receipt: string | null;
  /** Who the prompt says is paid (AccountReference, payeeNote). */
  payee: string;
  callbackUrl: string | null;
  /** Wire-only fields echoed back (MerchantRequestID, externalId, payerMessage, …). */
  wireData: Record<string, string>;
  /** The one refund that was accepted (pending or done); refused attempts are not linked. */
  refund: Refund | null;
  createdAt: Date;
  /** When an unanswered prompt ends (no_answer, manual). */
  expiresAt: Date | null;
  completedAt: Date | null;
}

export interface Refund {
  /** Daraja's OriginatorConversationID, MoMo's refund X-Reference-Id. */
  id: string;
  wire: Wire;
  paymentId: string | null;
  amount: Money;
  state: PaymentState;
  refusal: RefundRefusal | null;
  receipt: string | null;
  callbackUrl: string | null;
  wireData: Record<string, string>;
  createdAt: Date;
  completedAt: Date | null;
  /** The provider said it was done but the money never went back: it is left off the statement. */
  dropped?: boolean;
}

/**
 * Money in that no prompt asked for: a payer who paid the till or paybill directly, or a second
 * charge for a prompt already paid. On the statement only; no callback announces it.
 */
export interface DirectPayment {
  receipt: string;
  wire: Wire;
  msisdn: string;
  amount: Money;
  /** The account reference the payer typed (or the prompt's, for a second charge). */
  accountReference: string;
  /** The prompt charged again, when it is one. */
  paymentId: string | null;
  completedAt: Date;
}

export type NewPayment = Omit<
  Payment,
  'state' | 'failure' | 'receipt' | 'refund' | 'completedAt' | 'createdAt' | 'expiresAt'
> & { createdAt: Date };

export interface RefundRequest {
  id: string;
  wire: Wire;
  /** The payment named by the request (undefined when the reference matched none). */
  payment: Payment | undefined;
  amount: Money;
  callbackUrl: string | null;
  wireData: Record<string, string>;
  now: Date;
}

/** The status a payment shows in `GET /sandbox/payments`. */
export function shownStatus(p: Payment): 'pending' | 'successful' | 'failed' | 'refunded' {
  return p.refund?.state === 'successful' ? 'refunded' : p.state;
}

export function refundedMinor(p: Payment): number {
  return p.refund?.state === 'successful' ? p.refund.amount.minor : 0;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export class Ledger {
  private readonly payments = new Map<string, Payment>();
  private readonly refunds = new Map<string, Refund>();
  private readonly direct: DirectPayment[] = [];

  has(id: string): boolean {
    return this.payments.has(id);
  }

  add(input: NewPayment): Payment {
    const payment: Payment = {
      ...input,
      state: 'pending',
      failure: null,
      receipt: null,
      refund: null,
      expiresAt: null,
      completedAt: null,
    };
    this.payments.set(payment.id, payment);
    return payment;
  }

  payment(id: string): Payment | undefined {
    return this.payments.get(id);
  }

  /** Daraja reverses by receipt (`TransactionID`). */
  paymentByReceipt(wire: Wire, receipt: string): Payment | undefined {
    return [...this.payments.values()].find((p) => p.wire === wire && p.receipt === receipt);
  }

  /** Newest first. */
  allPayments(): Payment[] {
    return [...this.payments.values()].reverse();
  }

  refund(id: string): Refund | undefined {
    return this.refunds.get(id);
  }

  allRefunds(): Refund[] {
    return [...this.refunds.values()].reverse();
  }

  /** Ends a pending payment; false when it had already ended (a late answer changes nothing). */
  settle(payment: Payment, outcome: { paid: true } | { paid: false; failure: Failure }, now: Date): boolean {
    if (payment.state !== 'pending') return false;
    payment.completedAt = now;
    if (outcome.paid) {
      payment.state = 'successful';
      payment.receipt = newReceipt(payment.wire);
    } else {
      payment.state = 'failed';
      payment.failure = outcome.failure;
    }
    return true;
  }

  /**
   * The money moves after the prompt was reported failed (a wallet that took it late): a failed
   * payment becomes paid. False unless it had failed.
   */
  payLate(payment: Payment, now: Date): boolean {
    if (payment.state !== 'failed') return false;
    payment.completedAt = now;
    payment.state = 'successful';
    payment.failure = null;
    payment.receipt = newReceipt(payment.wire);
    return true;
  }

  /**
   * Records a refund request: accepted (pending, linked to its payment) when the payment was
   * paid, in the same currency, for at least this amount, and has no other accepted refund;
   * otherwise recorded as failed with the refusal.
   */
  requestRefund(req: RefundRequest): Refund {
    const refusal = refusalOf(req.payment, req.amount);
    const refund: Refund = {
      id: req.id,
      wire: req.wire,
      paymentId: req.payment?.id ?? null,
      amount: req.amount,
      state: refusal ? 'failed' : 'pending',
      refusal,
      receipt: null,
      callbackUrl: req.callbackUrl,
      wireData: req.wireData,
      createdAt: req.now,
      completedAt: refusal ? req.now : null,
    };
    this.refunds.set(refund.id, refund);
    if (!refusal && req.payment) req.payment.refund = refund;
    return refund;
  }

  /** Money in without a prompt (see {@link DirectPayment}). */
  addDirect(input: Omit<DirectPayment, 'receipt' | 'completedAt'>, now: Date): DirectPayment {
    const entry: DirectPayment = { ...input, receipt: newReceipt(input.wire), completedAt: now };
    this.direct.push(entry);
    return entry;
  }

  /** Oldest first. */
  directPayments(): readonly DirectPayment[] {
    return this.direct;
  }

  /** The money goes back: a pending refund succeeds. */
  completeRefund(refund: Refund, now: Date): boolean {
    if (refund.state !== 'pending') return false;
    refund.state = 'successful';
    refund.receipt = newReceipt(refund.wire);
    refund.completedAt = now;
    return true;
  }
}

/** Daraja: a letter then 9 of [A-Z0-9] (`NLJ7RT61SV`); MoMo: 10 digits (`1232581108`). */
export function newReceipt(wire: Wire): string {
  if (wire === 'momo') return String(randomInt(1_000_000_000, 9_999_999_999));
  let text = ALPHANUMERIC[randomInt(0, 26)];
  for (let i = 0; i < 9; i += 1) text += ALPHANUMERIC[randomInt(0, ALPHANUMERIC.length)];
  return text;
}

function refusalOf(payment: Payment | undefined, amount: Money): RefundRefusal | null {
  if (!payment) return 'not_found';
  if (payment.refund) return 'already_refunded';
  if (payment.state !== 'successful') return 'not_paid';
  if (payment.amount.currency !== amount.currency) return 'currency_mismatch';
  if (amount.minor > payment.amount.minor) return 'exceeds_paid';
  return null;
}

/** A ledger row as `GET /sandbox/payments` shows it. */
export function paymentRow(p: Payment): object {
  return {
    id: p.id,
    wire: p.wire,
    msisdn: p.msisdn,
    amount: formatMoney(p.amount),
    currency: p.amount.currency,
    status: shownStatus(p),
    refundedAmount: formatMoney({ currency: p.amount.currency, minor: refundedMinor(p) }),
    behaviour: p.behaviour,
    failure: p.failure,
    receipt: p.receipt,
    createdAt: p.createdAt.toISOString(),
    completedAt: p.completedAt?.toISOString() ?? null,
  };
}

export function refundRow(r: Refund): object {
  return {
    id: r.id,
    wire: r.wire,
    paymentId: r.paymentId,
    amount: formatMoney(r.amount),
    status: r.state,
    refusal: r.refusal,
    receipt: r.receipt,
    createdAt: r.createdAt.toISOString(),
    completedAt: r.completedAt?.toISOString() ?? null,
  };
}
