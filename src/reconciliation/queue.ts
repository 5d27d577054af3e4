import type { AuditTrail } from '../purchases/care/audit';
import { CareInputError, limitOf, noteOf } from '../purchases/care/care';
import type { Database } from '../records/database';
import { formatMoney } from '../vas/money';
import { MISMATCH_REASONS, type MismatchReason, type SuggestedAction } from './types';

/**
 * The mismatch queue, worked like care's cases: list, show, assign, note, close with a decision.
 * Every change is written to care's audit trail first. Closing records what was decided and done;
 * a refund or a vend it calls for goes through the payment's and the purchase's own once-only
 * paths (`purchases reconcile`, the refund path), never from here.
 */

/** What an operator decided, closing one. */
export const DECISIONS = [
  'vended',
  'refunded',
  'written_off',
  'settled_late',
  'not_a_mismatch',
  'other',
] as const;
export type Decision = (typeof DECISIONS)[number];

export interface Mismatch {
  id: number;
  factKey: string;
  day: string;
  reason: MismatchReason;
  state: 'open' | 'closed';
  purchaseId: string | null;
  paymentId: string | null;
  amount: string;
  facts: Record<string, unknown>;
  suggestedAction: SuggestedAction;
  assignee: string | null;
  notes: string | null;
  foundAt: string;
  updatedAt: string;
  closedBy: string | null;
  closedAt: string | null;
  decision: string | null;
}

export class MismatchNotFoundError extends Error {
  constructor(id: unknown) {
    super(`no mismatch ${String(id)}`);
    this.name = 'MismatchNotFoundError';
  }
}

export class MismatchStateError extends Error {
  constructor(
    readonly id: number,
    readonly state: string,
  ) {
    super(`mismatch ${id} is ${state}`);
    this.name = 'MismatchStateError';
  }
}

type Row = {
  id: string;
  fact_key: string;
  day: string;
  reason: MismatchReason;
  state: 'open' | 'closed';
  purchase_id: string | null;
  payment_id: string | null;
  currency: string;
  amount_minor: string;
  facts: Record<string, unknown>;
  suggested_action: SuggestedAction;
  assignee: string | null;
  notes: string | null;
  found_at: Date | string;
  updated_at: Date | string;
  closed_by: string | null;
  closed_at: Date | string | null;
  decision: string | null;
};

const COLUMNS = `id::text AS id, fact_key, to_char(day, 'YYYY-MM-DD') AS day, reason, state, purchase_id,
  payment_id::text AS payment_id, currency, amount_minor::text AS amount_minor, facts, suggested_action, assignee, notes,
  found_at, updated_at, closed_by, closed_at, decision`;

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

function mismatchOf(row: Row): Mismatch {
  return {
    id: Number(row.id),
    factKey: row.fact_key,
    day: row.day,
    reason: row.reason,
    state: row.state,
    purchaseId: row.purchase_id,
    paymentId: row.payment_id,
    amount: formatMoney({ currency: row.currency.trim(), minor: Number(row.amount_minor) }),
    facts: row.facts,
    suggestedAction: row.suggested_action,
    assignee: row.assignee,
    notes: row.notes,
    foundAt: iso(row.found_at)!,
    updatedAt: iso(row.updated_at)!,
    closedBy: row.closed_by,
    closedAt: iso(row.closed_at),
    decision: row.decision,
  };
}

export const DEFAULT_MISMATCH_LIMIT = 50;
const MAX_LIMIT = 500;

function idOf(raw: unknown): number {
  const n =
    typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new MismatchNotFoundError(raw);
  return n;
}

function operatorName(raw: unknown): string {
  if (typeof raw !== 'string' || !/^[\w.@:-]{1,64}$/.test(raw.trim()))
    throw new CareInputError(
      'assignee',
      'assignee must be an operator name (letters, digits, . @ : - _; at most 64)',
    );
  return raw.trim();
}

