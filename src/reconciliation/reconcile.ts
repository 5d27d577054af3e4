import type { AuditTrail } from '../purchases/care/audit';
import type { Database } from '../records/database';
import { loadDay } from './load';
import { matchDay } from './match';
import { saveFound } from './store';
import { MISMATCH_REASONS, type DayMatch, type MismatchReason } from './types';

export interface ReconcileSettings {
  timeZone: string;
  /** `DEBIT_ACCOUNT_ID`; undefined: the account whose balance was recorded last. */
  accountId: number | undefined;
  /** A payment this close to the day's end with no line yet waits for the next statement. */
  lateWindowMs: number;
  /** A paid purchase still being sold this long after its payment is not yet a mismatch. */
  inFlightMs: number;
}

export const DEFAULT_LATE_WINDOW_MS = 30 * 60_000;
export const DEFAULT_IN_FLIGHT_MS = 15 * 60_000;

/** The day's answer: the match's figures and the queue's state for the day. */
export interface DayReconciliation extends Omit<DayMatch, 'mismatches'> {
  /** `closed`: nothing open and nothing missing; else `open`. */
  status: 'closed' | 'open';
  found: number;
  added: number;
  cleared: number;
  open: Partial<Record<MismatchReason, number>>;
  closed: Partial<Record<MismatchReason, number>>;
  openCount: number;
  ranAt: string;
}

export class ReconcileInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReconcileInputError';
  }
}

export function checkDay(day: unknown): string {
  if (
    typeof day !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}$/.test(day) ||
    Number.isNaN(Date.parse(`${day}T00:00:00Z`))
  )
    throw new ReconcileInputError('date must be a day, YYYY-MM-DD');
  return day;
}

/**
 * Reconciles one local day: loads the three ledgers, matches them, writes the mismatches (one per
 * fact; open ones a run no longer finds are closed, audited) and answers the day's figures.
 * Running it again gives the same answer. It never moves money.
 */
export async function reconcileDay(
  db: Database,
  audit: Pick<AuditTrail, 'record'>,
  settings: ReconcileSettings,
  day: string,
  now: Date = new Date(),
): Promise<DayReconciliation> {
  checkDay(day);
  const input = await loadDay(db, { day, now, ...settings });
  const match = matchDay(input);
  const saved = await saveFound(db, day, match.mismatches, now);
  for (const c of saved.cleared)
    await audit.record({
      actor: 'reconciliation',
      action: 'mismatch_clear',
      purchaseId: c.purchaseId,
      detail: `mismatch ${c.id} ${c.reason} ${day}`,
      note: 'a later run no longer finds it',
    });
  const counts = await db.query<{ state: 'open' | 'closed'; reason: MismatchReason; n: string }>(
    `SELECT state, reason, count(*)::text AS n FROM reconciliation_mismatches WHERE day = $1::date GROUP BY state, reason`,
    [day],
  );
  const open: Partial<Record<MismatchReason, number>> = {};
  const closed: Partial<Record<MismatchReason, number>> = {};
  for (const r of counts.rows) (r.state === 'open' ? open : closed)[r.reason] = Number(r.n);
  const openCount = MISMATCH_REASONS.reduce((n, reason) => n + (open[reason] ?? 0), 0);
  const { mismatches, ...figures } = match;
  return {
    ...figures,
    status: openCount === 0 && match.missing.length === 0 ? 'closed' : 'open',
    found: mismatches.length,
    added: saved.added,
    cleared: saved.cleared.length,
    open,
    closed,
    openCount,
    ranAt: now.toISOString(),
  };
}
