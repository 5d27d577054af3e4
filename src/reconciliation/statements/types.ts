import type { Money } from '../../vas/money';

/** The providers whose statements are read: M-Pesa (Safaricom) and MTN MoMo. */
export type StatementProvider = 'mpesa' | 'momo';

/** The formats read (docs/reconciliation.md#the-statements). */
export const STATEMENT_FORMATS = ['mpesa-portal-csv', 'momo-portal-csv', 'daraja-pull-json'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

/**
 * One completed movement of money on the provider's account, as its statement says it:
 * `payment` — a payer's money in; `refund` — money given back to a payer (a reversal, a
 * disbursement refund); `other` — charges, settlements to the bank, transfers (counted, never
 * matched). Failed and pending lines are not kept: no money moved.
 */
export interface StatementLine {
  provider: StatementProvider;
  /** The provider's receipt: M-Pesa's Receipt No. / TransID, MoMo's Id (financialTransactionId). */
  receipt: string;
  completedAt: Date;
  kind: 'payment' | 'refund' | 'other';
  /** Always positive: the direction is the kind. */
  amount: Money;
  /** The payer's number (E.164 digits) when the line names one. */
  payer: string | null;
  /** M-Pesa's account reference (Acc. / BillRefNumber), MoMo's External Transaction Id. */
  accountReference: string | null;
  /** The receipt a reversal gives back (M-Pesa's Linked Transaction ID). */
  linkedReceipt: string | null;
  details: string;
}

export interface ParsedStatement {
  provider: StatementProvider;
  format: StatementFormat;
  lines: StatementLine[];
  /** Lines that moved no money (failed, pending, cancelled): read and left out. */
  skipped: number;
}

/** A statement that is not one of the formats read, or a line that does not parse: nothing is kept. */
export class StatementFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatementFormatError';
  }
}
