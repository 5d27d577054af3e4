import type { JobQueue, QueuedJob } from '../queue';

/**
 * A unit of payment lifecycle work, keyed by the purchase (one payment per purchase). Its job id
 * is `<kind>-<purchaseId>-<attempt>` like the purchase jobs', so re-enqueuing a step is a no-op.
 * They run on a queue of their own (BullMQ name {@link PAYMENT_QUEUE_NAME}, or an in-process
 * queue), never on the purchases' queue, whose handler knows only purchase kinds.
 */
export interface PaymentJob extends QueuedJob {
  /**
   * `payment-poll`: ask the provider the payment's status (attempt = pollAttempts);
   * `payment-wait`: come back at a time (a `requested` row whose sender may have died, a payment
   * that cannot be queried reaching its expiry, a refund's deadline; attempt = version);
   * `payment-recheck`: ask about an `unknown` payment now and then (attempt = round);
   * `refund-poll`: ask the refund's status (attempt = the refund's pollAttempts);
   * `refund-due`: see again whether a refund may be asked (a verdict still being re-checked);
   * `payment-verify`: ask the provider's status about success callbacks it does not vouch for
   * (attempt = round).
   */
  kind: 'payment-poll' | 'payment-wait' | 'payment-recheck' | 'refund-poll' | 'refund-due' | 'payment-verify';
  purchaseId: string;
  attempt: number;
}

export type PaymentJobQueue = JobQueue<PaymentJob>;

/** The payment jobs' BullMQ queue name (beside `purchases`). */
export const PAYMENT_QUEUE_NAME = 'payments';
