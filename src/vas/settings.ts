/**
 * The purchase-service client's settings (`PURCHASE_API_*`), as the gateway's configuration
 * assembles them (src/config) and `createPurchaseService` reads them.
 */

/** What v1 may be told a purchase came from (`source_channel`); v1 has no `SMS_MO`. */
export const SOURCE_CHANNELS = ['USSD', 'WEB', 'SMART_APP', 'BATCH', 'POS'] as const;
export type SourceChannel = (typeof SOURCE_CHANNELS)[number];

export interface PurchaseApiSettings {
  /** Undefined in embedded mode until the sandbox has started and reported its URL. */
  baseUrl: string | undefined;
  interface: 'v1' | 'legacy';
  clientId: string;
  clientSecret: string;
  username: string;
  password: string;
  orgCode: string;
  timeoutMs: number;
  confirmTimeoutMs: number;
  /** What v1 (which has no SMS_MO) is told an SMS-originated purchase came from (`SMS_SOURCE_CHANNEL`). */
  smsSourceChannel?: SourceChannel;
}
