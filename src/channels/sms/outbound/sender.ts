import { maskMsisdn, maskNumbersInText } from '../../../observability/logger';

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

/**
 * Mask the tokens and phone-number-like runs of digits in provider text (which may echo our
 * message, token included) before it reaches a reason, the notification record or a log line.
 * Tokens first (grouped `1234 5678 …` or 16+ digits run together), then runs of 7 or more digits.
 */
export function maskNumbers(text: string): string {
  return maskNumbersInText(text).replace(
    /\+?(?<!\d)\d{7,}(?!\d)/g,
    (digits) => `${digits.startsWith('+') ? '+' : ''}${maskMsisdn(digits)}`,
  );
}
