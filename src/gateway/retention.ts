import { maskMessageTexts, resealMessageTexts } from '../messaging/store/at-rest';
import type { Config } from '../config';
import { componentLogger } from '../observability/logger';
import { maskPaymentPersonalData } from '../payments/store/checks';
import type { PurchaseStore } from '../purchases/store';
import { maskPersonalData, maskTokens, resealTokens } from '../purchases/store/sql';
import type { Database } from '../records/database';

const log = componentLogger('retention');

/** Rows sealed again per pass (each pass is one sweep of the workers). */
const RESEAL_BATCH = 500;

/**
 * Retention, part of the workers' sweep (`PURCHASE_SWEEP_INTERVAL_MS`), each step bounded per pass:
 * - purchases past `RECORD_RETENTION_DAYS` are deleted;
 * - past `TOKEN_RETENTION_DAYS` (90 by default) a settled purchase's token and the text of every
 *   SMS that ended are masked in place;
 * - past `PII_RETENTION_DAYS` (when set) the purchases' numbers and the payments' payer numbers;
 * - tokens and texts not sealed under the current key (rows from before sealing, or sealed under
 *   a previous key after a rotation) are sealed again, until none is left: then one log line says
 *   so, and `TOKEN_ENCRYPTION_KEY_PREVIOUS` can go. A process does that until it has found none,
 *   then stops looking (what it writes is sealed under the current key already).
 */
export function recordsRetention(
  records: Database,
  store: Pick<PurchaseStore, 'purgeExpired'>,
  settings: Config['records'],
  clock: () => number = Date.now,
): () => Promise<void> {
  let sealedUnderCurrent = false;
  return async () => {
    const purged = await store.purgeExpired();
    if (purged > 0) log.info('purchase records past their retention deleted', { purged });
    const tokensBefore = new Date(clock() - settings.tokenRetentionMs);
    const tokens = await maskTokens(records, tokensBefore);
    const texts = await maskMessageTexts(records, tokensBefore);
    if (tokens + texts > 0) log.info('tokens and SMS texts past their retention masked', { tokens, texts });
    if (settings.piiRetentionMs !== null) {
      const before = new Date(clock() - settings.piiRetentionMs);
      const masked = await maskPersonalData(records, before);
      const payments = await maskPaymentPersonalData(records, before);
      if (masked + payments > 0) log.info('personal data of old purchases masked', { masked, payments });
    }
    if (sealedUnderCurrent) return;
    const resealed = {
      tokens: await resealTokens(records, RESEAL_BATCH),
      texts: await resealMessageTexts(records, RESEAL_BATCH),
    };
    if (resealed.tokens + resealed.texts > 0) {
      log.info('tokens and SMS texts sealed under the current key', {
        ...resealed,
        keyId: records.sealer.keyId,
      });
      return;
    }
    sealedUnderCurrent = true;
    log.info('every stored token and SMS text is sealed under the current key', {
      keyId: records.sealer.keyId,
    });
  };
}
