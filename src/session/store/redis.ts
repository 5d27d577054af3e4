import fs from 'node:fs';
import path from 'node:path';
import { newLockToken } from './lock-token';
import type { Redis } from 'ioredis';
import { decodeRef, encodeRef, msisdnKeys, sessionKeys } from './keys';
import { decodeRecord, encodeRecord } from './record';
import {
  LANGUAGE_PREF_TTL_S,
  type LockResult,
  type MsisdnState,
  type ResumeConditions,
  type SessionRecord,
  type SessionRef,
  type SessionStore,
} from './types';

/** Script file name → command name; the `_v1` suffix changes when a script's contract does. */
const SCRIPTS = {
  'loadAndLock-2': 'ussdLoadAndLock_v1',
  'saveAndUnlock-2': 'ussdSaveAndUnlock_v1',
  'unlock-1': 'ussdUnlock_v1',
  'startMsisdnSession-2': 'ussdStartMsisdnSession_v1',
  'takeResumable-2': 'ussdTakeResumable_v1',
} as const;

type ScriptFn = (...args: (string | number)[]) => Promise<unknown>;
type WithScripts = Redis & Record<(typeof SCRIPTS)[keyof typeof SCRIPTS], ScriptFn>;

/** The Lua files live beside this module in `lua/` (`npm run build` copies them into dist/ too). */
const LUA_DIR = path.join(__dirname, 'lua');

function defineScripts(redis: Redis): WithScripts {
  for (const [file, command] of Object.entries(SCRIPTS)) {
    if (typeof (redis as unknown as Record<string, unknown>)[command] === 'function') continue;
    const numberOfKeys = Number(file.slice(file.lastIndexOf('-') + 1));
    redis.defineCommand(command, {
      numberOfKeys,
      lua: fs.readFileSync(path.join(LUA_DIR, `${file}.lua`), 'utf8'),
    });
  }
  return redis as WithScripts;
}

/**
 * Sessions in Redis through one Lua script per operation (see `lua/`). The store does not own
 * the connection unless `ownsConnection` is set (then `close()` quits it).
 */
export class RedisSessionStore implements SessionStore {
  private readonly redis: WithScripts;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly ownsConnection = false,
  ) {
    this.redis = defineScripts(redis);
  }

  async loadAndLock(ref: SessionRef, lockMs: number): Promise<LockResult> {
    const keys = sessionKeys(this.prefix, ref);
    const token = newLockToken();
    const result = (await this.redis.ussdLoadAndLock_v1(
      keys.record,
      keys.lock,
      token,
      Math.ceil(lockMs),
    )) as [number, string | null | undefined];
    if (result[0] !== 1) return { kind: 'busy' };
    return { kind: 'locked', token, record: decodeRecord(result[1]) };
  }

  async saveAndUnlock(ref: SessionRef, token: string, record: SessionRecord, ttlS: number): Promise<boolean> {
    const keys = sessionKeys(this.prefix, ref);
    const code = await this.redis.ussdSaveAndUnlock_v1(
      keys.record,
      keys.lock,
      token,
      encodeRecord(record),
      Math.max(1, Math.ceil(ttlS)),
    );
    return code === 1;
  }

  async unlock(ref: SessionRef, token: string): Promise<void> {
    await this.redis.ussdUnlock_v1(sessionKeys(this.prefix, ref).lock, token);
  }

  async startMsisdnSession(msisdn: string, ref: SessionRef, pointerTtlS: number): Promise<MsisdnState> {
    const keys = msisdnKeys(this.prefix, msisdn);
    const [language, previous] = (await this.redis.ussdStartMsisdnSession_v1(
      keys.language,
      keys.resume,
      encodeRef(ref),
      Math.max(1, Math.ceil(pointerTtlS)),
    )) as [string | null, string | null];
    return { language: language ?? null, previous: decodeRef(previous ?? null) };
  }

  async setLanguage(msisdn: string, language: string): Promise<void> {
    await this.redis.set(msisdnKeys(this.prefix, msisdn).language, language, 'EX', LANGUAGE_PREF_TTL_S);
  }

  async takeResumable(ref: SessionRef, conditions: ResumeConditions): Promise<SessionRecord | null> {
    const keys = sessionKeys(this.prefix, ref);
    const raw = (await this.redis.ussdTakeResumable_v1(
      keys.record,
      keys.lock,
      conditions.minUpdatedAt,
      conditions.machineVersion,
      Date.now(),
    )) as string | null;
    return decodeRecord(raw);
  }

  async close(): Promise<void> {
    if (this.ownsConnection) await this.redis.quit();
  }
}
