import type { AttemptOutcome, PinAttempt } from '../lockout';
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

export const DEFAULT_AGENT_LIST_LIMIT = 100;

/**
 * Agent records. Redis in production, memory in the embedded mode; both pass
 * test/agents/store.contract.ts. Lockout counters change only through `recordPinAttempt`,
 * atomically, so wrong PINs arriving at once over USSD and SMS all count.
 */
export interface AgentStore {
  /** Write a new agent; false (nothing written) when its MSISDN is taken. */
  create(record: AgentRecord): Promise<boolean>;
  get(msisdn: string): Promise<AgentRecord | null>;
  /** Oldest first. */
  list(options?: { limit?: number; offset?: number }): Promise<AgentRecord[]>;
  /** Count one PIN attempt whose hash comparison the caller made (see ../lockout.ts). */
  recordPinAttempt(msisdn: string, attempt: PinAttempt): Promise<AttemptOutcome>;
  setPin(msisdn: string, write: PinWrite): Promise<PinWriteResult>;
  /** The record after the change, or null when there is no such agent. */
  setStatus(msisdn: string, write: StatusWrite): Promise<AgentRecord | null>;
}

/** The record a PIN write produces; shared so both stores compute it the same way. */
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
    failedAttempts: 0,
    lockedUntil: null,
    lockoutDay: null,
    lockoutsToday: 0,
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
    failedAttempts: 0,
    lockedUntil: null,
    lockoutDay: null,
    lockoutsToday: 0,
    updatedAt,
  };
}
