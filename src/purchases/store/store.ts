import type { Queryable } from '../../records/database';
import {
  RETAINED_STATES,
  SETTLED_STATES,
  type AlongsideWrite,
  type PurchaseRecord,
  type PurchaseState,
} from '../types';

/** The settled states, listed once in ../types; re-exported for the store's callers. */
export { SETTLED_STATES };

/** A settled record whose outcome has not been handed to the notifier yet. */
export function awaitsNotification(record: PurchaseRecord): boolean {
  return SETTLED_STATES.includes(record.state) && record.notifiedAt === null;
}

/** Fields a transition may change; identity, intent and timestamps of creation are fixed. */
export type PurchasePatch = Partial<
  Omit<
    PurchaseRecord,
    'id' | 'idempotencyKey' | 'externalReference' | 'intent' | 'state' | 'version' | 'createdAt'
  >
>;

/**
 * What a new purchase counts against its payer's day in the statement that writes it (built by
 * `Spend.claim`): the purchase and its reservation commit together, or neither is written.
 */
export interface SpendClaim {
  msisdn: string;
  /** The local day (YYYY-MM-DD) counted against. */
  day: string;
  amountMinor: number;
  maxValueMinor: number;
  maxCount: number;
  /** Refused when any of these numbers or the identifier is on the blocklist. */
  blockedMsisdns: readonly string[];
  identifier: string | null;
}

/** The spending rules refused a {@link SpendClaim}: no purchase was written, nothing counted. */
export class SpendClaimRefusedError extends Error {
  constructor(readonly refusal: 'blocked' | 'value' | 'count') {
    super(`purchase refused by the spending rules: ${refusal}`);
    this.name = 'SpendClaimRefusedError';
  }
}

export interface CreateResult {
  /** False when the idempotency key already named a purchase: `record` is that purchase. */
  created: boolean;
  record: PurchaseRecord;
}

/**
 * The transaction of `withRecord`: the record's transitions, and `on` for the rows of other
 * stores that must commit with them (an outcome's SMS).
 */
export interface RecordTransaction extends Pick<PurchaseStore, 'transition'> {
  readonly on: Queryable;
  /**
   * `run` once this transaction has committed (a transition's log line); dropped when it rolls
   * back, so a body that a group commit runs again alone does it once, for what was written.
   */
  afterCommit(run: () => void): void;
}

/** Why a compare-and-set did not write: the caller re-reads `current` and decides again. */
export interface TransitionConflict {
  reason: 'not_found' | 'state' | 'version';
  current: PurchaseRecord | null;
}

export type TransitionResult =
  { ok: true; record: PurchaseRecord } | { ok: false; conflict: TransitionConflict };

/** Where a page ends: lists are ordered by creation time, then id. */
export type PageCursor = Pick<PurchaseRecord, 'createdAt' | 'id'>;

export interface PageOptions {
  limit?: number;
  /**
   * Start after this record (the last of the previous page). Unlike an offset, a cursor is not
   * thrown off by records leaving the list meanwhile, as the ones a sweep resumes do.
   */
  after?: PageCursor;
}

/**
 * Every record of a list, `pageSize` at a time: however many there are, a sweep reaches them
 * all, not only the newest — also while the ones it resumed leave the list.
 */
export async function* everyRecord(
  list: (page: PageOptions) => Promise<PurchaseRecord[]>,
  pageSize: number,
): AsyncGenerator<PurchaseRecord> {
  for (let after: PurchaseRecord | undefined; ;) {
    const page = await list({ limit: pageSize, after });
    if (page.length === 0) return;
    yield* page;
    after = page[page.length - 1];
  }
}

export interface ListOptions {
  limit?: number;
  state?: PurchaseState;
}

/** How long records holding tokens and numbers are kept once resolved (`PURCHASE_RETENTION_DAYS`). */
export interface RetentionOptions {
  /** From settling (or an operator's resolution) to purge; default 90 days. */
  retentionMs?: number;
}

export const DEFAULT_RETENTION_MS = 90 * 24 * 3600_000;

/**
 * When a record may be purged (ms since the epoch), or null while it must be kept: only records
 * in RETAINED_STATES expire, counted from when they settled (or were resolved), and never before
 * their late-success re-checks end.
 */
export function expiresAt(record: PurchaseRecord, retentionMs: number): number | null {
  // An outcome not yet handed to the notifier is kept until it is (the sweep hands it over).
  if (!RETAINED_STATES.includes(record.state) || awaitsNotification(record)) return null;
  // The later of settling and resolving: a success found after a resolution starts it again.
  const from = Math.max(
    Date.parse(record.settledAt ?? record.updatedAt),
    record.resolution ? Date.parse(record.resolution.at) : -Infinity,
  );
  const recheck = record.recheckUntil ? Date.parse(record.recheckUntil) : -Infinity;
  return Math.max(from + retentionMs, recheck);
}

