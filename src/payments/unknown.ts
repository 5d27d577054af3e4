/**
 * Payments whose outcome nobody learnt: `unknown` once their re-checks are over — no callback
 * came and no status could be had (a Daraja push whose answer was lost and whose callback never
 * came, a provider away for the whole window). Its purchase ended unpaid, but the buyer may have
 * paid: this is never left to silence. Each one waits in `/admin/payments/unknown` (and the
 * `payments_outcome_unknown` gauge, alert `PaymentOutcomeUnknown`) until a person has looked the
 * payer up in the provider's statement — or the day's reconciliation named it — given the money
 * back or vended through the usual once-only paths, and says so (`review`, audited).
 */
import { componentLogger, maskMsisdn } from '../observability/logger';
import type { AuditTrail } from '../purchases/care/audit';
import { noteOf } from '../purchases/care/care';
import { formatMoney } from '../vas/money';
import type { SqlPaymentStore } from './store/sql';
import type { PaymentRecord } from './store/types';

const log = componentLogger('payments');

/** No payment of that id waits for a review: gone, decided since, or reviewed already. */
export class UnknownPaymentNotFoundError extends Error {
  constructor(readonly paymentId: string) {
    super(`no payment ${paymentId} waits for a review (unknown, its re-checks over, not reviewed)`);
    this.name = 'UnknownPaymentNotFoundError';
  }
}

export class UnknownPayments {
  constructor(
    private readonly store: Pick<SqlPaymentStore, 'outcomeUnknown' | 'reviewOutcomeUnknown'>,
    /** Care's audit trail: a review is written to it with who did it. */
    private readonly audit: Pick<AuditTrail, 'record'>,
  ) {}

  /** The newest ones, and how many wait. */
  async list(limit: number): Promise<{ total: number; count: number; payments: PaymentRecord[] }> {
    const { total, payments } = await this.store.outcomeUnknown(limit);
    return { total, count: payments.length, payments };
  }

  /** How many wait (the gauge). */
  async count(): Promise<number> {
    return (await this.store.outcomeUnknown(0)).total;
  }

  /**
   * Close one with what the person found and did (`note`: care's rule, not blank; a
   * `CareInputError` otherwise). Audited first-hand as `review_unknown_payment`; the payment's
   * state stays `unknown` (nothing here moves money).
   */
  async review(id: string, note: unknown, actor: string): Promise<PaymentRecord> {
    const text = noteOf(note, true)!;
    const reviewed = await this.store.reviewOutcomeUnknown(id, actor, text);
    if (!reviewed) throw new UnknownPaymentNotFoundError(id);
    await this.audit.record({
      actor,
      action: 'review_unknown_payment',
      purchaseId: reviewed.purchaseId.startsWith('topup:') ? null : reviewed.purchaseId,
      note: text,
      detail:
        `payment ${reviewed.id} (${reviewed.provider} ${reviewed.providerReference ?? 'no provider reference'}): ` +
        `${formatMoney(reviewed.amount)}, payer ${maskMsisdn(reviewed.payerMsisdn)}, requested ${reviewed.requestedAt}`,
    });
    log.warn('payment of unknown outcome reviewed by an operator', { paymentId: id, actor });
    return reviewed;
  }
}
