import { newLockToken } from './lock-token';
import { decodeRef, encodeRef, msisdnKeys, sessionKeys, sharedPartKey } from './keys';
import { decodeRecord, encodeRecord, versionPrefix } from './record';
import { RecentRecords } from './recent';
import {
  LANGUAGE_PREF_TTL_S,
  type LockResult,
  type MsisdnState,
  type RecalledRecord,
  type ResumeConditions,
  type SaveIfCurrentResult,
  type SessionRecord,
  type SessionRef,
  type SessionStore,
} from './types';

interface Entry {
  value: string;
  expiresAt: number;
}

/**
 * In-process sessions for the embedded mode and tests: the same keys, semantics and contract
 * tests as the Redis store (records are stored as JSON so nothing is shared by reference).
 * Every method body is synchronous, so each operation is atomic like a Lua script.
 */
export class MemorySessionStore implements SessionStore {
  private readonly entries = new Map<string, Entry>();
  private readonly recent: RecentRecords;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly prefix = 'mem',
    recentRecords?: number,
  ) {
    this.recent = new RecentRecords(recentRecords, now);
  }

  private get(key: string): string | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return null;
    }
    return entry.value;
  }

  private set(key: string, value: string, ttlMs: number): void {
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  async loadAndLock(ref: SessionRef, lockMs: number): Promise<LockResult> {
    const keys = sessionKeys(this.prefix, ref);
    if (this.get(keys.lock) !== null) return { kind: 'busy' };
    const token = newLockToken();
    this.set(keys.lock, token, Math.ceil(lockMs));
    const raw = this.get(keys.record);
    const known = this.recent.get(keys.record);
    if (known && raw?.startsWith(versionPrefix(known.version)))
      return { kind: 'locked', token, record: known.record };
    return { kind: 'locked', token, record: this.recent.read(keys.record, raw) };
  }

  recall(ref: SessionRef): RecalledRecord | null {
    return this.recent.get(sessionKeys(this.prefix, ref).record);
  }

  async saveIfCurrent(
    ref: SessionRef,
    version: string,
    record: SessionRecord,
    ttlS: number,
    lockMs: number,
  ): Promise<SaveIfCurrentResult> {
    const keys = sessionKeys(this.prefix, ref);
    if (this.get(keys.lock) !== null) return { kind: 'busy' };
    const token = newLockToken();
    const raw = this.get(keys.record);
    if (raw?.startsWith(versionPrefix(version))) {
      this.set(keys.record, encodeRecord(record, token), Math.max(1, Math.ceil(ttlS)) * 1000);
      this.recent.remember(keys.record, record, token, ttlS);
      return { kind: 'saved' };
    }
    this.set(keys.lock, token, Math.ceil(lockMs));
    return { kind: 'locked', token, record: this.recent.read(keys.record, raw) };
  }

  async peek(ref: SessionRef): Promise<SessionRecord | null> {
    return decodeRecord(this.get(sessionKeys(this.prefix, ref).record));
  }

  async saveAndUnlock(ref: SessionRef, token: string, record: SessionRecord, ttlS: number): Promise<boolean> {
    const keys = sessionKeys(this.prefix, ref);
    if (this.get(keys.lock) !== token) {
      this.recent.forget(keys.record);
      return false;
    }
    this.set(keys.record, encodeRecord(record, token), Math.max(1, Math.ceil(ttlS)) * 1000);
    this.entries.delete(keys.lock);
    this.recent.remember(keys.record, record, token, ttlS);
    return true;
  }

  async unlock(ref: SessionRef, token: string): Promise<void> {
    const keys = sessionKeys(this.prefix, ref);
    if (this.get(keys.lock) === token) this.entries.delete(keys.lock);
  }

  async startMsisdnSession(msisdn: string, ref: SessionRef, pointerTtlS: number): Promise<MsisdnState> {
    const keys = msisdnKeys(this.prefix, msisdn);
    const language = this.get(keys.language);
    const previous = this.get(keys.resume);
    const encoded = encodeRef(ref);
    this.set(keys.resume, encoded, Math.max(1, Math.ceil(pointerTtlS)) * 1000);
    return { language, previous: previous === encoded ? null : decodeRef(previous) };
  }

  async setLanguage(msisdn: string, language: string): Promise<void> {
    this.set(msisdnKeys(this.prefix, msisdn).language, language, LANGUAGE_PREF_TTL_S * 1000);
  }

  async getLanguage(msisdn: string): Promise<string | null> {
    return this.get(msisdnKeys(this.prefix, msisdn).language);
  }

  async takeResumable(ref: SessionRef, conditions: ResumeConditions): Promise<SessionRecord | null> {
    const keys = sessionKeys(this.prefix, ref);
    // A dialogue this store saw end (a caller dialling again after a purchase): nothing to take.
    if (this.recent.isOver(keys.record)) return null;
    if (this.get(keys.lock) !== null) return null;
    const record = decodeRecord(this.get(keys.record));
    if (!record) return null;
    if (!['active', 'incomplete', 'failed'].includes(record.status)) return null;
    if (record.snapshot === null || !conditions.machineVersions.includes(record.machineVersion)) return null;
    if (record.updatedAt < conditions.minUpdatedAt) return null;
    const tombstone: SessionRecord = {
      ...record,
      snapshot: null,
      page: 1,
      pages: 1,
      optionIds: [],
      status: 'moved',
      updatedAt: this.now(),
      resume: undefined,
    };
    const entry = this.entries.get(keys.record)!;
    // Written without a version, as the Redis script's tombstone: never taken for a remembered record.
    this.entries.set(keys.record, { value: encodeRecord(tombstone), expiresAt: entry.expiresAt });
    this.recent.forget(keys.record);
    return record;
  }

  async putShared(hash: string, json: string, ttlS: number): Promise<void> {
    this.set(sharedPartKey(this.prefix, hash), json, Math.max(1, Math.ceil(ttlS)) * 1000);
  }

  async getShared(hash: string): Promise<string | null> {
    return this.get(sharedPartKey(this.prefix, hash));
  }

  async close(): Promise<void> {
    this.entries.clear();
    this.recent.clear();
  }
}
