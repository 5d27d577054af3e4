import { applyPinAttempt, type AttemptOutcome, type PinAttempt } from '../lockout';
import type { AgentRecord } from '../types';
import {
  applyPinWrite,
  applyStatusWrite,
  DEFAULT_AGENT_LIST_LIMIT,
  type AgentStore,
  type PinWrite,
  type PinWriteResult,
  type StatusWrite,
} from './store';

const copy = (record: AgentRecord): AgentRecord => structuredClone(record);

/** In-process agent store for the embedded mode: same semantics as the Redis store. */
export class MemoryAgentStore implements AgentStore {
  private readonly records = new Map<string, AgentRecord>();

  async create(record: AgentRecord): Promise<boolean> {
    if (this.records.has(record.msisdn)) return false;
    this.records.set(record.msisdn, copy(record));
    return true;
  }

  async get(msisdn: string): Promise<AgentRecord | null> {
    const record = this.records.get(msisdn);
    return record ? copy(record) : null;
  }

  async list(options: { limit?: number; offset?: number } = {}): Promise<AgentRecord[]> {
    const offset = options.offset ?? 0;
    return [...this.records.values()]
      .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.msisdn < b.msisdn ? -1 : 1))
      .slice(offset, offset + (options.limit ?? DEFAULT_AGENT_LIST_LIMIT))
      .map(copy);
  }

  async recordPinAttempt(msisdn: string, attempt: PinAttempt): Promise<AttemptOutcome> {
    const current = this.records.get(msisdn);
    if (!current) return { kind: 'not_found' };
    const { outcome, record } = applyPinAttempt(current, attempt);
    this.records.set(msisdn, record);
    return outcome;
  }

  async setPin(msisdn: string, write: PinWrite): Promise<PinWriteResult> {
    const current = this.records.get(msisdn);
    if (!current) return 'not_found';
    if (write.expectedVersion !== null && write.expectedVersion !== current.pin.version) return 'stale';
    this.records.set(msisdn, applyPinWrite(current, write));
    return 'written';
  }

  async setStatus(msisdn: string, write: StatusWrite): Promise<AgentRecord | null> {
    const current = this.records.get(msisdn);
    if (!current) return null;
    const next = applyStatusWrite(current, write);
    this.records.set(msisdn, next);
    return copy(next);
  }
}
