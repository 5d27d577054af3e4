import type { Config } from '../../../config';
import type { OutboxStore } from './outbox/store';
import type { DeliveryReport, InboundSms } from '../inbound/types';

/** Receives what arrives on a driver's link: mobile-originated messages and delivery reports. */
export interface InboundSink {
  message(sms: InboundSms): void;
  delivery(report: DeliveryReport): void;
}

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

/** How long an HTTP driver waits for the provider (the config does not carry it). */
export const PROVIDER_TIMEOUT_MS = 10_000;

/** The `sms` section of the config a driver reads its settings from (retries belong to the queue). */
export type SmsConfig = Omit<Config['sms'], 'retry'>;

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
