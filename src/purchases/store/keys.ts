import type { PurchaseState } from '../types';

/**
 * Every Redis key of the purchase store, built in one place. The purchase id is hash-tagged
 * (`purchase:{<id>}`) so per-purchase keys could share a slot; the indexes span purchases
 * and live on their own keys (single-node Redis or a cluster-aware deployment of them).
 */
export interface PurchaseKeys {
  record(id: string): string;
  idempotency(key: string): string;
  byState(state: PurchaseState): string;
  byMsisdn(msisdn: string): string;
  /** Settled records whose outcome has not been handed to the notifier yet. */
  unnotified(): string;
}

export function purchaseKeys(prefix: string): PurchaseKeys {
  const p = prefix === '' || prefix.endsWith(':') ? prefix : `${prefix}:`;
  return {
    record: (id) => `${p}purchase:{${id}}`,
    idempotency: (key) => `${p}purchase-key:${key}`,
    byState: (state) => `${p}purchases:state:${state}`,
    byMsisdn: (msisdn) => `${p}purchases:msisdn:${msisdn}`,
    unnotified: () => `${p}purchases:unnotified`,
  };
}
