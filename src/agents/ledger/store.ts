import type { ResolvedLimits } from '../types';

/**
 * The float store: each agent's float ledger in exact minor units. Every operation is one
 * atomic step (one SQL function call), every change of the balance writes an entry, and the
 * balance can be re-derived from the entries: Σ deltaMinor = balanceMinor. The SQL store passes
 * test/agents/float.contract.ts on PostgreSQL and PGlite.
 */

export const FLOAT_ENTRY_KINDS = [
  'credit',
  'adjustment',
  'reserve',
  'settle',
  'release',
  // The agent network (migration 0007).
  'commission',
  'transfer_in',
  'transfer_out',
  'topup',
  'deposit',
] as const;
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

/**
 * An operator's top-up (`credit`, positive) or correction (`adjustment`, signed), the agent's own
 * paid top-up (`topup`) or an approved bank deposit (`deposit`), with its reference.
 */
export interface CreditWrite {
  kind: 'credit' | 'adjustment' | 'topup' | 'deposit';
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

/** A sale's commission, written with its settle: the seller's and (a retailer's) its dealer's share. */
export interface CommissionWrite {
  sellerMinor: number;
  dealer: { msisdn: string; minor: number } | null;
  note?: string;
}

/** The settle's answer, and the seller's commission this call wrote (0: none, or written before). */
export type SettleSaleResult = OutcomeResult & { commissionMinor: number };

export type TransferResult =
  | { status: 'transferred' | 'duplicate'; entry: FloatEntry; dealerMinor: number; retailerMinor: number }
  /** The retailer is not this dealer's (or not float-funded): nothing written. */
  | { status: 'not_retailer' }
  | { status: 'insufficient'; availableMinor: number }
  /** The reference was used for another transfer: nothing written. */
  | { status: 'conflict' };

export type DepositState = 'pending' | 'approved' | 'rejected';

/** A bank deposit an agent reported, waiting for (or decided by) an operator. */
export interface Deposit {
  id: number;
  msisdn: string;
  amountMinor: number;
  bankReference: string;
  state: DepositState;
  requestedAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
  note: string | null;
}

export type DepositDecision =
  | { status: 'approved'; deposit: Deposit; entry: FloatEntry }
  | { status: 'rejected'; deposit: Deposit }
  /** Decided before (`deposit.state` says how): nothing changed. */
  | { status: 'already'; deposit: Deposit }
  | { status: 'not_found' };

/** What an account's entries of one local day come to (the summary SMS, the daily report). */
export interface DayFigures {
  commissionMinor: number;
  /** Operator credits, deposits, top-ups, transfers in, positive adjustments. */
  floatInMinor: number;
  /** Transfers out, negative adjustments (sales are counted apart). */
  floatOutMinor: number;
  transfersInMinor: number;
  transfersOutMinor: number;
  /** Available after the day's last entry (before the day, when it had none). */
  closingMinor: number;
  entries: number;
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
  /** `settle`, and the sale's commission in the same transaction (once per purchase key and account). */
  settleSale(
    msisdn: string,
    purchaseKey: string,
    at: Date,
    commission: CommissionWrite,
  ): Promise<SettleSaleResult>;
  /** Move float from a dealer to its retailer: both entries in one transaction, once per reference. */
  transfer(
    dealer: string,
    retailer: string,
    amountMinor: number,
    reference: string,
    at: Date,
  ): Promise<TransferResult>;
  /** Report a bank deposit (pending); null when the bank reference was reported before. */
  reportDeposit(
    msisdn: string,
    amountMinor: number,
    bankReference: string,
    at: Date,
  ): Promise<Deposit | null>;
  deposit(id: number): Promise<Deposit | null>;
  depositByReference(bankReference: string): Promise<Deposit | null>;
  /** Oldest first. */
  deposits(options?: { state?: DepositState; msisdn?: string; limit?: number }): Promise<Deposit[]>;
  /** Approve a pending deposit: credited in the same transaction, once. */
  approveDeposit(id: number, by: string, at: Date): Promise<DepositDecision>;
  rejectDeposit(id: number, by: string, at: Date, note: string | null): Promise<DepositDecision>;
  /** Sellers' sales that succeeded, bought on a local day: count and value (the amounts sold). */
  salesOn(
    msisdns: readonly string[],
    day: string,
    timeZone: string,
  ): Promise<{ count: number; valueMinor: number }>;
  /** One account's local day, from its entries. */
  dayFigures(msisdn: string, day: string, timeZone: string): Promise<DayFigures>;
  /**
   * Commission credited to an account: one sale's (`purchaseKey`), or over local days `from`
   * (included) to `to` (excluded). 0 when none.
   */
  commission(
    msisdn: string,
    of: { purchaseKey: string } | { from: string; to: string; timeZone: string },
  ): Promise<number>;
  /** The float owners (an assistant counts as its outlet) with an entry or a sale that local day. */
  activeOn(day: string, timeZone: string): Promise<string[]>;
}

export const DEFAULT_ENTRY_PAGE = 1000;
