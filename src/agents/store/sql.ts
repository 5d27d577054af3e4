import type { Database, Queryable } from '../../records/database';
import { applyPinAttempt, type AttemptOutcome, type PinAttempt } from '../lockout';
import type { AgentRecord, DisabledReason, ScryptParams } from '../types';
import {
  applyPinWrite,
  applyStatusWrite,
  DEFAULT_AGENT_LIST_LIMIT,
  type AgentStore,
  type DealerWrite,
  type PinWrite,
  type PinWriteResult,
  type StatusWrite,
} from './store';

/** A timestamptz as the ISO string the records carry (UTC, milliseconds). */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// int8 read as text: pg answers strings, PGlite numbers; both become the same JS number.
const COLUMNS = `msisdn, name, language, status, disabled_reason, failed_attempts,
  ${iso('locked_until')} AS locked_until, to_char(lockout_day, 'YYYY-MM-DD') AS lockout_day,
  lockouts_today, must_change_pin, funding_kind, debited_account_id::text AS debited_account_id,
  max_sale_minor::text AS max_sale_minor, max_day_value_minor::text AS max_day_value_minor, max_day_count,
  dealer_msisdn, outlet_msisdn, commission, dealer_share_bp, dealer,
  ${iso('created_at')} AS created_at, ${iso('updated_at')} AS updated_at,
  pin_hash, pin_salt, pin_params, pin_version`;

interface Row {
  msisdn: string;
  name: string;
  language: string;
  status: AgentRecord['status'];
  disabled_reason: DisabledReason | null;
  failed_attempts: number;
  locked_until: string | null;
  lockout_day: string | null;
  lockouts_today: number;
  must_change_pin: boolean;
  funding_kind: 'account' | 'float';
  debited_account_id: string | null;
  max_sale_minor: string | null;
  max_day_value_minor: string | null;
  max_day_count: number | null;
  dealer_msisdn: string | null;
  outlet_msisdn: string | null;
  commission: string | null;
  dealer_share_bp: number | null;
  dealer: boolean;
  created_at: string;
  updated_at: string;
  pin_hash: string;
  pin_salt: string;
  pin_params: ScryptParams;
  pin_version: number;
}

