import type { SmsRetryPolicy } from './queue/retry';

/**
 * Outbound SMS settings (`SMS_DRIVER`, the drivers' credentials, the retries), as the gateway's
 * configuration assembles them (src/config).
 */

/**
 * The `SMS_DRIVER` values: the one list of driver names. Each has one row in the driver table
 * (`drivers.ts`), which does not compile while the two differ.
 */
export const SMS_DRIVERS = ['outbox', 'africastalking', 'smpp', 'http'] as const;
/** One of {@link SMS_DRIVERS}. */
export type SmsDriverName = (typeof SMS_DRIVERS)[number];

export interface SmsSettings {
  driver: SmsDriverName;
  senderId: string | undefined;
  africastalking: { baseUrl: string; username: string; apiKey: string } | undefined;
  smpp: { host: string; port: number; systemId: string; password: string } | undefined;
  http: { url: string; token: string | undefined } | undefined;
  /** Outgoing SMS retries: a token must survive a provider outage. */
  retry: SmsRetryPolicy;
}
