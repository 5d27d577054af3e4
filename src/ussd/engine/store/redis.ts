import path from 'node:path';
import type { Redis } from 'ioredis';
import { ScriptReplyError, ScriptSet } from '../../../redis/scripts';
import { sessionOutcome } from './codes';
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

/** The session scripts, beside this module in `commands/` (`npm run build` copies them into dist/ too). */
export const SESSION_SCRIPTS = new ScriptSet('ussd', 3, path.join(__dirname, 'commands'), [
  'loadAndLock-2',
  'saveAndUnlock-2',
  'saveIfCurrent-2',
  'unlock-1',
  'startMsisdnSession-2',
  'takeResumable-2',
] as const);

/**
 * Sessions in Redis through one Lua script per operation (see `commands/`). The store does not own
 * the connection unless `ownsConnection` is set (then `close()` quits it). It remembers the last
 * record of each live dialogue it saw (`recentRecords` of them; 0 turns that off).
 */
export class RedisSessionStore implements SessionStore {
  private readonly recent: RecentRecords;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ownsConnection = false,
    recentRecords?: number,
  ) {
    SESSION_SCRIPTS.define(redis);
    this.recent = new RecentRecords(recentRecords);
  }

  async loadAndLock(ref: SessionRef, lockMs: number): Promise<LockResult> {
    const keys = sessionKeys(this.prefix, ref);
    const token = newLockToken();
    const known = this.recent.get(keys.record);
    const [code, raw] = (await SESSION_SCRIPTS.run(
      this.redis,
      'loadAndLock-2',
      [keys.record, keys.lock],
      [token, Math.ceil(lockMs), known ? versionPrefix(known.version) : ''],
    )) as [number, string | null | undefined];
    const outcome = sessionOutcome('loadAndLock', code);
    if (outcome === 'busy') return { kind: 'busy' };
    // Checked against the version just sent: the recalled record is still the stored one.
    if (outcome === 'unchanged' && known) return { kind: 'locked', token, record: known.record };
    if (outcome !== 'done') throw new ScriptReplyError('loadAndLock', code);
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
    // Written as this version, or taken as the lock when the record changed: unique either way.
    const token = newLockToken();
    const [code, raw] = (await SESSION_SCRIPTS.run(
      this.redis,
      'saveIfCurrent-2',
      [keys.record, keys.lock],
      [
        versionPrefix(version),
        encodeRecord(record, token),
        Math.max(1, Math.ceil(ttlS)),
        token,
        Math.ceil(lockMs),
      ],
    )) as [number, string | null | undefined];
    const outcome = sessionOutcome('saveIfCurrent', code);
    if (outcome === 'done') {
      this.recent.remember(keys.record, record, token, ttlS);
      return { kind: 'saved' };
    }
    if (outcome === 'busy') return { kind: 'busy' };
    if (outcome !== 'changed') throw new ScriptReplyError('saveIfCurrent', code);
    return { kind: 'locked', token, record: this.recent.read(keys.record, raw) };
  }

  async peek(ref: SessionRef): Promise<SessionRecord | null> {
    return decodeRecord(await this.redis.get(sessionKeys(this.prefix, ref).record));
  }

  async saveAndUnlock(ref: SessionRef, token: string, record: SessionRecord, ttlS: number): Promise<boolean> {
    const keys = sessionKeys(this.prefix, ref);
    const code = await SESSION_SCRIPTS.run(
      this.redis,
      'saveAndUnlock-2',
      [keys.record, keys.lock],
      [token, encodeRecord(record, token), Math.max(1, Math.ceil(ttlS))],
    );
    const saved = sessionOutcome('saveAndUnlock', code) === 'done';
    // The token that held the lock is the saved record's version.
    if (saved) this.recent.remember(keys.record, record, token, ttlS);
    else this.recent.forget(keys.record);
    return saved;
  }

  async unlock(ref: SessionRef, token: string): Promise<void> {
    // Not the holder any more is fine: the lock expired or another hop owns it now.
    sessionOutcome(
      'unlock',
      await SESSION_SCRIPTS.run(this.redis, 'unlock-1', [sessionKeys(this.prefix, ref).lock], [token]),
    );
  }

  async startMsisdnSession(msisdn: string, ref: SessionRef, pointerTtlS: number): Promise<MsisdnState> {
    const keys = msisdnKeys(this.prefix, msisdn);
    const [language, previous] = (await SESSION_SCRIPTS.run(
      this.redis,
      'startMsisdnSession-2',
      [keys.language, keys.resume],
      [encodeRef(ref), Math.max(1, Math.ceil(pointerTtlS))],
    )) as [string | null, string | null];
    return { language: language ?? null, previous: decodeRef(previous ?? null) };
  }

  async setLanguage(msisdn: string, language: string): Promise<void> {
    await this.redis.set(msisdnKeys(this.prefix, msisdn).language, language, 'EX', LANGUAGE_PREF_TTL_S);
  }

  async getLanguage(msisdn: string): Promise<string | null> {
    return this.redis.get(msisdnKeys(this.prefix, msisdn).language);
  }

  async takeResumable(ref: SessionRef, conditions: ResumeConditions): Promise<SessionRecord | null> {
    const keys = sessionKeys(this.prefix, ref);
    // A dialogue this process saw end (a caller dialling again after a purchase): nothing to take.
    if (this.recent.isOver(keys.record)) return null;
    const raw = (await SESSION_SCRIPTS.run(
      this.redis,
      'takeResumable-2',
      [keys.record, keys.lock],
      [conditions.minUpdatedAt, Date.now(), ...conditions.machineVersions],
    )) as string | null;
    if (raw !== null) this.recent.forget(keys.record);
    return decodeRecord(raw);
  }

  async putShared(hash: string, json: string, ttlS: number): Promise<void> {
    await this.redis.set(sharedPartKey(this.prefix, hash), json, 'EX', Math.max(1, Math.ceil(ttlS)));
  }

  async getShared(hash: string): Promise<string | null> {
    return this.redis.get(sharedPartKey(this.prefix, hash));
  }

  async close(): Promise<void> {
    this.recent.clear();
    if (this.ownsConnection) await this.redis.quit();
  }
}