/** A row of `COLUMNS` (as pg or PGlite answer it, or as `row_to_json` does) as the record. */
function recordOf(row: Row): AgentRecord {
  const limits: AgentRecord['limits'] = {};
  if (row.max_sale_minor !== null) limits.maxSaleMinor = Number(row.max_sale_minor);
  if (row.max_day_value_minor !== null) limits.maxDayValueMinor = Number(row.max_day_value_minor);
  if (row.max_day_count !== null) limits.maxDayCount = row.max_day_count;
  return {
    msisdn: row.msisdn,
    name: row.name,
    language: row.language,
    status: row.status,
    disabledReason: row.disabled_reason,
    failedAttempts: row.failed_attempts,
    lockedUntil: row.locked_until,
    lockoutDay: row.lockout_day,
    lockoutsToday: row.lockouts_today,
    mustChangePin: row.must_change_pin,
    funding:
      row.funding_kind === 'account'
        ? { kind: 'account', debitedAccountId: Number(row.debited_account_id) }
        : { kind: 'float' },
    limits,
    // Only when set: an agent of its own reads as it always has.
    ...(row.dealer_msisdn !== null && { dealerMsisdn: row.dealer_msisdn }),
    ...(row.outlet_msisdn !== null && { outletMsisdn: row.outlet_msisdn }),
    ...(row.commission !== null && { commission: row.commission }),
    ...(row.dealer_share_bp !== null && { dealerShareBp: row.dealer_share_bp }),
    ...(row.dealer && { dealer: true }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    pin: { hash: row.pin_hash, salt: row.pin_salt, params: row.pin_params, version: row.pin_version },
  };
}

// The agent's columns and their mapper, for the dial's one read (src/subscribers/caller-on-dial.ts).
export { COLUMNS as AGENT_COLUMNS, recordOf as agentRecordOf, type Row as AgentRow };

/** Every column but the key, in the order of `values` below. */
const WRITTEN = [
  'name',
  'language',
  'status',
  'disabled_reason',
  'failed_attempts',
  'locked_until',
  'lockout_day',
  'lockouts_today',
  'must_change_pin',
  'funding_kind',
  'debited_account_id',
  'max_sale_minor',
  'max_day_value_minor',
  'max_day_count',
  'dealer_msisdn',
  'outlet_msisdn',
  'commission',
  'dealer_share_bp',
  'dealer',
  'pin_hash',
  'pin_salt',
  'pin_params',
  'pin_version',
  'created_at',
  'updated_at',
] as const;

function values(record: AgentRecord): unknown[] {
  return [
    record.name,
    record.language,
    record.status,
    record.disabledReason,
    record.failedAttempts,
    record.lockedUntil,
    record.lockoutDay,
    record.lockoutsToday,
    record.mustChangePin,
    record.funding.kind,
    record.funding.kind === 'account' ? record.funding.debitedAccountId : null,
    record.limits.maxSaleMinor ?? null,
    record.limits.maxDayValueMinor ?? null,
    record.limits.maxDayCount ?? null,
    record.dealerMsisdn ?? null,
    record.outletMsisdn ?? null,
    record.commission ?? null,
    record.dealerShareBp ?? null,
    record.dealer === true,
    record.pin.hash,
    record.pin.salt,
    JSON.stringify(record.pin.params),
    record.pin.version,
    record.createdAt,
    record.updatedAt,
  ];
}

/**
 * Agent records in the system of record (PostgreSQL, or PGlite embedded): one row per agent.
 * A change reads the row under its lock (`FOR UPDATE`), applies the pure rules of
 * ../lockout.ts and ./store.ts (`applyPinAttempt`, `applyPinWrite`, `applyStatusWrite`) and
 * writes the row back in the same transaction, so wrong PINs arriving at once over USSD and SMS all count.
 */
export class SqlAgentStore implements AgentStore {
  constructor(private readonly db: Database) {}

  async create(record: AgentRecord): Promise<boolean> {
    const params = [record.msisdn, ...values(record)];
    return this.db
      .transaction(async (tx) => {
        // A retailer makes its dealer a dealer, first: its row lock orders this after a
        // `setDealer(off)` under way, which then sees the retailer and refuses.
        if (record.dealerMsisdn)
          await tx.query(`UPDATE agents SET dealer = true WHERE msisdn = $1 AND NOT dealer`, [
            record.dealerMsisdn,
          ]);
        const inserted = await tx.query(
          `INSERT INTO agents (msisdn, ${WRITTEN.join(', ')})
         VALUES (${params.map((_, i) => `$${i + 1}`).join(', ')})
         ON CONFLICT (msisdn) DO NOTHING`,
          params,
        );
        if (inserted.rowCount !== 1) throw new NotInserted();
        return true;
      })
      .catch((error: unknown) => {
        if (error instanceof NotInserted) return false;
        throw error;
      });
  }

  async get(msisdn: string): Promise<AgentRecord | null> {
    // (The dial reads this row with the caller's saved meters: src/subscribers/caller-on-dial.ts.)
    const result = await this.db.query<Row>(`SELECT ${COLUMNS} FROM agents WHERE msisdn = $1`, [msisdn]);
    return result.rows.length === 0 ? null : recordOf(result.rows[0]);
  }

  async list(options: { limit?: number; offset?: number } = {}): Promise<AgentRecord[]> {
    const result = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM agents ORDER BY created_at, msisdn LIMIT $1 OFFSET $2`,
      [options.limit ?? DEFAULT_AGENT_LIST_LIMIT, options.offset ?? 0],
    );
    return result.rows.map(recordOf);
  }

  async recordPinAttempt(msisdn: string, attempt: PinAttempt): Promise<AttemptOutcome> {
    return this.change<AttemptOutcome>(msisdn, { kind: 'not_found' }, (current) => {
      const { outcome, record } = applyPinAttempt(current, attempt);
      return { result: outcome, next: record === current ? null : record };
    });
  }

  async setPin(msisdn: string, write: PinWrite): Promise<PinWriteResult> {
    return this.change<PinWriteResult>(msisdn, 'not_found', (current) =>
      write.expectedVersion !== null && write.expectedVersion !== current.pin.version
        ? { result: 'stale', next: null }
        : { result: 'written', next: applyPinWrite(current, write) },
    );
  }

  async setStatus(msisdn: string, write: StatusWrite): Promise<AgentRecord | null> {
    return this.change<AgentRecord | null>(msisdn, null, (current) => {
      const next = applyStatusWrite(current, write);
      return { result: next, next };
    });
  }

  async setStatusIf(
    msisdn: string,
    write: StatusWrite,
    allowed: (current: AgentRecord) => boolean,
  ): Promise<{ status: 'written' | 'refused'; record: AgentRecord } | null> {
    return this.change<{ status: 'written' | 'refused'; record: AgentRecord } | null>(
      msisdn,
      null,
      (current) => {
        if (!allowed(current)) return { result: { status: 'refused', record: current }, next: null };
        const next = applyStatusWrite(current, write);
        return { result: { status: 'written', record: next }, next };
      },
    );
  }

  async setDealer(msisdn: string, dealer: boolean, now: Date): Promise<DealerWrite | null> {
    return this.db.transaction(async (tx) => {
      const found = await tx.query<Row>(`SELECT ${COLUMNS} FROM agents WHERE msisdn = $1 FOR UPDATE`, [
        msisdn,
      ]);
      if (found.rows.length === 0) return null;
      const current = recordOf(found.rows[0]);
      if (dealer && current.outletMsisdn) return { status: 'assistant', record: current };
      if (!dealer) {
        const retailers = await tx.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM agents WHERE dealer_msisdn = $1`,
          [msisdn],
        );
        const count = Number(retailers.rows[0].n);
        if (count > 0) return { status: 'has_retailers', record: current, retailers: count };
      }
      if ((current.dealer === true) === dealer) return { status: 'unchanged', record: current };
      const next: AgentRecord = { ...current, updatedAt: now.toISOString() };
      if (dealer) next.dealer = true;
      else delete next.dealer;
      await write(tx, next);
      return { status: 'written', record: next };
    });
  }

  async linked(link: 'dealer' | 'outlet', msisdn: string): Promise<AgentRecord[]> {
    const column = link === 'dealer' ? 'dealer_msisdn' : 'outlet_msisdn';
    const result = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM agents WHERE ${column} = $1 ORDER BY created_at, msisdn`,
      [msisdn],
    );
    return result.rows.map(recordOf);
  }

  /** Reads the row under its lock, decides, writes the record `decide` returns (if any), commits. */
  private change<T>(
    msisdn: string,
    missing: T,
    decide: (current: AgentRecord) => { result: T; next: AgentRecord | null },
  ): Promise<T> {
    return this.db.transaction(async (tx) => {
      const found = await tx.query<Row>(`SELECT ${COLUMNS} FROM agents WHERE msisdn = $1 FOR UPDATE`, [
        msisdn,
      ]);
      if (found.rows.length === 0) return missing;
      const { result, next } = decide(recordOf(found.rows[0]));
      if (next) await write(tx, next);
      return result;
    });
  }
}

async function write(tx: Queryable, record: AgentRecord): Promise<void> {
  const assignments = WRITTEN.map((column, i) => `${column} = $${i + 2}`).join(', ');
  await tx.query(`UPDATE agents SET ${assignments} WHERE msisdn = $1`, [record.msisdn, ...values(record)]);
}

/** A create whose MSISDN was taken: rolls back the dealer mark made for it. */
class NotInserted extends Error {}
