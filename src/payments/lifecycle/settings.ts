/**
 * What the payment lifecycle is built with: its tunables per provider, the purchase side's hooks
 * it tells what the money did, and its constructor options.
 */
import type { NoticeSpool } from '../spool';
import type { PaymentLifecycleSettings } from './machine';
import type { PurchaseStore } from '../../purchases/store';
import type { PaymentProvider } from '../port';
import type { PaymentJobQueue } from '../queue';
import type { SqlPaymentStore } from '../store/sql';
import type { PaymentRecord, UnpaidReason } from '../store/types';

/** How long each provider gives the payer to approve (the reference's table). */
const APPROVAL_WINDOW_MS: Record<string, number> = { mpesa: 90_000, momo: 300_000, http: 300_000 };
/** Providers that de-duplicate a collect on our reference, so one that never landed may be sent again. */
const RESEND_SAFE: Record<string, boolean> = { mpesa: false, momo: true, http: true };

/** How long a collect may be in flight when the provider does not say (`requestBudgetMs`). */
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * The lifecycle's tunables for `provider` (its approval window, whether a collect may be re-sent);
 * given the provider itself, a `requested` payment waits out its collect's whole budget
 * (`requestBudgetMs`: PAYMENT_TIMEOUT_MS per attempt, token fetch and retries) before it is lost.
 */
export function paymentLifecycleSettings(
  of: string | Pick<PaymentProvider, 'name' | 'requestBudgetMs'>,
  overrides: Partial<PaymentLifecycleSettings> = {},
): PaymentLifecycleSettings {
  const provider = typeof of === 'string' ? of : of.name;
  const budget = typeof of === 'string' ? undefined : of.requestBudgetMs;
  return {
    requestTimeoutMs: budget ?? DEFAULT_REQUEST_TIMEOUT_MS,
    lostMarginMs: 5_000,
    windowMs: APPROVAL_WINDOW_MS[provider] ?? 300_000,
    marginMs: 60_000,
    pollBaseMs: 8_000,
    pollMaxMs: 60_000,
    // Unknown providers are treated like Daraja: a push is sent once.
    resendSafe: RESEND_SAFE[provider] ?? false,
    maxRequestAttempts: 2,
    refundDeadlineMs: 30 * 60_000,
    recheckForMs: 24 * 3600_000,
    recheckEveryMs: 5 * 60_000,
    ...overrides,
  };
}

/** The purchase side, told what the money did (each may be called more than once: be idempotent). */
export interface PaymentOutcomeHooks {
  /**
   * The buyer's payment is known successful and its purchase was read `created` (with its confirm
   * attempts so far, and from the sweep when its next one is due): enqueue the purchase's confirm —
   * from the sweep replacing a confirm job that failed for good (`replaceFailed`).
   */
  onPaid(
    purchaseId: string,
    payment: PaymentRecord,
    seen: { confirmAttempts: number; nextAttemptAt?: string | null } | undefined,
    options?: { replaceFailed?: boolean },
  ): Promise<void>;
  /**
   * No money came (failed), or none is known to have come in time (unknown): end the purchase
   * failed with `charged: false`, code `payment_failed`, and tell the buyer. Money that still
   * comes later is given back by this lifecycle.
   */
  onUnpaid(purchaseId: string, reason: UnpaidReason, payment: PaymentRecord): Promise<void>;
  /**
   * A purchase that needs collection was found with no payment row a while after it was written
   * (only a purchase written without its payment could be): end it failed with `charged: false`,
   * code `payment_not_started`, and tell the buyer nothing was bought.
   */
  onNotStarted?(purchaseId: string): Promise<void>;
  /** The refund is confirmed: tell the buyer the money is back. */
  onRefunded?(purchaseId: string, payment: PaymentRecord): Promise<void>;
  /** A refund the provider refused or never answered: a person must act (the care queue). */
  onRefundNeedsCare?(purchaseId: string, payment: PaymentRecord): Promise<void>;
  /**
   * An agent's own top-up is decided (successful, failed or unknown): credit its float once, or
   * tell it nothing came. Told again until the top-up is settled (the sweep), and once more if
   * money comes after it failed: be idempotent.
   */
  onTopUp?(topUpId: string, payment: PaymentRecord): Promise<void>;
}

export interface PaymentLifecycleOptions extends PaymentOutcomeHooks {
  payments: SqlPaymentStore;
  purchases: Pick<PurchaseStore, 'get'>;
  provider: PaymentProvider;
  queue: PaymentJobQueue;
  settings: PaymentLifecycleSettings;
  clock?: () => Date;
  random?: () => number;
  /** Our references (payments and refunds): UUID v4, so MoMo's X-Reference-Id is the id itself. */
  newId?: () => string;
  /**
   * Where a callback or a push's answer waits while the records cannot take it (src/payments/spool.ts).
   * None: a callback the records refuse is answered 500 and not kept.
   */
  spool?: NoticeSpool;
}
