import type { Database, Queryable } from '../../records/database';
import {
  callFloatFunction,
  closed,
  entryColumns,
  entryOf,
  holdColumns,
  holdOf,
  iso,
  unexpected,
  written,
  type EntryRow,
  type HoldRow,
} from './sql-rows';
import {
  DEFAULT_ENTRY_PAGE,
  LATE_SETTLE_NOTE,
  type CommissionWrite,
  type CreditResult,
  type CreditWrite,
  type DayFigures,
  type DayUsage,
  type Deposit,
  type DepositDecision,
  type DepositState,
  type FloatBalance,
  type FloatEntry,
  type FloatStore,
  type LimitName,
  type OutcomeResult,
  type Reservation,
  type ReserveResult,
  type ReserveWrite,
  type SettleSaleResult,
  type TransferResult,
} from './store';

/**
 * Float ledgers in the system of record (PostgreSQL, or PGlite embedded). Each write is one call
 * of a float function of the migrations (one statement, one transaction), which takes the agent's
 * account row lock first; the database refuses a negative balance and a second entry for the
 * same reference or purchase key by itself. In order: an account's balance and entries (credits,
 * transfers), a sale's hold (reserve, settle with its commission, release, the day's usage), bank
 * deposits (`agent_deposits`), what the ledger says over a period, and the ledger check
 * (`ledgerDiscrepancies`).
 */

const DEPOSIT_COLUMNS = `id::text AS id, msisdn, amount_minor::text AS amount_minor, bank_reference, state,
  ${iso('requested_at')} AS requested_at, ${iso('decided_at')} AS decided_at, decided_by, note`;

interface DepositRow {
  id: string;
  msisdn: string;
  amount_minor: string;
  bank_reference: string;
  state: DepositState;
  requested_at: string;
  decided_at: string | null;
  decided_by: string | null;
  note: string | null;
}

function depositOf(row: DepositRow): Deposit {
  return {
    id: Number(row.id),
    msisdn: row.msisdn,
    amountMinor: Number(row.amount_minor),
    bankReference: row.bank_reference,
    state: row.state,
    requestedAt: row.requested_at,
    decidedAt: row.decided_at,
    decidedBy: row.decided_by,
    note: row.note,
  };
}

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

export class SqlFloatStore implements FloatStore {
  constructor(private readonly db: Database) {}

  async balance(msisdn: string): Promise<FloatBalance> {
    const result = await this.db.query<{ balance: string; held: string; entries: number }>(
      `SELECT balance_minor::text AS balance, held_minor::text AS held, entries
         FROM float_accounts WHERE msisdn = $1`,
      [msisdn],
    );
    const row = result.rows[0];
    return row
      ? { availableMinor: Number(row.balance), heldMinor: Number(row.held), entries: row.entries }
      : { availableMinor: 0, heldMinor: 0, entries: 0 };
  }

  async credit(msisdn: string, write: CreditWrite): Promise<CreditResult> {
    const row = await callFloatFunction(
      this.db,
      'float_credit($1, $2, $3::bigint, $4, $5, $6, $7::timestamptz)',
      [
        msisdn,
        write.kind,
        String(write.amountMinor),
        write.reference,
        write.idempotencyKey ?? null,
        write.note ?? null,
        write.at.toISOString(),
      ],
    );
    switch (row.outcome) {
      case 'written':
        return { status: 'credited', entry: written(row) };
      case 'duplicate':
        return { status: 'duplicate', entry: written(row) };
      case 'conflict':
        return { status: 'conflict', field: row.refused as 'reference' | 'idempotencyKey' };
      case 'insufficient':
        return { status: 'insufficient', availableMinor: Number(row.available_minor) };
      default:
        return unexpected('float_credit', row);
    }
  }

  async entries(msisdn: string, options: { offset?: number; limit?: number } = {}): Promise<FloatEntry[]> {
    const result = await this.db.query<EntryRow>(
      `SELECT ${entryColumns('')} FROM float_entries WHERE msisdn = $1 ORDER BY seq LIMIT $2 OFFSET $3`,
      [msisdn, options.limit ?? DEFAULT_ENTRY_PAGE, options.offset ?? 0],
    );
    return result.rows.map((row) => entryOf(row)!);
  }

