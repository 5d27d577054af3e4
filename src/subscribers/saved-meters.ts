import { componentLogger } from '../observability/logger';
import type { PurchaseSettlement } from '../purchases/hand-over';
import { MASKED } from '../purchases/store/sql';
import type { PurchaseRecord } from '../purchases/types';
import type { Database, Queryable } from '../records/database';
import type { ProductType } from '../vas/port';

const log = componentLogger('subscribers');

/** Saved identifiers kept per number and product: the newest five. */
export const MAX_SAVED_METERS = 5;

/** The products bought for a meter or account number: the ones whose identifiers are offered again. */
export const METERED_PRODUCTS: readonly ProductType[] = ['ELECTRICITY', 'WATER'];

/** `products`' newest five each (`$1` the number, `$2` the products, `$3` five), by product then newest first. */
const NEWEST_OF = `SELECT product_type, identifier, name, last_bought_at FROM (
    SELECT product_type, identifier, name, last_bought_at, row_number() OVER (
      PARTITION BY product_type ORDER BY last_bought_at DESC, identifier) AS n
      FROM saved_meters s WHERE msisdn = $1 AND product_type = ANY($2::text[])`;
/** The lists' order: by product, then newest first. */
export const NEWEST_ORDER = 'product_type, last_bought_at DESC, identifier';
const NEWEST_END = `) m WHERE n <= $3 ORDER BY ${NEWEST_ORDER}`;
/** `products`' newest five each, unordered (`NEWEST_ORDER` orders them): `$1` the number, `$2` the products, `$3` five. */
export const NEWEST_METERS = `${NEWEST_OF}) m WHERE n <= $3`;

/** An identifier a number bought for, with the name the provider returned for it. */
export interface SavedMeter {
  productType: ProductType;
  identifier: string;
  /** The provider-verified name shown on the quote (`KABELO M`), or null. */
  name: string | null;
  /** When it was last bought for (ISO): the list's order, newest first. */
  lastBoughtAt: string;
}

/** A saved meter's row (`last_bought_at` a Date from pg and PGlite, a string from `json_agg`). */
export type MeterRow = {
  product_type: ProductType;
  identifier: string;
  name: string | null;
  last_bought_at: Date | string;
};

export const meterOf = (row: MeterRow): SavedMeter => ({
  productType: row.product_type,
  identifier: row.identifier,
  name: row.name,
  lastBoughtAt: new Date(row.last_bought_at).toISOString(),
});

/**
 * The identifiers a number bought for (`saved_meters`, migration 0008): remembered when a purchase
 * succeeds — the purchase lifecycle's settlement hook (`settled`), run before the token SMS and
 * again by the sweep after a crash, so remembering is idempotent — five per number and product.
 */
export class SqlSavedMeters implements PurchaseSettlement {
  constructor(private readonly db: Database) {}

  /** Newest first, at most five. */
  async list(msisdn: string, productType: ProductType): Promise<SavedMeter[]> {
    const result = await this.db.query<MeterRow>(
      `SELECT product_type, identifier, name, last_bought_at FROM saved_meters
        WHERE msisdn = $1 AND product_type = $2
        ORDER BY last_bought_at DESC, identifier LIMIT $3`,
      [msisdn, productType, MAX_SAVED_METERS],
    );
    return result.rows.map(meterOf);
  }

  /** Every product's, by product then newest first (the operator's view). */
  async listAll(msisdn: string): Promise<SavedMeter[]> {
    const result = await this.db.query<MeterRow>(
      `SELECT product_type, identifier, name, last_bought_at FROM saved_meters WHERE msisdn = $1
        ORDER BY product_type, last_bought_at DESC, identifier`,
      [msisdn],
    );
    return result.rows.map(meterOf);
  }

  /**
   * Several products' lists in one statement (a dialogue reads its caller's once, when it starts):
   * newest five each, by product then newest first.
   */
  async listOf(msisdn: string, products: readonly ProductType[]): Promise<SavedMeter[]> {
    const result = await this.db.query<MeterRow>(`${NEWEST_OF}${NEWEST_END}`, [
      msisdn,
      [...products],
      MAX_SAVED_METERS,
    ]);
    return result.rows.map(meterOf);
  }

  /**
   * Forget one and answer what is left of `products`' lists ("My meters" shows it again), in one
   * statement: the list cannot disagree with the removal.
   */
  async removeAndList(
    msisdn: string,
    productType: ProductType,
    identifier: string,
    products: readonly ProductType[],
  ): Promise<SavedMeter[]> {
    // The statement's reads see the rows as before its DELETE: the removed one is left out by name.
    const result = await this.db.query<MeterRow>(
      `WITH gone AS (
         DELETE FROM saved_meters WHERE msisdn = $1 AND product_type = $4 AND identifier = $5
         RETURNING product_type, identifier)
       ${NEWEST_OF}
          AND NOT EXISTS (SELECT 1 FROM gone g WHERE g.product_type = s.product_type AND g.identifier = s.identifier)
       ${NEWEST_END}`,
      [msisdn, [...products], MAX_SAVED_METERS, productType, identifier],
    );
    return result.rows.map(meterOf);
  }

