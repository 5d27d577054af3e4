import { SETTLED_STATES, type PurchaseRecord, type PurchaseState } from '../types';

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

export interface CreateResult {
  /** False when the idempotency key already named a purchase: `record` is that purchase. */
  created: boolean;
  record: PurchaseRecord;
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

export interface ListOptions {
  limit?: number;
  state?: PurchaseState;
}

/**
 * Durable purchase records. Redis in production, memory in the embedded mode; both pass
 * test/purchases/store.contract.ts.
 */
export interface PurchaseStore {
  /** Write `record` unless its idempotency key is taken; concurrent duplicates yield one record. */
  create(record: PurchaseRecord): Promise<CreateResult>;
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
  /** Newest first; beneficiary or requester. */
  listByMsisdn(msisdn: string, options?: ListOptions): Promise<PurchaseRecord[]>;
  /** Newest first. */
  listByState(state: PurchaseState, options?: PageOptions): Promise<PurchaseRecord[]>;
  /** Settled records not yet handed to the notifier (oldest first). */
  listUnnotified(options?: PageOptions): Promise<PurchaseRecord[]>;
}

export const DEFAULT_LIST_LIMIT = 20;

/** The record a successful transition writes; shared so both stores compute it the same way. */
export function applyTransition(
  current: PurchaseRecord,
  to: PurchaseState,
  patch: PurchasePatch | undefined,
  now: Date,
): PurchaseRecord {
  return { ...current, ...patch, state: to, version: current.version + 1, updatedAt: now.toISOString() };
}

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