  async transfer(
    dealer: string,
    retailer: string,
    amountMinor: number,
    reference: string,
    at: Date,
  ): Promise<TransferResult> {
    const row = await callFloatFunction(this.db, 'float_transfer($1, $2, $3::bigint, $4, $5::timestamptz)', [
      dealer,
      retailer,
      String(amountMinor),
      reference,
      at.toISOString(),
    ]);
    switch (row.outcome) {
      case 'written':
      case 'duplicate':
        return {
          status: row.outcome === 'written' ? 'transferred' : 'duplicate',
          entry: written(row),
          dealerMinor: Number(row.available_minor),
          retailerMinor: Number(row.used),
        };
      case 'not_retailer':
        return { status: 'not_retailer' };
      case 'insufficient':
        return { status: 'insufficient', availableMinor: Number(row.available_minor) };
      case 'conflict':
        return { status: 'conflict' };
      default:
        return unexpected('float_transfer', row);
    }
  }

  // A sale's hold.

  async reserve(msisdn: string, write: ReserveWrite): Promise<ReserveResult> {
    const { limits } = write;
    const row = await callFloatFunction(
      this.db,
      `float_reserve($1, $2, $3::bigint, $4, $5::bigint, $6::bigint, $7::bigint, $8::date, $9::timestamptz)`,
      [
        msisdn,
        write.purchaseKey,
        String(write.amountMinor),
        write.funding,
        String(limits.maxSaleMinor),
        String(limits.maxDayValueMinor),
        String(limits.maxDayCount),
        write.day,
        write.at.toISOString(),
      ],
    );
    switch (row.outcome) {
      case 'written':
        return { status: 'reserved', reservation: holdOf(row), entry: entryOf(row) };
      case 'duplicate':
        return { status: 'duplicate', reservation: holdOf(row) };
      case 'conflict':
        return { status: 'conflict', reservation: holdOf(row) };
      case 'insufficient':
        return { status: 'insufficient', availableMinor: Number(row.available_minor) };
      case 'over_limit':
        return {
          status: 'over_limit',
          limit: row.refused as LimitName,
          limitValue: Number(row.limit_value),
          used: Number(row.used),
        };
      default:
        return unexpected('float_reserve', row);
    }
  }

  async settle(msisdn: string, purchaseKey: string, at: Date): Promise<OutcomeResult> {
    const row = await callFloatFunction(this.db, 'float_settle($1, $2, $3::timestamptz, $4)', [
      msisdn,
      purchaseKey,
      at.toISOString(),
      LATE_SETTLE_NOTE,
    ]);
    switch (row.outcome) {
      case 'written':
        return { status: 'settled', reservation: holdOf(row), entry: entryOf(row) };
      case 'uncovered':
        return {
          status: 'uncovered',
          reservation: holdOf(row),
          availableMinor: Number(row.available_minor),
        };
      default:
        return closed('float_settle', row);
    }
  }

  async settleSale(
    msisdn: string,
    purchaseKey: string,
    at: Date,
    commission: CommissionWrite,
  ): Promise<SettleSaleResult> {
    const row = await callFloatFunction(
      this.db,
      'float_settle_commission($1, $2, $3::timestamptz, $4, $5::bigint, $6, $7::bigint, $8)',
      [
        msisdn,
        purchaseKey,
        at.toISOString(),
        LATE_SETTLE_NOTE,
        String(commission.sellerMinor),
        commission.dealer?.msisdn ?? null,
        String(commission.dealer?.minor ?? 0),
        commission.note ?? null,
      ],
    );
    const commissionMinor = Number(row.used ?? 0);
    switch (row.outcome) {
      case 'written':
        return { status: 'settled', reservation: holdOf(row), entry: entryOf(row), commissionMinor };
      case 'uncovered':
        return {
          status: 'uncovered',
          reservation: holdOf(row),
          availableMinor: Number(row.available_minor),
          commissionMinor: 0,
        };
      default:
        return { ...closed('float_settle_commission', row), commissionMinor };
    }
  }

  async release(msisdn: string, purchaseKey: string, at: Date): Promise<OutcomeResult> {
    const row = await callFloatFunction(this.db, 'float_release($1, $2, $3::timestamptz)', [
      msisdn,
      purchaseKey,
      at.toISOString(),
    ]);
    if (row.outcome === 'written')
      return { status: 'released', reservation: holdOf(row), entry: entryOf(row) };
    return closed('float_release', row);
  }

