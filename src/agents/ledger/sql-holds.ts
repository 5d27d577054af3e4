import type { Database } from '../../records/database';
import {
  callFloatFunction,
  closed,
  entryOf,
  holdColumns,
  holdOf,
  unexpected,
  type HoldRow,
} from './sql-rows';
import {
  LATE_SETTLE_NOTE,
  type CommissionWrite,
  type DayUsage,
  type LimitName,
  type OutcomeResult,
  type Reservation,
  type ReserveResult,
  type ReserveWrite,
  type SettleSaleResult,
} from './store';

/**
 * A sale's hold in SQL: reserve (the limits and the float checked in float_reserve), settle (with
 * the commission in float_settle_commission), release, and the holds read back (one sale's, and
 * the day's usage the limits count).
 */
export class SqlFloatHolds {
  constructor(private readonly db: Database) {}

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
}