export class MismatchQueue {
  constructor(
    private readonly db: Database,
    private readonly audit: Pick<AuditTrail, 'record'>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Open ones oldest first (the work queue), or closed ones newest first. */
  async list(
    query: { state?: unknown; reason?: unknown; day?: unknown; limit?: unknown } = {},
  ): Promise<Mismatch[]> {
    const state = query.state ?? 'open';
    if (state !== 'open' && state !== 'closed') throw new CareInputError('state', 'state is open or closed');
    if (query.reason !== undefined && !MISMATCH_REASONS.includes(query.reason as MismatchReason))
      throw new CareInputError('reason', `reason is one of ${MISMATCH_REASONS.join(', ')}`);
    if (query.day !== undefined && (typeof query.day !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(query.day)))
      throw new CareInputError('day', 'day must be YYYY-MM-DD');
    const limit = limitOf(query.limit, DEFAULT_MISMATCH_LIMIT, MAX_LIMIT);
    const params: unknown[] = [state, limit];
    let where = 'state = $1';
    if (query.reason !== undefined) where += ` AND reason = $${params.push(query.reason)}`;
    if (query.day !== undefined) where += ` AND day = $${params.push(query.day)}::date`;
    const order = state === 'open' ? 'day, id' : 'closed_at DESC, id DESC';
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM reconciliation_mismatches WHERE ${where} ORDER BY ${order} LIMIT $2`,
      params,
    );
    return rows.rows.map(mismatchOf);
  }

  async get(rawId: unknown): Promise<Mismatch> {
    const id = idOf(rawId);
    const row = (
      await this.db.query<Row>(`SELECT ${COLUMNS} FROM reconciliation_mismatches WHERE id = $1`, [id])
    ).rows[0];
    if (!row) throw new MismatchNotFoundError(rawId);
    return mismatchOf(row);
  }

  async assign(rawId: unknown, assignee: unknown, actor: string): Promise<Mismatch> {
    const name = operatorName(assignee);
    return this.change(rawId, actor, 'mismatch_assign', `assigned to ${name}`, null, 'assignee = $3', [name]);
  }

  async note(rawId: unknown, note: unknown, actor: string): Promise<Mismatch> {
    const text = noteOf(note, true)!;
    return this.change(
      rawId,
      actor,
      'mismatch_note',
      null,
      text,
      "notes = concat_ws(E'\\n', notes, $3::text)",
      [`${this.clock().toISOString()} ${actor}: ${text}`],
    );
  }

  async close(rawId: unknown, decision: unknown, note: unknown, actor: string): Promise<Mismatch> {
    if (!DECISIONS.includes(decision as Decision))
      throw new CareInputError('decision', `decision is one of ${DECISIONS.join(', ')}`);
    const text = noteOf(note, true)!;
    const now = this.clock();
    return this.change(
      rawId,
      actor,
      'mismatch_close',
      `decision ${String(decision)}`,
      text,
      `state = 'closed', decision = $3, closed_by = $4, closed_at = $5, notes = concat_ws(E'\\n', notes, $6::text)`,
      [decision, actor, now, `${now.toISOString()} ${actor}: closed (${String(decision)}): ${text}`],
    );
  }

  /** One compare-and-set on an open mismatch, audited before its answer. */
  private async change(
    rawId: unknown,
    actor: string,
    action: 'mismatch_assign' | 'mismatch_note' | 'mismatch_close',
    what: string | null,
    note: string | null,
    set: string,
    params: unknown[],
  ): Promise<Mismatch> {
    const id = idOf(rawId);
    const before = await this.get(id);
    if (before.state !== 'open') throw new MismatchStateError(id, before.state);
    await this.audit.record({
      actor,
      action,
      purchaseId: before.purchaseId,
      note,
      detail: [`mismatch ${id} ${before.reason} ${before.day}`, what].filter(Boolean).join(': '),
    });
    const row = (
      await this.db.query<Row>(
        `UPDATE reconciliation_mismatches SET ${set}, updated_at = $2
          WHERE id = $1 AND state = 'open' RETURNING ${COLUMNS}`,
        [id, this.clock(), ...params],
      )
    ).rows[0];
    if (!row) throw new MismatchStateError(id, 'closed');
    return mismatchOf(row);
  }
}
