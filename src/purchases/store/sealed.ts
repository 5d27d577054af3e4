import type { Sealer } from '../../records/sealing';
import type { PurchaseRecord, PurchaseResult } from '../types';

/**
 * A purchase's token at rest: `result.rawToken` is sealed in the row (src/records/sealing.ts)
 * and opened when the row is read, so everything above the store sees the token and a dump of
 * the `purchases` table shows none. One home for both directions; every query that reads
 * `purchases.record` for a caller goes through {@link openRecord}.
 */

/** `value` (a record or a patch) with its token sealed; unchanged when it has none. */
export function sealRecord<T extends { result?: PurchaseResult | null }>(sealer: Sealer, value: T): T {
  const token = value.result?.rawToken;
  if (typeof token !== 'string' || !value.result) return value;
  return { ...value, result: { ...value.result, rawToken: sealer.seal(token) } };
}

/** The record as the domain uses it: its token opened (a row from before sealing reads as it is). */
export function openRecord(sealer: Sealer, record: PurchaseRecord): PurchaseRecord {
  const token = record.result?.rawToken;
  if (typeof token !== 'string' || !record.result) return record;
  return { ...record, result: { ...record.result, rawToken: sealer.open(token) } };
}
