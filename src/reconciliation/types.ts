import type { Money } from '../vas/money';
import type { StatementLine, StatementProvider } from './statements/types';

/** Why two ledgers disagree (docs/reconciliation.md says what each means and what to do). */
export const MISMATCH_REASONS = [
  'paid_not_vended',
  'vended_not_paid',
  'paid_twice',
  'amount_differs',
  'refund_not_in_statement',
  'statement_payment_unknown',
  'wallet_drift',
  'late_settlement',
] as const;
export type MismatchReason = (typeof MISMATCH_REASONS)[number];

/** What an operator should do about one; reconciliation itself never does any of it. */
export const ACTIONS = ['vend', 'refund', 'write_off', 'investigate', 'nothing'] as const;
export type SuggestedAction = (typeof ACTIONS)[number];

/** One of our payments that took the buyer's money, with what it paid for and its refund. */
export interface OurPayment {
  id: string;
  purchaseId: string;
  provider: string;
  payer: string;
  amount: Money;
  receipt: string | null;
  providerReference: string | null;
  /** When it became successful. */
  paidAt: Date;
  state: string;
  /** Null for an agent's float top-up (no purchase behind it). */
  purchase: { state: string; failureCharged: false | 'unknown' | null; total: Money | null } | null;
  refund: OurRefund | null;
}

export interface OurRefund {
  id: string;
  paymentId: string;
  state: string;
  amount: Money;
  providerReference: string | null;
  decidedAt: Date | null;
}

export interface WalletInput {
  accountId: number;
  opening: { at: Date; balance: Money } | null;
  closing: { at: Date; balance: Money } | null;
  /** Σ totals of our purchases debited from it that succeeded in (opening.at, closing.at]. */
  sales: Money;
  salesCount: number;
  /** Σ what the operator declared it put in (or took out) in that window. */
  topups: Money;
}

/** Everything the match of one day reads, loaded by `load.ts` (or built by a test or the bench). */
export interface DayInput {
  day: string;
  from: Date;
  to: Date;
  /** When the run happens: a purchase paid moments ago may still be on its way. */
  now: Date;
  /** Our payments paid in the day, and our refunds done in the day. */
  payments: OurPayment[];
  refunds: OurRefund[];
  /** The statements' lines of the day. */
  lines: StatementLine[];
  /** Lines of other days that name something of ours of this day (settled late or early). */
  linesElsewhere: StatementLine[];
  /** Our payments of other days that lines of this day name (their money came late). */
  paymentsElsewhere: OurPayment[];
  /** Providers with any statement line in the day; and the last line time of each, anywhere. */
  statementDays: Set<StatementProvider>;
  coverageEnd: Partial<Record<StatementProvider, Date>>;
  wallet: WalletInput | null;
  /** Before the day's end by at most this, a payment with no line yet may be in tomorrow's statement. */
  lateWindowMs: number;
  /** A purchase paid less than this before `now` and still being sold is not yet a mismatch. */
  inFlightMs: number;
}

export interface FoundMismatch {
  /** One fact, one key: a second run finds the same key and adds nothing. */
  factKey: string;
  reason: MismatchReason;
  purchaseId: string | null;
  paymentId: string | null;
  amount: Money;
  facts: { ours?: unknown; statement?: unknown; wallet?: unknown };
  action: SuggestedAction;
  /** One line for the queue: what happened, what to do. */
  summary: string;
}

export interface LedgerTotals {
  count: number;
  total: Money[];
}

export interface DayMatch {
  day: string;
  from: string;
  to: string;
  statement: {
    providers: StatementProvider[];
    lines: number;
    payments: LedgerTotals;
    refunds: LedgerTotals;
    other: number;
  };
  ours: { payments: LedgerTotals; refunds: LedgerTotals; notInStatementProviders: string[] };
  wallet: {
    accountId: number;
    opening: string | null;
    closing: string | null;
    sales: string;
    salesCount: number;
    topups: string;
    drift: string | null;
  } | null;
  matched: number;
  /** Matched to a line of another day (settled late): not a mismatch. */
  matchedLate: number;
  /** What is missing for the day to close: a provider's statement, the wallet's balances. */
  missing: string[];
  mismatches: FoundMismatch[];
}
