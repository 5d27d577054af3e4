import { NO_LOCKOUTS, type AttemptOutcome, type PinAttempt } from '../lockout';
import type { AgentRecord, DisabledReason, StoredPin } from '../types';

/** A new PIN hash. `expectedVersion` null: an operator reset (any PIN is replaced). */
export interface PinWrite {
  pin: Omit<StoredPin, 'version'>;
  mustChangePin: boolean;
  expectedVersion: number | null;
  /**
   * An operator reset: also clears wrong attempts, lockouts and the day's count, and lifts a
   * lockout or a disable that three lockouts caused (never one an operator or `BLOCK` caused).
   */
  reset: boolean;
  now: Date;
}

/** `active` clears every lockout counter too (an operator enabling the agent). */
export interface StatusWrite {
  status: 'active' | 'disabled';
  reason: DisabledReason | null;
  now: Date;
}

export type PinWriteResult = 'written' | 'not_found' | 'stale';

/**
 * What making an agent a dealer (or not) came to: `assistant` (an assistant cannot be one) and
 * `has_retailers` (not turned off while any agent names it its dealer) leave it unchanged.
 */
export type DealerWrite =
  | { status: 'written' | 'unchanged' | 'assistant'; record: AgentRecord }
  | { status: 'has_retailers'; record: AgentRecord; retailers: number };

export const DEFAULT_AGENT_LIST_LIMIT = 100;

/**
 * Agent records, in the system of record (PostgreSQL, or PGlite embedded); the SQL store passes
 * test/agents/store.contract.ts on both. Lockout counters change only through `recordPinAttempt`,
 * atomically, so wrong PINs arriving at once over USSD and SMS all count.
 */
export interface AgentStore {
  /**
   * Write a new agent; false (nothing written) when its MSISDN is taken. A retailer
   * (`dealerMsisdn`) marks its dealer a dealer in the same transaction.
   */
  create(record: AgentRecord): Promise<boolean>;
  get(msisdn: string): Promise<AgentRecord | null>;
  /** Oldest first. */
  list(options?: { limit?: number; offset?: number }): Promise<AgentRecord[]>;
  /** Count one PIN attempt whose hash comparison the caller made (see ../lockout.ts). */
  recordPinAttempt(msisdn: string, attempt: PinAttempt): Promise<AttemptOutcome>;
  setPin(msisdn: string, write: PinWrite): Promise<PinWriteResult>;
  /**
   * The record after the change, or null when there is no such agent. `allowed` (run on the row
   * under its lock): false leaves it unchanged and answers `refused` with the record as it is.
   */
  setStatus(msisdn: string, write: StatusWrite): Promise<AgentRecord | null>;
  setStatusIf(
    msisdn: string,
    write: StatusWrite,
    allowed: (current: AgentRecord) => boolean,
  ): Promise<{ status: 'written' | 'refused'; record: AgentRecord } | null>;
  /** Make an agent a dealer or not, on its row under its lock; null: no such agent. */
  setDealer(msisdn: string, dealer: boolean, now: Date): Promise<DealerWrite | null>;
  /** A dealer's retailers or an outlet's assistants, oldest first. */
  linked(link: 'dealer' | 'outlet', msisdn: string): Promise<AgentRecord[]>;
}

/** The record a PIN write produces: a pure rule the store applies under the row's lock. */
export function applyPinWrite(current: AgentRecord, write: PinWrite): AgentRecord {
  const next: AgentRecord = {
    ...current,
    pin: { ...write.pin, version: current.pin.version + 1 },
    mustChangePin: write.mustChangePin,
    updatedAt: write.now.toISOString(),
  };
  if (!write.reset) return next;
  const lifted = current.status === 'locked' || current.disabledReason === 'lockouts';
  return {
    ...next,
    ...NO_LOCKOUTS,
    ...(lifted && { status: 'active', disabledReason: null }),
  };
}

/** The record a status write produces. */
export function applyStatusWrite(current: AgentRecord, write: StatusWrite): AgentRecord {
  const updatedAt = write.now.toISOString();
  if (write.status === 'disabled')
    return {
      ...current,
      status: 'disabled',
      disabledReason: write.reason ?? 'operator',
      lockedUntil: null,
      updatedAt,
    };
  return {
    ...current,
    status: 'active',
    disabledReason: null,
    ...NO_LOCKOUTS,
    updatedAt,
  };
}
