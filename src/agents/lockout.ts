import type { AgentRecord, DisabledReason } from './types';

/**
 * The lockout rules, in one pure function the SQL store runs on the agent's row under its lock
 * (test/agents/store.contract.ts checks them on PostgreSQL and PGlite):
 * `maxAttempts` wrong PINs in a row lock the agent for `baseLockMs`, each further lockout of
 * the same local day for twice as long as the one before; the `maxLockoutsPerDay`-th lockout
 * of a day disables the agent until an operator acts. A right PIN clears the wrong ones but
 * not the day's lockouts. While locked or disabled no PIN is checked at all.
 */
export interface LockoutPolicy {
  maxAttempts: number;
  baseLockMs: number;
  maxLockoutsPerDay: number;
}

export const DEFAULT_LOCKOUT: LockoutPolicy = {
  maxAttempts: 3,
  baseLockMs: 15 * 60_000,
  maxLockoutsPerDay: 3,
};

/** One PIN attempt as the store records it: checked against PIN `pinVersion`. */
export interface PinAttempt {
  pinVersion: number;
  correct: boolean;
  nowMs: number;
  /** The local day of `nowMs` (`YYYY-MM-DD`). */
  day: string;
  policy: LockoutPolicy;
}

/** What an attempt came to. `stale`: the PIN changed since it was read; check again. */
export type AttemptOutcome =
  | { kind: 'ok'; mustChangePin: boolean }
  | { kind: 'wrong'; attemptsLeft: number }
  | { kind: 'locked'; untilMs: number }
  | { kind: 'disabled'; reason: DisabledReason }
  | { kind: 'not_found' }
  | { kind: 'stale' };

type LockoutFields = Pick<
  AgentRecord,
  | 'status'
  | 'disabledReason'
  | 'failedAttempts'
  | 'lockedUntil'
  | 'lockoutDay'
  | 'lockoutsToday'
  | 'updatedAt'
>;

/** No wrong PINs and no lockouts counted: a new agent, an operator's enable or PIN reset. */
export const NO_LOCKOUTS = {
  failedAttempts: 0,
  lockedUntil: null,
  lockoutDay: null,
  lockoutsToday: 0,
} as const satisfies Partial<LockoutFields>;

/** The record after `attempt`, and the outcome. Pure: the store writes what it returns. */
export function applyPinAttempt(
  record: AgentRecord,
  attempt: PinAttempt,
): { outcome: AttemptOutcome; record: AgentRecord } {
  if (record.status === 'disabled')
    return { outcome: { kind: 'disabled', reason: record.disabledReason ?? 'operator' }, record };
  const lockedUntil = record.lockedUntil === null ? 0 : Date.parse(record.lockedUntil);
  if (lockedUntil > attempt.nowMs) return { outcome: { kind: 'locked', untilMs: lockedUntil }, record };
  if (record.pin.version !== attempt.pinVersion) return { outcome: { kind: 'stale' }, record };

  const updatedAt = new Date(attempt.nowMs).toISOString();
  const next = (fields: Partial<LockoutFields>): AgentRecord => ({ ...record, ...fields, updatedAt });
  const { policy } = attempt;
  if (attempt.correct)
    return {
      outcome: { kind: 'ok', mustChangePin: record.mustChangePin },
      record: next({ status: 'active', failedAttempts: 0, lockedUntil: null }),
    };
  const failed = record.failedAttempts + 1;
  if (failed < policy.maxAttempts)
    return {
      outcome: { kind: 'wrong', attemptsLeft: policy.maxAttempts - failed },
      record: next({ status: 'active', failedAttempts: failed, lockedUntil: null }),
    };
  const lockouts = (record.lockoutDay === attempt.day ? record.lockoutsToday : 0) + 1;
  const counted = { failedAttempts: 0, lockoutDay: attempt.day, lockoutsToday: lockouts };
  if (lockouts >= policy.maxLockoutsPerDay)
    return {
      outcome: { kind: 'disabled', reason: 'lockouts' },
      record: next({ ...counted, status: 'disabled', disabledReason: 'lockouts', lockedUntil: null }),
    };
  const untilMs = attempt.nowMs + policy.baseLockMs * 2 ** (lockouts - 1);
  return {
    outcome: { kind: 'locked', untilMs },
    record: next({ ...counted, status: 'locked', lockedUntil: new Date(untilMs).toISOString() }),
  };
}

/** A record as of `nowMs`: a lockout that has run out reads as `active`. */
export function asOf<T extends Pick<AgentRecord, 'status' | 'lockedUntil'>>(record: T, nowMs: number): T {
  if (record.status === 'locked' && (record.lockedUntil === null || Date.parse(record.lockedUntil) <= nowMs))
    return { ...record, status: 'active', lockedUntil: null };
  return record;
}

/** The local calendar day (limits and lockouts count per day): see src/i18n/local-time.ts. */
export { localDay } from '../i18n/local-time';