/** The references a record is found by: the gateway's, and the provider's once known. */
export function referencesOf(record: PurchaseRecord): string[] {
  const provider = record.result?.reference;
  return provider && provider !== record.externalReference
    ? [record.externalReference, provider]
    : [record.externalReference];
}

/**
 * Durable purchase records: the system of record (`SqlPurchaseStore`, PostgreSQL or the embedded
 * PGlite), held to test/purchases/store.contract.ts.
 */
export interface PurchaseStore {
  /**
   * Write `record` unless its idempotency key is taken; concurrent duplicates yield one record.
   * With `spend`, a new record is written only with its day's reservation, in one commit (a taken
   * key counts nothing); throws {@link SpendClaimRefusedError} when the rules refuse it.
   * With `alongside`, a new record and what it writes commit in one transaction, or neither does
   * (sent with the record's own statement: see {@link AlongsideWrite}).
   */
  create(record: PurchaseRecord, spend?: SpendClaim, alongside?: AlongsideWrite): Promise<CreateResult>;
  get(id: string): Promise<PurchaseRecord | null>;
  getByIdempotencyKey(key: string): Promise<PurchaseRecord | null>;
  /**
   * Compare-and-set: writes `to` + `patch` (version + 1, updatedAt now) only if the record's
   * state is in `from` and its version is `expectedVersion`.
   */
  transition(
    id: string,
    from: readonly PurchaseState[],
    to: PurchaseState,
    expectedVersion: number,
    patch?: PurchasePatch,
  ): Promise<TransitionResult>;
  /**
   * Reads a record and runs `step` on it in one transaction, the row locked (null: no such
   * record): a transition `step` writes through `tx` commits with the read, as one commit. `step`
   * only decides and writes; what it calls for next (queues, calls) runs after it returns.
   */
  withRecord<T>(
    id: string,
    step: (record: PurchaseRecord | null, tx: RecordTransaction) => Promise<T>,
  ): Promise<T>;
  /** Newest first; beneficiary or requester. */
  listByMsisdn(msisdn: string, options?: ListOptions): Promise<PurchaseRecord[]>;
  /** Newest first. */
  listByState(state: PurchaseState, options?: PageOptions): Promise<PurchaseRecord[]>;
  /** Settled records not yet handed to the notifier (oldest first). */
  listUnnotified(options?: PageOptions): Promise<PurchaseRecord[]>;
  /** Settled records whose verdict is still re-checked (`recheckUntil` ahead), oldest first. */
  listRechecking(options?: PageOptions): Promise<PurchaseRecord[]>;
  /**
   * Note the re-check round due next and when, on a record still re-checked: not a transition
   * (the state and version stay); the sweep reads it to resume the chain where it stands.
   */
  noteRecheck(id: string, round: number, at: string): Promise<void>;
  /**
   * Note a success the record could not take (`lateSuccess`): not a transition; from its commit on
   * the records refuse a refund of the purchase's payment. False when the record is gone.
   */
  noteLateSuccess(id: string, late: NonNullable<PurchaseRecord['lateSuccess']>): Promise<boolean>;
  /** Newest first; by subscriber identifier exactly as bought (meter, account or phone number). */
  listByIdentifier(identifier: string, options?: ListOptions): Promise<PurchaseRecord[]>;
  /** Newest first; by the gateway's external reference or the provider's reference. */
  listByReference(reference: string, options?: ListOptions): Promise<PurchaseRecord[]>;
  /** How many records are in each state now. */
  countByState(): Promise<Record<PurchaseState, number>>;
  /**
   * Delete records past their retention (see `expiresAt`) with every index entry naming them;
   * at most `limit` per call. Returns how many were deleted.
   */
  purgeExpired(options?: { limit?: number }): Promise<number>;
}

export const DEFAULT_LIST_LIMIT = 20;

/** The conflict a transition from `current` would meet, or null when it may be written. */
export function checkTransition(
  current: PurchaseRecord | null,
  from: readonly PurchaseState[],
  expectedVersion: number,
): TransitionConflict | null {
  if (current === null) return { reason: 'not_found', current: null };
  if (!from.includes(current.state)) return { reason: 'state', current };
  if (current.version !== expectedVersion) return { reason: 'version', current };
  return null;
}
