import type { DailyLimits } from './rules';

/** What a blocklist entry blocks: a phone number (E.164 digits) or a subscriber identifier. */
export type BlockKind = 'msisdn' | 'identifier';

/** A number's spending on one local day. */
export interface DayUsage {
  valueMinor: number;
  count: number;
}

export type DailyReservation =
  | { status: 'counted'; usage: DayUsage }
  | { status: 'over'; limit: 'value' | 'count'; usage: DayUsage }
  | { status: 'blocked'; usage: DayUsage };

/** Who a sale's blocklist check names: numbers (E.164 digits) and, when known, the identifier. */
export interface BlockCheck {
  msisdns: readonly string[];
  identifier?: string;
}

/** Where the daily counts and the blocklists live: the system of record (`SqlSpendStore`, sql.ts). */
export interface SpendStore {
  usage(msisdn: string, day: string): Promise<DayUsage>;
  /** Whether any of `who` is blocked, and `msisdn`'s usage on `day`: one read (a quote's check). */
  standing(who: BlockCheck, msisdn: string, day: string): Promise<{ blocked: boolean; usage: DayUsage }>;
  /**
   * Count a sale once per purchase key, atomically against the limits; with `blocked`, refused
   * (`status: 'blocked'`) when any of it is on the blocklist, in the same statement.
   */
  reserve(
    msisdn: string,
    day: string,
    purchaseKey: string,
    amountMinor: number,
    limits: DailyLimits,
    blocked?: BlockCheck,
  ): Promise<DailyReservation>;
  /**
   * Give back what `reserve` counted under `purchaseKey` on `day` (a purchase that failed
   * uncharged); false when nothing is counted under it. The key stays spent: never counted again.
   */
  release(msisdn: string, day: string, purchaseKey: string): Promise<boolean>;
  block(kind: BlockKind, value: string): Promise<boolean>;
  unblock(kind: BlockKind, value: string): Promise<boolean>;
  isBlocked(kind: BlockKind, value: string): Promise<boolean>;
  /** Whether any of `who` is on the blocklist: one read. */
  anyBlocked(who: BlockCheck): Promise<boolean>;
  blocked(kind: BlockKind): Promise<string[]>;
}
