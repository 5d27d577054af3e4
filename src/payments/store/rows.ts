/**
 * Reading and writing the payment tables' rows: a top-up row as a record, what a transition
 * changed (its history row), and the database's refusals read from its errors.
 */
import type { AgentTopUp, PaymentRecord } from './types';

export type TopUpRow = {
  id: string;
  request_key: string;
  msisdn: string;
  currency: string;
  amount_minor: string;
  state: AgentTopUp['state'];
  requested_at: Date;
  decided_at: Date | null;
};

/** The columns of a top-up row, named (never `*`: src/records/README.md, "Prepared statements"). */
export const TOP_UP_COLUMNS =
  'id, request_key, msisdn, currency, amount_minor, state, requested_at, decided_at';

/** A top-up row as its record. */
export function topUpOf(row: TopUpRow): AgentTopUp {
  return {
    id: row.id,
    requestKey: row.request_key,
    msisdn: row.msisdn,
    amount: { currency: row.currency.trim(), minor: Number(row.amount_minor) } as AgentTopUp['amount'],
    state: row.state,
    requestedAt: new Date(row.requested_at).toISOString(),
    decidedAt: row.decided_at ? new Date(row.decided_at).toISOString() : null,
  };
}

/** The top-level fields `next` changed (the history row keeps them). */
export function changedFields(current: PaymentRecord, next: PaymentRecord): Partial<PaymentRecord> {
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next)) {
    if (key === 'version' || key === 'updatedAt') continue;
    if (JSON.stringify(value) !== JSON.stringify((current as unknown as Record<string, unknown>)[key]))
      changed[key] = value;
  }
  return changed as Partial<PaymentRecord>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Our references are UUIDs: anything else names no payment (and must not reach a uuid cast). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** The database refused the write by its check `constraint` (or a refund trigger). */
export function isRefusal(error: unknown, constraint: string): boolean {
  const e = error as { code?: string; constraint?: string; message?: string } | null;
  return e?.code === '23514' && (e.constraint === constraint || (e.message ?? '').includes('refund'));
}

/** A unique index of `table` refused the write. */
export function isUniqueViolation(error: unknown, table: string): boolean {
  const e = error as { code?: string; table?: string; constraint?: string } | null;
  return e?.code === '23505' && (e.table === table || (e.constraint ?? '').startsWith(table));
}
