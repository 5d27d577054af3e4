import type { ResolvedLimits } from '../types';

/**
 * The float store: each agent's float ledger in exact minor units. Every operation is one
 * atomic step (one Lua script in Redis), every change of the balance writes an entry, and the
 * balance can be re-derived from the entries: Σ deltaMinor = balanceMinor. Both stores pass
 * test/agents/float.contract.ts.
 */

export const FLOAT_ENTRY_KINDS = ['credit', 'adjustment', 'reserve', 'settle', 'release'] as const;
export type FloatEntryKind = (typeof FLOAT_ENTRY_KINDS)[number];

/** One line of the ledger; never changed once written. */
export interface FloatEntry {
  /** 1, 2, 3, … per agent. */
  seq: number;
  at: string;
  kind: FloatEntryKind;
  /** The operation's amount: positive, except a negative adjustment. */
  amountMinor: number;
  /** Effect on the available balance: credit +, reserve −, release +, settle 0 (− after a release), adjustment ±. */
  deltaMinor: number;
  /** Available balance after this entry. */
  balanceMinor: number;
  /** Sum of open reservations after this entry. */
  heldMinor: number;
  purchaseKey?: string;
  reference?: string;
  note?: string;
}

export interface FloatBalance {
  /** What sales may still reserve. */
  availableMinor: number;
  /** Reserved by sales whose outcome is not settled yet. */
  heldMinor: number;
  /** Entries written so far. */
  entries: number;
}

export type ReservationState = 'held' | 'settled' | 'released';

/**
 * The hold a sale put on an agent's sales: on the float (`funding: 'float'`), or only on the
 * day's limits (an agent selling from its own purchase-service account).
 */
export interface Reservation {
  purchaseKey: string;
  amountMinor: number;
  state: ReservationState;
  /** Local day the sale counts against. */
  day: string;
  funding: 'float' | 'account';
}

/** A top-up (`credit`, positive) or a correction (`adjustment`, signed) with its reference. */
export interface CreditWrite {
  kind: 'credit' | 'adjustment';
  amountMinor: number;
  reference: string;
  /** A client's retry key (`Idempotency-Key`); the reference dedupes on its own too. */
  idempotencyKey?: string;
  note?: string;
  at: Date;
}

export type CreditResult =
  | { status: 'credited'; entry: FloatEntry }
  /** The same reference (or key) with the same amount was applied before: nothing written. */
  | { status: 'duplicate'; entry: FloatEntry }
  /** The reference or key was used for another amount: nothing written. */
  | { status: 'conflict'; field: 'reference' | 'idempotencyKey' }
  /** A negative adjustment larger than the available balance: nothing written. */
  | { status: 'insufficient'; availableMinor: number };

export interface ReserveWrite {
  purchaseKey: string;
  amountMinor: number;
  funding: 'float' | 'account';
  limits: ResolvedLimits;
  /** Local day of `at`. */
  day: string;
  at: Date;
}

export type LimitName = 'max_sale' | 'day_value' | 'day_count';

export type ReserveResult =
  | { status: 'reserved'; reservation: Reservation; entry: FloatEntry | null }
  /** The purchase key holds this reservation already (same amount): nothing written. */
  | { status: 'duplicate'; reservation: Reservation }
  /** The purchase key holds a reservation of another amount: nothing written. */
  | { status: 'conflict'; reservation: Reservation }
  | { status: 'insufficient'; availableMinor: number }
  /** `limitMinor`/`used`: the limit and what the day had used before this sale (a count for day_count). */
  | { status: 'over_limit'; limit: LimitName; limitValue: number; used: number };

export type OutcomeResult =
  | { status: 'settled' | 'released'; reservation: Reservation; entry: FloatEntry | null }
  /**
   * settle: settled before; release: settled or released before (`reservation.state` says
   * which). Nothing written.
   */
  | { status: 'already'; reservation: Reservation }
  /** settle after a release: the float no longer covers the sale; nothing written (an operator decides). */
  | { status: 'uncovered'; reservation: Reservation; availableMinor: number }
  | { status: 'not_found' };

/** The note of a settle entry written after its reservation was released (a success found late). */
export const LATE_SETTLE_NOTE = 'success found after the release';

export interface DayUsage {
  valueMinor: number;
  count: number;
}

export interface FloatStore {
  balance(msisdn: string): Promise<FloatBalance>;
  credit(msisdn: string, write: CreditWrite): Promise<CreditResult>;
  /** Hold `amountMinor` for a sale, checking the limits and (float funding) the balance, atomically. */
  reserve(msisdn: string, write: ReserveWrite): Promise<ReserveResult>;
  /**
   * The sale succeeded: the held amount is spent. Idempotent. After a release (a success found
   * late) the amount is taken from the float again, if it covers it (`uncovered` otherwise).
   */
  settle(msisdn: string, purchaseKey: string, at: Date): Promise<OutcomeResult>;
  /** The sale definitively failed: the held amount is available again and no longer counts against the day. Idempotent. */
  release(msisdn: string, purchaseKey: string, at: Date): Promise<OutcomeResult>;
  reservation(msisdn: string, purchaseKey: string): Promise<Reservation | null>;
  /** Entries oldest first, from `offset` (0-based), at most `limit`. */
  entries(msisdn: string, options?: { offset?: number; limit?: number }): Promise<FloatEntry[]>;
  dayUsage(msisdn: string, day: string): Promise<DayUsage>;
}

export const DEFAULT_ENTRY_PAGE = 1000;