  async reservation(msisdn: string, purchaseKey: string): Promise<Reservation | null> {
    const result = await this.db.query<HoldRow>(
      `SELECT ${holdColumns('')} FROM float_holds WHERE msisdn = $1 AND purchase_key = $2`,
      [msisdn, purchaseKey],
    );
    return result.rows.length === 0 ? null : holdOf(result.rows[0]);
  }

  async dayUsage(msisdn: string, day: string): Promise<DayUsage> {
    // The day's holds not released (the same sum float_reserve checks the limits against).
    const result = await this.db.query<{ value: string; count: number }>(
      `SELECT coalesce(sum(amount_minor), 0)::text AS value, count(*)::int AS count
         FROM float_holds WHERE msisdn = $1 AND day = $2::date AND state <> 'released'`,
      [msisdn, day],
    );
    const row = result.rows[0];
    return { valueMinor: Number(row.value), count: row.count };
  }

  // Bank deposits.

  async reportDeposit(
    msisdn: string,
    amountMinor: number,
    bankReference: string,
    at: Date,
  ): Promise<Deposit | null> {
    const result = await this.db.query<DepositRow>(
      `INSERT INTO agent_deposits (msisdn, amount_minor, bank_reference, state, requested_at)
       VALUES ($1, $2::bigint, $3, 'pending', $4::timestamptz)
       ON CONFLICT (bank_reference) DO NOTHING
       RETURNING ${DEPOSIT_COLUMNS}`,
      [msisdn, String(amountMinor), bankReference, at.toISOString()],
    );
    return result.rows.length === 0 ? null : depositOf(result.rows[0]);
  }

  async deposit(id: number): Promise<Deposit | null> {
    const result = await this.db.query<DepositRow>(
      `SELECT ${DEPOSIT_COLUMNS} FROM agent_deposits WHERE id = $1::bigint`,
      [String(id)],
    );
    return result.rows.length === 0 ? null : depositOf(result.rows[0]);
  }

  async depositByReference(bankReference: string): Promise<Deposit | null> {
    const result = await this.db.query<DepositRow>(
      `SELECT ${DEPOSIT_COLUMNS} FROM agent_deposits WHERE bank_reference = $1`,
      [bankReference],
    );
    return result.rows.length === 0 ? null : depositOf(result.rows[0]);
  }

  async deposits(
    options: { state?: DepositState; msisdn?: string; limit?: number } = {},
  ): Promise<Deposit[]> {
    const result = await this.db.query<DepositRow>(
      `SELECT ${DEPOSIT_COLUMNS} FROM agent_deposits
        WHERE ($1::text IS NULL OR state = $1) AND ($2::text IS NULL OR msisdn = $2)
        ORDER BY requested_at, id LIMIT $3`,
      [options.state ?? null, options.msisdn ?? null, options.limit ?? 100],
    );
    return result.rows.map(depositOf);
  }

  async approveDeposit(id: number, by: string, at: Date): Promise<DepositDecision> {
    const row = await callFloatFunction(this.db, 'float_deposit_approve($1::bigint, $2, $3::timestamptz)', [
      String(id),
      by,
      at.toISOString(),
    ]);
    const deposit = await this.deposit(id);
    if (row.outcome === 'not_found' || !deposit) return { status: 'not_found' };
    if (row.outcome === 'already') return { status: 'already', deposit };
    if (row.outcome === 'written' || row.outcome === 'duplicate')
      return { status: 'approved', deposit, entry: written(row) };
    return unexpected('float_deposit_approve', row);
  }

  async rejectDeposit(id: number, by: string, at: Date, note: string | null): Promise<DepositDecision> {
    const result = await this.db.query<DepositRow>(
      `UPDATE agent_deposits SET state = 'rejected', decided_at = $2::timestamptz, decided_by = $3, note = $4
        WHERE id = $1::bigint AND state = 'pending'
       RETURNING ${DEPOSIT_COLUMNS}`,
      [String(id), at.toISOString(), by, note],
    );
    if (result.rows.length === 1) return { status: 'rejected', deposit: depositOf(result.rows[0]) };
    const deposit = await this.deposit(id);
    return deposit ? { status: 'already', deposit } : { status: 'not_found' };
  }

  // What the ledger says over a period.

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
