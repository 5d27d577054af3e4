/**
 * What the payers do: each new prompt is given its test payer's behaviour and its outcome is
 * scheduled; manual prompts wait for an answer; accepted refunds complete after a short delay.
 * Outcomes are announced through `Announce` (the wire formats' callbacks), never sent here.
 */
import type { Timers } from './faults';
import {
  type Failure,
  type Ledger,
  type NewPayment,
  type Payment,
  type Refund,
  type RefundRequest,
} from './ledger';
import { behaviourOf, isTestPayer } from './payers';

export interface PayerTiming {
  /** Before an answering payer answers (approve, decline, …, and unlisted numbers). */
  approveDelayMs: number;
  /** Before a late_success payer pays. */
  lateSuccessDelayMs: number;
  /** Before an unanswered prompt (no_answer, manual) expires. */
  promptExpiryMs: number;
  /** Before an accepted refund completes. */
  refundDelayMs: number;
  /** What a number that is not a test payer does. */
  unlisted: 'approve' | 'manual';
}

export interface Announce {
  /** A payment ended: send its callback `times` times (0 for callback_lost). */
  payment(payment: Payment, times: number): void;
  refund(refund: Refund): void;
}

export class PromptAnswerError extends Error {
  constructor(
    readonly status: 404 | 409,
    message: string,
  ) {
    super(message);
    this.name = 'PromptAnswerError';
  }
}

type Plan = { afterMs: number; outcome: { paid: true } | { paid: false; failure: Failure }; times: number };

export class Payments {
  /** Numbers that are not test payers but answer their prompts by hand (the simulator's phones). */
  private readonly manual = new Set<string>();

  constructor(
    private readonly ledger: Ledger,
    private readonly timers: Timers,
    private readonly timing: PayerTiming,
    private readonly announce: Announce,
  ) {}

  /**
   * Switch a number that is not a test payer to manual answers (`on`) or back; false for a test
   * payer, whose behaviour is scripted. Prompts already sent keep the behaviour they were given.
   */
  setManual(msisdn: string, on: boolean): boolean {
    if (isTestPayer(msisdn)) return false;
    if (on) this.manual.add(msisdn);
    else this.manual.delete(msisdn);
    return true;
  }

  /** The numbers switched to manual answers, in the order they were switched. */
  manualNumbers(): string[] {
    return [...this.manual];
  }

  /** Records a new prompt to `input.msisdn` and schedules what its payer does. */
  collect(input: Omit<NewPayment, 'behaviour' | 'createdAt'>): Payment {
    const now = new Date();
    const behaviour = behaviourOf(input.msisdn, this.timing.unlisted, this.manual);
    const payment = this.ledger.add({ ...input, behaviour, createdAt: now });
    if (behaviour === 'manual' || behaviour === 'no_answer') {
      payment.expiresAt = new Date(now.getTime() + this.timing.promptExpiryMs);
    }
    const plan = this.plan(payment);
    this.timers.after(plan.afterMs, () => this.end(payment, plan.outcome, plan.times));
    return payment;
  }

  /** Prompts waiting for a manual answer, oldest first; all numbers when `msisdn` is absent. */
  prompts(msisdn?: string): Payment[] {
    return this.ledger
      .allPayments()
      .filter((p) => p.behaviour === 'manual' && p.state === 'pending' && (!msisdn || p.msisdn === msisdn))
      .reverse();
  }

  /** The payer's answer to a manual prompt. */
  answer(id: string, approve: boolean): Payment {
    const payment = this.ledger.payment(id);
    if (!payment) throw new PromptAnswerError(404, `no prompt ${id}`);
    if (payment.behaviour !== 'manual')
      throw new PromptAnswerError(409, `prompt ${id} is not answered manually`);
    if (payment.state !== 'pending') throw new PromptAnswerError(409, `prompt ${id} has already ended`);
    this.end(payment, approve ? { paid: true } : { paid: false, failure: 'declined' }, 1);
    return payment;
  }

  /** A failed payment paid after all (`POST /sandbox/payments/{id}/late-success`), announced once. */
  payLate(id: string): Payment {
    const payment = this.ledger.payment(id);
    if (!payment) throw new PromptAnswerError(404, `no payment ${id}`);
    if (!this.ledger.payLate(payment, new Date()))
      throw new PromptAnswerError(
        409,
        `payment ${id} is ${payment.state}: only a failed one can be paid late`,
      );
    this.announce.payment(payment, 1);
    return payment;
  }

  /** Records a refund; an accepted one completes after `refundDelayMs`, a refused one is announced now. */
  refund(req: Omit<RefundRequest, 'now'>): Refund {
    const refund = this.ledger.requestRefund({ ...req, now: new Date() });
    if (refund.state === 'failed') {
      this.announce.refund(refund);
    } else {
      this.timers.after(this.timing.refundDelayMs, () => {
        if (this.ledger.completeRefund(refund, new Date())) this.announce.refund(refund);
      });
    }
    return refund;
  }

  private end(payment: Payment, outcome: Plan['outcome'], times: number): void {
    if (this.ledger.settle(payment, outcome, new Date())) this.announce.payment(payment, times);
  }

  private plan(payment: Payment): Plan {
    const t = this.timing;
    const paid = { paid: true } as const;
    const failed = (failure: Failure) => ({ paid: false, failure }) as const;
    switch (payment.behaviour) {
      case 'approve':
        return { afterMs: t.approveDelayMs, outcome: paid, times: 1 };
      case 'decline':
        return { afterMs: t.approveDelayMs, outcome: failed('declined'), times: 1 };
      case 'insufficient_funds':
        return { afterMs: t.approveDelayMs, outcome: failed('insufficient_funds'), times: 1 };
      case 'callback_lost':
        return { afterMs: t.approveDelayMs, outcome: paid, times: 0 };
      case 'duplicate_callback':
        return { afterMs: t.approveDelayMs, outcome: paid, times: 2 };
      case 'late_success':
        return { afterMs: t.lateSuccessDelayMs, outcome: paid, times: 1 };
      case 'no_answer':
      case 'manual':
        return { afterMs: t.promptExpiryMs, outcome: failed('expired'), times: 1 };
    }
  }
}

/** Text of the prompt the payer's phone shows (the simulator renders it). */
export function promptText(amount: string, payee: string): string {
  return `Pay ${amount} to ${payee}. Enter PIN`;
}
