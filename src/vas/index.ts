import { ServiceCaller, type RateLimitPolicy } from './caller';
import { LegacyPurchaseService } from './legacy-adapter';
import type { PurchaseService } from './port';
import type { PurchaseApiSettings } from './settings';
import { V1PurchaseService } from './v1-adapter';

/**
 * The purchase-service client. `createPurchaseService` picks the adapter named by
 * `PURCHASE_API_INTERFACE`; callers only ever see the `PurchaseService` port.
 */

export interface PurchaseServiceOptions {
  /** TCP/TLS connect budget; default min(timeout, 5 s). */
  connectTimeoutMs?: number;
  rateLimit?: Partial<RateLimitPolicy>;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export function createPurchaseService(
  config: PurchaseApiSettings & { baseUrl: string },
  options: PurchaseServiceOptions = {},
): PurchaseService {
  const caller = new ServiceCaller(config.baseUrl, config, {
    timeoutMs: config.timeoutMs,
    confirmTimeoutMs: config.confirmTimeoutMs,
    ...options,
  });
  return config.interface === 'legacy'
    ? new LegacyPurchaseService(caller)
    : new V1PurchaseService(caller, config.smsSourceChannel);
}

export * from './port';
export * from './errors';
export { errorInfo, type ServiceErrorInfo } from './error-info';
export * from './money';
export * from './tokens';
export {
  Catalogue,
  derivedHint,
  identifierHint,
  validateIdentifier,
  type IdentifierCheck,
  type CatalogueOptions,
  type DerivedHint,
} from './catalogue';
export { mapErrorResponse, parseRetryAfter } from './error-mapper';
export { MAX_REQUEST_ID_LENGTH, outgoingRequestId } from './http';
export type { RateLimitPolicy } from './caller';
