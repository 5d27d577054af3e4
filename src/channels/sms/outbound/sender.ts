/** One outbound SMS, addressed by the caller's id (the idempotency key of the notification). */
export interface OutboundSms {
  id: string;
  /** E.164 digits, no `+`. */
  to: string;
  from?: string;
  message: string;
  purchaseId?: string;
}

/**
 * What a driver learned from one attempt. Drivers never retry themselves: the caller (a job queue)
 * retries `retry` outcomes with backoff and gives up on `rejected`.
 */
export type SendOutcome =
  | { status: 'sent'; providerMessageId?: string }
  /** Transient: try again later (provider down, throttled, misconfigured credentials…). */
  | { status: 'retry'; reason: string; retryAfterMs?: number }
  /** Permanent: giving up is right (bad number, blacklisted…). */
  | { status: 'rejected'; reason: string };

/** A way to hand an SMS to a provider. `send` never throws: every failure is an outcome. */
export interface SmsSender {
  readonly name: string;
  send(sms: OutboundSms): Promise<SendOutcome>;
  close?(): Promise<void>;
}
