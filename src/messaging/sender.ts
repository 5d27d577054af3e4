import type { OutboxStore } from './outbox/store';
import type { SmsSettings } from './settings';

/** One mobile-originated SMS as a provider's link delivered it. */
export interface ReceivedSms {
  /** The adapter's name (`africastalking`, `generic`, `smpp`). */
  provider: string;
  /** The provider's id of the message, the de-duplication key; null when the provider gives none. */
  messageId: string | null;
  /** The sender as the provider wrote it (`+26771234567`, `26771234567`, `MASCOM`). */
  from: string;
  /** The short code or number it was sent to. */
  to: string;
  text: string;
  /** When the provider received it (ISO 8601 as given). */
  receivedAt: string;
}

/** What a delivery report says about an SMS we sent. */
export type DeliveryState = 'delivered' | 'pending' | 'failed';

export interface DeliveryReport {
  provider: string;
  /** The provider's id of the SMS we sent (kept on the notification when it was accepted). */
  providerMessageId: string;
  state: DeliveryState;
  /** The provider's own status word (`Success`, `Buffered`, `Rejected`…). */
  providerStatus: string;
  failureReason: string | null;
}

/** Receives what arrives on a driver's link: mobile-originated messages and delivery reports. */
export interface InboundSink {
  message(sms: ReceivedSms): void;
  delivery(report: DeliveryReport): void;
}

/** One outbound SMS, addressed by the caller's id (the idempotency key of the message). */
export interface OutboundSms {
  id: string;
  /** E.164 digits, no `+`. */
  to: string;
  from?: string;
  message: string;
  /** The purchase it is about, when it is about one (the outbox shows it). */
  purchaseId?: string;
}

/**
 * What a driver learned from one attempt. Drivers never retry themselves: the caller (a job queue)
 * retries `retry` outcomes with backoff and gives up on `rejected`.
 */
export type SendOutcome =
  /**
   * Accepted. `providerMessageIds` are the ids the provider's delivery reports will name: one
   * per part of a long SMS for a provider that reports on each part (an SMSC over SMPP), else
   * the message's one id (Africa's Talking, the HTTP webhook, the outbox); absent when it gave none.
   */
  | { status: 'sent'; providerMessageIds?: readonly string[] }
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

/** How long an HTTP driver waits for the provider (the config does not carry it). */
export const PROVIDER_TIMEOUT_MS = 10_000;

/** The `sms` section of the config a driver reads its settings from (retries belong to the queue). */
export type SmsConfig = Omit<SmsSettings, 'retry'>;

/** What every driver may be given besides its settings. */
export interface SmsSenderDeps {
  /** Where the outbox driver keeps messages (memory in the embedded mode, Redis otherwise). */
  outbox: OutboxStore;
  /**
   * Where a driver whose link also carries traffic towards us (SMPP bound as transceiver) hands
   * inbound messages and delivery receipts: the same inbound path as the HTTP routes.
   */
  inbound?: InboundSink;
  now?: () => Date;
}

/**
 * One row of the driver table (`drivers.ts`): how a driver reads its settings from the config,
 * and how it builds its sender from them.
 */
export interface SmsDriver<Settings extends object> {
  /** This driver's settings from the `sms` config section; throws naming the missing variables. */
  settings(sms: SmsConfig): Settings;
  /** The sender for those settings. An SMPP sender starts connecting at once. */
  create(settings: Settings, deps: SmsSenderDeps): SmsSender;
}
