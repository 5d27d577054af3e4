/**
 * The purchase machine's data: the lifecycle's tunables, the context it decides on, the events
 * the lifecycle feeds it, and failed calls as plain data.
 */
import type { PurchaseFailure, PurchaseRecord, PurchaseResult } from '../types';
import type { CallOutcome } from '../../vas/errors';
import type { Transaction } from '../../vas/port';

/** Tunables of the lifecycle, from config (see settingsFromConfig in src/purchases/lifecycle/runner.ts). */
export interface LifecycleSettings {
  /** The client's confirm read timeout: a confirm can be in flight this long after it was sent. */
  confirmTimeoutMs: number;
  /** Extra time after confirmTimeoutMs before `transaction_not_found` may mean "not charged". */
  inFlightMarginMs: number;
  /**
   * Extra time after a confirm's in-flight deadline before a `confirming` record nobody answers
   * for (its worker died) is declared lost and reconciled. Shorter than inFlightMarginMs: losing
   * it only asks `retry` (never confirms), and the verdicts that infer from silence still wait for
   * the full margin.
   */
  lostConfirmMarginMs: number;
  /** First reconcile delay; doubles per attempt, plus up to 50% jitter. */
  baseDelayMs: number;
  /** Ceiling of one backoff delay. */
  maxDelayMs: number;
  /** How long after the confirm reconcile keeps asking before `needs_attention`. */
  deadlineMs: number;
  /** Confirm sends allowed when earlier ones provably never reached the service. */
  maxConfirmAttempts: number;
  /**
   * After a verdict that is not a fact ("no charge was found", needs_attention), how long the
   * lifecycle keeps asking `retry` whether the purchase succeeded after all.
   */
  recheckForMs: number;
  /** First wait between those re-checks; doubles up to maxDelayMs × 12 (an hour by default). */
  recheckEveryMs: number;
  /**
   * Debit accounts in managed-retry mode (interface 1.5: the service retries a failed transaction
   * itself, then refunds): `MANAGED_RETRY_ACCOUNT_IDS`. Absent or empty: every account self-managed.
   */
  managedRetryAccountIds?: readonly number[];
  /** How long such an account's service keeps retrying after a confirm (30 minutes by default). */
  managedRetryWindowMs?: number;
}

/** What the lifecycle tells the machine about a failed call (plain data: no Error objects). */
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
  /** The purchase's debit account (read from the intent; never written by the machine). */
  debitedAccountId: number;
  /**
   * Set with the confirm when its debit account was in managed-retry mode: until then the
   * service may still be retrying it, so no failure is final (null: self-managed).
   */
  managedRetryUntil: string | null;
  confirmSentAt: string | null;
  confirmInFlightUntil: string | null;
  recheckUntil: string | null;
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
  | { type: 'RETRY_ERR'; error: ErrorInfo; at: string; random: number }
  /** A late re-check of a verdict that was not a fact found the purchase successful. */
  | { type: 'RECHECK_OK'; tx: Transaction; at: string }
  /** An operator closed a `needs_attention` purchase (the note is kept by src/purchases/care). */
  | { type: 'RESOLVE'; at: string }
  /** An operator asked to reconcile a `needs_attention` purchase again: retry only, never confirm. */
  | { type: 'REOPEN'; at: string }
  /**
   * The buyer's payment failed or never came in time (src/payments): nothing is confirmed. `code`
   * `payment_not_started`: the purchase never got its payment (no prompt was ever sent).
   */
  | { type: 'PAYMENT_FAILED'; reason: string; at: string; code?: 'payment_failed' | 'payment_not_started' }
  /** The buyer paid, the sale failed, and the refund was refused or never answered: a person must act. */
  | { type: 'REFUND_STUCK'; detail: string; at: string };
