import type { Database } from '../records/database';
import type { DailyLimits } from './rules';
import type { BlockCheck, BlockKind, DailyReservation, DayUsage, SpendStore } from './store';

type Totals = { value: string; count: number };

const usageOf = (row: Totals | undefined): DayUsage => ({
  valueMinor: Number(row?.value ?? 0),
  count: row?.count ?? 0,
});

/** What spend_reserve's outcome means (0003, 0009); null for an outcome it never gives. */
export function reservationOf(outcome: number, usage: DayUsage): DailyReservation | null {
  if (outcome === 1) return { status: 'counted', usage };
  if (outcome === -1) return { status: 'over', limit: 'value', usage };
  if (outcome === -2) return { status: 'over', limit: 'count', usage };
  if (outcome === -3) return { status: 'blocked', usage };
  return null;
}

/** A blocklist match for `who`: numbers as `$1` (text[]), the identifier as `$2` (NULL: none). */
const BLOCKED = `EXISTS (SELECT 1 FROM blocklist b
   WHERE (b.kind = 'msisdn' AND b.value = ANY ($1::text[])) OR (b.kind = 'identifier' AND b.value = $2))`;

/** `who` as the parameters of {@link BLOCKED}: each number once. */
const blockParams = (who: BlockCheck): [string[], string | null] => [
  [...new Set(who.msisdns)],
  who.identifier ?? null,
];

/**
 * The daily spend and the blocklist in the system of record (migration 0003): a number's day is
 * a row of totals beside its entries, one reservation per purchase key and at most one release
 * of it, and the totals are their sum. Each write is one statement (one commit); the day is kept
 * as a record, not expired.
 */
export class SqlSpendStore implements SpendStore {
  constructor(private readonly db: Database) {}

  async usage(msisdn: string, day: string): Promise<DayUsage> {
    const result = await this.db.query<Totals>(
      'SELECT value_minor::text AS value, count::int AS count FROM spend_days WHERE msisdn = $1 AND day = $2::date',
      [msisdn, day],
    );
    return usageOf(result.rows[0]);
  }

  async standing(
    who: BlockCheck,
    msisdn: string,
    day: string,
  ): Promise<{ blocked: boolean; usage: DayUsage }> {
    // One statement (one commit): a quote's blocklist check and the day's usage together.
    const result = await this.db.query<Totals & { blocked: boolean }>(
      `SELECT ${BLOCKED} AS blocked, d.value_minor::text AS value, d.count::int AS count
         FROM (SELECT 1) one LEFT JOIN spend_days d ON d.msisdn = $3 AND d.day = $4::date`,
      [...blockParams(who), msisdn, day],
    );
    const row = result.rows[0];
    return { blocked: row?.blocked === true, usage: usageOf(row) };
  }

  async anyBlocked(who: BlockCheck): Promise<boolean> {
    const result = await this.db.query<{ blocked: boolean }>(
      `SELECT ${BLOCKED} AS blocked`,
      blockParams(who),
    );
    return result.rows[0]?.blocked === true;
  }

  async reserve(
    msisdn: string,
    day: string,
    purchaseKey: string,
    amountMinor: number,
    limits: DailyLimits,
    blocked?: BlockCheck,
  ): Promise<DailyReservation> {
    // spend_reserve locks the day's row, then checks the key, the blocklist (migration 0009) and
    // the limits.
    const [msisdns, identifier] = blocked ? blockParams(blocked) : [[], null];
    const result = await this.db.query<Totals & { outcome: number }>(
      `SELECT outcome::int AS outcome, day_value::text AS value, day_count::int AS count
         FROM spend_reserve($1, $2::date, $3, $4::bigint, $5::bigint, $6::int, $7::text[], $8)`,
      [msisdn, day, purchaseKey, amountMinor, limits.maxValueMinor, limits.maxCount, msisdns, identifier],
    );
    const row = result.rows[0];
    const reservation = row ? reservationOf(row.outcome, usageOf(row)) : null;
    if (!reservation) throw new Error(`spend_reserve: unexpected reply ${JSON.stringify(row)}`);
    return reservation;
  }

  async release(msisdn: string, day: string, purchaseKey: string): Promise<boolean> {
    // The release entry's primary key lets one of two concurrent releases in; only that one
    // gives the amount back (the day's row updated with the totals it holds when locked).
    const result = await this.db.query<{ released: number }>(
      `WITH released AS (
         INSERT INTO spend_releases (msisdn, day, purchase_key)
         SELECT msisdn, day, purchase_key FROM spend_reservations
          WHERE msisdn = $1 AND day = $2::date AND purchase_key = $3
         ON CONFLICT DO NOTHING
         RETURNING msisdn, day, purchase_key
       ), given AS (
         UPDATE spend_days d
            SET value_minor = d.value_minor - r.amount_minor, count = d.count - 1
           FROM released x
           JOIN spend_reservations r USING (msisdn, day, purchase_key)
          WHERE d.msisdn = x.msisdn AND d.day = x.day
         RETURNING 1
       )
       SELECT count(*)::int AS released FROM given`,
      [msisdn, day, purchaseKey],
    );
    return result.rows[0]?.released === 1;
  }

  async block(kind: BlockKind, value: string): Promise<boolean> {
    const result = await this.db.query(
      'INSERT INTO blocklist (kind, value) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [kind, value],
    );
    return result.rowCount === 1;
  }

  async unblock(kind: BlockKind, value: string): Promise<boolean> {
    const result = await this.db.query('DELETE FROM blocklist WHERE kind = $1 AND value = $2', [kind, value]);
    return result.rowCount === 1;
  }

  async isBlocked(kind: BlockKind, value: string): Promise<boolean> {
    const result = await this.db.query('SELECT 1 FROM blocklist WHERE kind = $1 AND value = $2', [
      kind,
      value,
    ]);
    return result.rows.length === 1;
  }

  async blocked(kind: BlockKind): Promise<string[]> {
    const result = await this.db.query<{ value: string }>('SELECT value FROM blocklist WHERE kind = $1', [
      kind,
    ]);
    // Sorted here, as the other stores sort: the database's collation would order differently.
    return result.rows.map((row) => row.value).sort();
  }
}
