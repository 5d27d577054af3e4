import type { Database, Queryable } from '../../records/database';
import type { DayFigures } from './store';

/**
 * What the ledger says over a period, in SQL: sellers' sales on a local day, an account's day
 * figures and commission, who was active on a day (the day's summary), and the ledger check
 * (`ledgerDiscrepancies`: every account whose balance is not the sum of its entries).
 */

/**
 * A day's entries summed by what they did (`e` the entries' alias): commission, float in (operator
 * credits, deposits, top-ups, transfers in, positive adjustments), float out (transfers out,
 * negative adjustments), transfers each way. The daily report (src/reports/daily.ts) counts the
 * same kinds, and settled sales in its float out too.
 */
const DAY_FIGURES = (e: string) =>
  `coalesce(sum(${e}amount_minor) FILTER (WHERE ${e}kind = 'commission'), 0)::text AS commission,
   coalesce(sum(${e}amount_minor) FILTER (WHERE ${e}kind IN ('credit', 'deposit', 'topup', 'transfer_in')
     OR (${e}kind = 'adjustment' AND ${e}amount_minor > 0)), 0)::text AS float_in,
   coalesce(sum(CASE WHEN ${e}kind = 'transfer_out' THEN ${e}amount_minor
     WHEN ${e}kind = 'adjustment' AND ${e}amount_minor < 0 THEN -${e}amount_minor END), 0)::text AS float_out,
   coalesce(sum(${e}amount_minor) FILTER (WHERE ${e}kind = 'transfer_in'), 0)::text AS transfers_in,
   coalesce(sum(${e}amount_minor) FILTER (WHERE ${e}kind = 'transfer_out'), 0)::text AS transfers_out`;

export class SqlFloatReports {
  constructor(private readonly db: Database) {}

  async salesOn(
    msisdns: readonly string[],
    day: string,
    timeZone: string,
  ): Promise<{ count: number; valueMinor: number }> {
    // The sellers' purchases (an assistant's carry its own number) that succeeded, bought that local day.
    const result = await this.db.query<{ value: string; count: number }>(
      `SELECT coalesce(sum(amount_minor), 0)::text AS value, count(*)::int AS count
         FROM purchases
        WHERE agent_msisdn = ANY($1::text[]) AND state = 'succeeded'
          AND created_at >= ($2::date)::timestamp AT TIME ZONE $3
          AND created_at < ($2::date + 1)::timestamp AT TIME ZONE $3`,
      [msisdns, day, timeZone],
    );
    return { count: result.rows[0].count, valueMinor: Number(result.rows[0].value) };
  }

  async dayFigures(msisdn: string, day: string, timeZone: string): Promise<DayFigures> {
    const result = await this.db.query<Record<string, string>>(
      `WITH bounds AS (
         SELECT ($2::date)::timestamp AT TIME ZONE $3 AS f, ($2::date + 1)::timestamp AT TIME ZONE $3 AS t
       )
       SELECT ${DAY_FIGURES('e.')},
              count(e.seq)::text AS entries,
              (SELECT c.balance_minor FROM float_entries c WHERE c.msisdn = $1 AND c.at < b.t
                ORDER BY c.seq DESC LIMIT 1)::text AS closing
         FROM bounds b LEFT JOIN float_entries e ON e.msisdn = $1 AND e.at >= b.f AND e.at < b.t
        GROUP BY b.t`,
      [msisdn, day, timeZone],
    );
    const row = result.rows[0];
    const n = (key: string) => Number(row[key] ?? 0);
    return {
      commissionMinor: n('commission'),
      floatInMinor: n('float_in'),
      floatOutMinor: n('float_out'),
      transfersInMinor: n('transfers_in'),
      transfersOutMinor: n('transfers_out'),
      closingMinor: n('closing'),
      entries: n('entries'),
    };
  }

