import type { Database } from '../../records/database';
import { callFloatFunction, iso, unexpected, written } from './sql-rows';
import type { Deposit, DepositDecision, DepositState } from './store';

/**
 * Bank deposits in SQL (`agent_deposits`): reported once per bank reference, pending until an
 * operator approves (float_deposit_approve: the credit and the approval commit together) or
 * rejects.
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

export class SqlDeposits {
  constructor(private readonly db: Database) {}

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
}
