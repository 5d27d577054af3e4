import { keyPrefix } from '../../redis/keys';
import type { PurchaseState } from '../types';

/**
 * Every Redis key of the purchase store, built here and nowhere else, all under `purchase:`.
 *
 * Every key carries the one hash tag `{purchases}`, so the whole purchase keyspace sits in one
 * Redis Cluster slot: the create script (idempotency key, record, three indexes) and the
 * compare-and-set transition (record, two state indexes, the unnotified set) each touch keys
 * of several purchases' indexes, and stay atomic only inside one slot. The cost (one master
 * holds and serves all purchase keys) is weighed in ../README.md.
 */
export interface PurchaseKeys {
  record(id: string): string;
  idempotency(key: string): string;
  byState(state: PurchaseState): string;
  byMsisdn(msisdn: string): string;
  /** By subscriber identifier (meter, account or phone number as bought). */
  byIdentifier(identifier: string): string;
  /** By reference: the gateway's external reference and, once known, the provider's. */
  byReference(reference: string): string;
  /** Settled records whose outcome has not been handed to the notifier yet. */
  unnotified(): string;
  /** Records past their retention, scored by when they may be purged (ms). */
  expiring(): string;
}

/** The hash tag shared by every purchase key. */
export const PURCHASE_HASH_TAG = '{purchases}';

export function purchaseKeys(prefix: string): PurchaseKeys {
  const base = `${keyPrefix(prefix)}purchase:${PURCHASE_HASH_TAG}`;
  return {
    record: (id) => `${base}:record:${id}`,
    idempotency: (key) => `${base}:idempotency:${key}`,
    byState: (state) => `${base}:state:${state}`,
    byMsisdn: (msisdn) => `${base}:msisdn:${msisdn}`,
    byIdentifier: (identifier) => `${base}:identifier:${identifier}`,
    byReference: (reference) => `${base}:reference:${reference}`,
    unnotified: () => `${base}:unnotified`,
    expiring: () => `${base}:expiring`,
  };
}