  async commission(
    msisdn: string,
    of: { purchaseKey: string } | { from: string; to: string; timeZone: string },
  ): Promise<number> {
    const result =
      'purchaseKey' in of
        ? await this.db.query<{ sum: string }>(
            `SELECT coalesce(sum(amount_minor), 0)::text AS sum FROM float_entries
              WHERE msisdn = $1 AND kind = 'commission' AND purchase_key = $2`,
            [msisdn, of.purchaseKey],
          )
        : await this.db.query<{ sum: string }>(
            `SELECT coalesce(sum(amount_minor), 0)::text AS sum FROM float_entries
              WHERE msisdn = $1 AND kind = 'commission'
                AND at >= ($2::date)::timestamp AT TIME ZONE $4 AND at < ($3::date)::timestamp AT TIME ZONE $4`,
            [msisdn, of.from, of.to, of.timeZone],
          );
    return Number(result.rows[0].sum);
  }

  async activeOn(day: string, timeZone: string): Promise<string[]> {
    const result = await this.db.query<{ msisdn: string }>(
      `WITH bounds AS (
         SELECT ($1::date)::timestamp AT TIME ZONE $2 AS f, ($1::date + 1)::timestamp AT TIME ZONE $2 AS t
       ),
       active AS (
         SELECT DISTINCT e.msisdn FROM float_entries e, bounds b WHERE e.at >= b.f AND e.at < b.t
         UNION
         SELECT DISTINCT p.agent_msisdn FROM purchases p, bounds b
          WHERE p.agent_msisdn IS NOT NULL AND p.state = 'succeeded' AND p.created_at >= b.f AND p.created_at < b.t
       )
       SELECT DISTINCT coalesce(a.outlet_msisdn, active.msisdn) AS msisdn
         FROM active LEFT JOIN agents a ON a.msisdn = active.msisdn
        ORDER BY 1`,
      [day, timeZone],
    );
    return result.rows.map((row) => row.msisdn);
  }
}

/** An account whose balance or held amount is not what its entries and open holds say. */
export interface LedgerDiscrepancy {
  msisdn: string;
  balanceMinor: number;
  /** Σ deltaMinor of the account's entries: what the balance must be. */
  entriesSumMinor: number;
  heldMinor: number;
  /** Σ of the account's float reservations still held: what the held amount must be. */
  openHoldsMinor: number;
  /** The account's entry count, and the entries found. */
  entries: number;
  entriesFound: number;
}

/**
 * The ledger check: every account whose balance is not the sum of its entries (or whose held
 * amount is not the sum of its open float holds, or whose entry count is off). Empty when the
 * ledger adds up.
 */
export async function ledgerDiscrepancies(db: Queryable): Promise<LedgerDiscrepancy[]> {
  const result = await db.query<{
    msisdn: string;
    balance: string;
    entries_sum: string;
    held: string;
    open_holds: string;
    entries: number;
    entries_found: number;
  }>(
    `SELECT a.msisdn, a.balance_minor::text AS balance, coalesce(e.total, 0)::text AS entries_sum,
            a.held_minor::text AS held, coalesce(h.total, 0)::text AS open_holds,
            a.entries, coalesce(e.n, 0)::int AS entries_found
       FROM float_accounts a
       LEFT JOIN (SELECT msisdn, sum(delta_minor) AS total, count(*) AS n
                    FROM float_entries GROUP BY msisdn) e ON e.msisdn = a.msisdn
       LEFT JOIN (SELECT msisdn, sum(amount_minor) AS total
                    FROM float_holds WHERE state = 'held' AND funding = 'float' GROUP BY msisdn) h
              ON h.msisdn = a.msisdn
      WHERE a.balance_minor <> coalesce(e.total, 0)
         OR a.held_minor <> coalesce(h.total, 0)
         OR a.entries <> coalesce(e.n, 0)
      ORDER BY a.msisdn`,
  );
  return result.rows.map((row) => ({
    msisdn: row.msisdn,
    balanceMinor: Number(row.balance),
    entriesSumMinor: Number(row.entries_sum),
    heldMinor: Number(row.held),
    openHoldsMinor: Number(row.open_holds),
    entries: row.entries,
    entriesFound: row.entries_found,
  }));
}
