import { keyPrefix } from '../../redis/keys';

/**
 * Every Redis key of the care audit trail, built here and nowhere else, all under `care:`. One
 * hash tag `{audit}`: an entry is written to the whole trail and to its purchase's trail in one
 * transaction, which Redis Cluster runs only on keys of one slot.
 */
export interface CareKeys {
  /** Every entry, scored by time (ms). */
  trail(): string;
  /** The entries about one purchase, scored by time (ms). */
  purchaseTrail(purchaseId: string): string;
}

export function careKeys(prefix: string): CareKeys {
  const base = `${keyPrefix(prefix)}care:{audit}`;
  return {
    trail: () => `${base}:trail`,
    purchaseTrail: (purchaseId) => `${base}:purchase:${purchaseId}`,
  };
}
