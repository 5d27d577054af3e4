/**
 * The USSD callbacks' settings (`USSD_*`, `TRUST_PROXY`), as the gateway's configuration
 * assembles them (src/config).
 */

/** One aggregator's own overrides (`USSD_SCREEN_LIMIT_HUBTEL=160`, …). */
export interface AggregatorSettings {
  callbackSecret?: string;
  allowedIps?: string[];
  screenLimit?: number;
}

export interface UssdSettings {
  callbackSecret: string | undefined;
  allowedIps: string[];
  /** express `trust proxy`: hop count, or comma-separated addresses/subnets of the load balancers. */
  trustProxy: number | string | undefined;
  screenLimit: number;
  hopBudgetMs: number;
  sessionTtlS: number;
  resumeWindowS: number;
  /** `USSD_MACHINE_START`: the machine version new dialogues start on (undefined: the build's). */
  machineStart?: string;
  /** `USSD_ASK_TOKEN_RECIPIENT`: electricity and water ask who gets the token (default true). */
  askTokenRecipient?: boolean;
  /** Per-aggregator overrides by adapter name. */
  aggregators: Record<string, AggregatorSettings>;
  /** `USSD_GENERIC_MAPPING` as given (parsed and checked by the gateway at start). */
  genericMapping: string | undefined;
  comviva: { userid: string; password: string } | undefined;
  /** `USSD_COMVIVA_SERVICE_CODE`: the code Flares dials reach the service on (`*384*33#`). */
  comvivaServiceCode?: string;
}
