/**
 * SMS-MO purchase commands' settings (`SMS_QUOTE_TTL_S`, the rates, the callbacks'
 * protection), as the gateway's configuration assembles them (src/config).
 */
export interface SmsMoSettings {
  quoteTtlS: number;
  ratePerMin: number;
  repliesPerMin: number;
  /** Defaults to USSD_CALLBACK_SECRET. */
  callbackSecret: string | undefined;
  /** Defaults to USSD_ALLOWED_IPS. */
  allowedIps: string[];
  /** `SMS_YES_WITHOUT_CODE`: a bare `YES` buys the pending quote (default: off in production). */
  yesWithoutCode: boolean;
}
