import type { Database } from '../../records/database';
import { SqlDeposits } from './sql-deposits';
import { SqlFloatHolds } from './sql-holds';
import { SqlFloatReports } from './sql-reports';
import { callFloatFunction, entryColumns, entryOf, unexpected, written, type EntryRow } from './sql-rows';
import {
  DEFAULT_ENTRY_PAGE,
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
  type OutcomeResult,
  type Reservation,
  type ReserveResult,
  type ReserveWrite,
  type SettleSaleResult,
  type TransferResult,
} from './store';

/**
 * Float ledgers in the system of record (PostgreSQL, or PGlite embedded). Each write is one call
 * of a function of migration 0002 (one statement, one transaction), which takes the agent's
 * account row lock first; the database refuses a negative balance and a second entry for the
 * same reference or purchase key by itself. This module writes an account's balance and entries
 * (credits, transfers); a sale's holds, the deposits and the reports are in `sql-holds.ts`,
 * `sql-deposits.ts` and `sql-reports.ts`.
 */
export class SqlFloatStore implements FloatStore {
  private readonly holds: SqlFloatHolds;
  private readonly depositBook: SqlDeposits;
  private readonly reports: SqlFloatReports;

  constructor(private readonly db: Database) {
    this.holds = new SqlFloatHolds(db);
    this.depositBook = new SqlDeposits(db);
    this.reports = new SqlFloatReports(db);
  }

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

  // A sale's hold (sql-holds.ts).

  reserve(msisdn: string, write: ReserveWrite): Promise<ReserveResult> {
    return this.holds.reserve(msisdn, write);
  }
  settle(msisdn: string, purchaseKey: string, at: Date): Promise<OutcomeResult> {
    return this.holds.settle(msisdn, purchaseKey, at);
  }
  settleSale(...args: Parameters<FloatStore['settleSale']>): Promise<SettleSaleResult> {
    return this.holds.settleSale(...args);
  }
  release(msisdn: string, purchaseKey: string, at: Date): Promise<OutcomeResult> {
    return this.holds.release(msisdn, purchaseKey, at);
  }
  reservation(msisdn: string, purchaseKey: string): Promise<Reservation | null> {
    return this.holds.reservation(msisdn, purchaseKey);
  }
  dayUsage(msisdn: string, day: string): Promise<DayUsage> {
    return this.holds.dayUsage(msisdn, day);
  }

  // Bank deposits (sql-deposits.ts).

  reportDeposit(...args: Parameters<FloatStore['reportDeposit']>): Promise<Deposit | null> {
    return this.depositBook.reportDeposit(...args);
  }
  deposit(id: number): Promise<Deposit | null> {
    return this.depositBook.deposit(id);
  }
  depositByReference(bankReference: string): Promise<Deposit | null> {
    return this.depositBook.depositByReference(bankReference);
  }
  deposits(options?: { state?: DepositState; msisdn?: string; limit?: number }): Promise<Deposit[]> {
    return this.depositBook.deposits(options);
  }
  approveDeposit(id: number, by: string, at: Date): Promise<DepositDecision> {
    return this.depositBook.approveDeposit(id, by, at);
  }
  rejectDeposit(id: number, by: string, at: Date, note: string | null): Promise<DepositDecision> {
    return this.depositBook.rejectDeposit(id, by, at, note);
  }

  // Reports (sql-reports.ts).

  salesOn(...args: Parameters<FloatStore['salesOn']>): Promise<{ count: number; valueMinor: number }> {
    return this.reports.salesOn(...args);
  }
  dayFigures(msisdn: string, day: string, timeZone: string): Promise<DayFigures> {
    return this.reports.dayFigures(msisdn, day, timeZone);
  }
  commission(...args: Parameters<FloatStore['commission']>): Promise<number> {
    return this.reports.commission(...args);
  }
  activeOn(day: string, timeZone: string): Promise<string[]> {
    return this.reports.activeOn(day, timeZone);
  }
}