  /** The one bought for last (`ELEC 100` with no meter), or null. */
  async lastFor(msisdn: string, productType: ProductType): Promise<SavedMeter | null> {
    return (await this.list(msisdn, productType))[0] ?? null;
  }

  /** Forget one ("My meters", remove); false when it was not saved. */
  async remove(msisdn: string, productType: ProductType, identifier: string): Promise<boolean> {
    const removed = await this.db.query(
      'DELETE FROM saved_meters WHERE msisdn = $1 AND product_type = $2 AND identifier = $3',
      [msisdn, productType, identifier],
    );
    return removed.rowCount > 0;
  }

  /** Every saved identifier of a number, every product (a data-deletion request); how many went. */
  async forget(msisdn: string, on: Queryable = this.db): Promise<number> {
    return (await on.query('DELETE FROM saved_meters WHERE msisdn = $1', [msisdn])).rowCount;
  }

  /**
   * Remember `identifier` for `msisdn` as bought at `at`: newest first, the oldest beyond five
   * dropped. A time older than the one kept changes nothing (a purchase remembered again by the
   * sweep does not move its meter ahead of a newer one), and the name is the newest purchase's.
   */
  async remember(
    msisdn: string,
    productType: ProductType,
    identifier: string,
    name: string | null,
    at: string,
  ): Promise<void> {
    await this.db.transaction((tx) => rememberOn(tx, msisdn, productType, identifier, name, at));
  }

  /**
   * The settlement hook: a succeeded purchase's identifier is remembered for the number that
   * bought it (the payer; not a field agent's sale, whose customers are not its meters). Never
   * throws: a meter not saved must not hold back the token SMS behind it.
   */
  async settled(record: PurchaseRecord): Promise<void> {
    const meter = meterToRemember(record);
    if (!meter) return;
    try {
      await this.remember(...meter);
    } catch (error) {
      log.error('saved meter not remembered (the sale is unaffected)', { purchaseId: record.id, error });
    }
  }

  /**
   * `settled` on the success's own transaction (`OutcomeHandOver.writeTold`): remembered with it,
   * or re-run with it after a crash. Under a savepoint, so that a failure here (logged) leaves the
   * outcome and its token SMS to commit without the meter.
   */
  async settledOn(record: PurchaseRecord, tx: Queryable): Promise<void> {
    const meter = meterToRemember(record);
    if (!meter) return;
    try {
      // Sent together (one round trip) and run in this order: one that fails fails those behind it.
      await Promise.all([
        tx.query('SAVEPOINT saved_meter'),
        rememberOn(tx, ...meter),
        tx.query('RELEASE SAVEPOINT saved_meter'),
      ]);
    } catch (error) {
      await tx.query('ROLLBACK TO SAVEPOINT saved_meter');
      log.error('saved meter not remembered (the sale is unaffected)', { purchaseId: record.id, error });
    }
  }
}

type MeterArgs = [
  msisdn: string,
  productType: ProductType,
  identifier: string,
  name: string | null,
  at: string,
];

/** What a settled purchase leaves to remember, or null: not a success, an agent's sale, masked. */
function meterToRemember(record: PurchaseRecord): MeterArgs | null {
  const { intent } = record;
  if (record.state !== 'succeeded' || intent.agent || record.personalDataMaskedAt) return null;
  if (intent.requesterMsisdn === MASKED || intent.subscriberIdentifier === MASKED) return null;
  const name = intent.subscriberDetails ?? null;
  return [intent.requesterMsisdn, intent.productType, intent.subscriberIdentifier, name, record.createdAt];
}

/**
 * `remember` on a transaction (`tx`: its advisory lock is held until that commits). The three
 * statements go out together (one round trip); the server runs them in order, the lock first.
 */
async function rememberOn(tx: Queryable, ...[msisdn, productType, identifier, name, at]: MeterArgs) {
  // One number's purchases settling together queue here, so five stay five.
  const locked = tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
    `saved_meters:${msisdn}:${productType}`,
  ]);
  const saved = tx.query(
    `INSERT INTO saved_meters (msisdn, product_type, identifier, name, last_bought_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (msisdn, product_type, identifier) DO UPDATE
       SET name = COALESCE(EXCLUDED.name, saved_meters.name), last_bought_at = EXCLUDED.last_bought_at
     WHERE EXCLUDED.last_bought_at >= saved_meters.last_bought_at`,
    [msisdn, productType, identifier, name, at],
  );
  const trimmed = tx.query(
    `DELETE FROM saved_meters WHERE msisdn = $1 AND product_type = $2 AND identifier NOT IN (
       SELECT identifier FROM saved_meters WHERE msisdn = $1 AND product_type = $2
        ORDER BY last_bought_at DESC, identifier LIMIT $3)`,
    [msisdn, productType, MAX_SAVED_METERS],
  );
  await Promise.all([locked, saved, trimmed]);
}
