import type { Queryable } from '../../records/database';
import type { FloatEntry, OutcomeResult, Reservation } from './store';

/**
 * How the SQL float store reads rows: an entry's and a hold's columns, the answer of a float
 * function (float_credit, float_reserve, … in the migrations) and its mapping to the store's
 * types. An answer the caller does not expect is a bug, said loudly.
 */

/** A timestamptz as the ISO string the entries carry (UTC, milliseconds). */
export const iso = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The columns of an entry (`e.` for the table, `(o.entry).` for a function's answer), int8 read
 * as text: pg answers strings, PGlite numbers; both become the same JS number.
 */
export const entryColumns = (e: string) =>
  `${e}seq AS seq, ${iso(`${e}at`)} AS at, ${e}kind AS kind, ${e}amount_minor::text AS amount_minor,
   ${e}delta_minor::text AS delta_minor, ${e}balance_minor::text AS balance_minor,
   ${e}held_minor::text AS held_minor, ${e}purchase_key AS purchase_key, ${e}reference AS reference,
   ${e}note AS note`;

export const holdColumns = (h: string) =>
  `${h}purchase_key AS hold_key, ${h}amount_minor::text AS hold_amount, ${h}state AS hold_state,
   to_char(${h}day, 'YYYY-MM-DD') AS hold_day, ${h}funding AS hold_funding`;

export interface EntryRow {
  seq: number | null;
  at: string;
  kind: FloatEntry['kind'];
  amount_minor: string;
  delta_minor: string;
  balance_minor: string;
  held_minor: string;
  purchase_key: string | null;
  reference: string | null;
  note: string | null;
}

export interface HoldRow {
  hold_key: string | null;
  hold_amount: string;
  hold_state: Reservation['state'];
  hold_day: string;
  hold_funding: Reservation['funding'];
}

/** What a float function (float_credit, float_reserve, … in migration 0002) answers. */
export interface OutcomeRow extends EntryRow, HoldRow {
  outcome:
    | 'written'
    | 'duplicate'
    | 'conflict'
    | 'insufficient'
    | 'over_limit'
    | 'already'
    | 'uncovered'
    | 'not_found'
    | 'not_retailer';
  available_minor: string | null;
  refused: string | null;
  limit_value: string | null;
  used: string | null;
}

export function entryOf(row: EntryRow): FloatEntry | null {
  if (row.seq === null) return null;
  return {
    seq: row.seq,
    at: row.at,
    kind: row.kind,
    amountMinor: Number(row.amount_minor),
    deltaMinor: Number(row.delta_minor),
    balanceMinor: Number(row.balance_minor),
    heldMinor: Number(row.held_minor),
    ...(row.purchase_key !== null && { purchaseKey: row.purchase_key }),
    ...(row.reference !== null && { reference: row.reference }),
    ...(row.note !== null && { note: row.note }),
  };
}

export function holdOf(row: HoldRow): Reservation {
  if (row.hold_key === null) throw new Error('float function answered without its reservation');
  return {
    purchaseKey: row.hold_key,
    amountMinor: Number(row.hold_amount),
    state: row.hold_state,
    day: row.hold_day,
    funding: row.hold_funding,
  };
}

export function written(row: OutcomeRow): FloatEntry {
  const entry = entryOf(row);
  if (!entry) throw new Error('float function wrote no entry');
  return entry;
}

/** An unexpected answer is a bug: said loudly, never mapped to a refusal. */
export function unexpected(fn: string, row: OutcomeRow): never {
  throw new Error(`${fn} answered ${row.outcome}`);
}

/** A settle's or release's answer when nothing was written: done before, or no such hold. */
export function closed(fn: string, row: OutcomeRow): OutcomeResult {
  if (row.outcome === 'already') return { status: 'already', reservation: holdOf(row) };
  if (row.outcome === 'not_found') return { status: 'not_found' };
  return unexpected(fn, row);
}

/** One call of a float function (`fn` with its placeholders), its answer as one row. */
export async function callFloatFunction(db: Queryable, fn: string, params: unknown[]): Promise<OutcomeRow> {
  const result = await db.query<OutcomeRow>(
    `SELECT o.outcome, o.available_minor::text AS available_minor, o.refused,
              o.limit_value::text AS limit_value, o.used::text AS used,
              ${entryColumns('(o.entry).')}, ${holdColumns('(o.hold).')}
         FROM ${fn} o`,
    params,
  );
  return result.rows[0];
}
