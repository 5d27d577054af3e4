/** Identifies one dialogue: the aggregator's session id is only unique per aggregator. */
export interface SessionRef {
  aggregator: string;
  sessionId: string;
}

/**
 * Where a dialogue stands. `active`: waiting for the next hop. `final`: ended by us (END sent).
 * `completed` / `incomplete` / `failed`: the aggregator's end notification arrived.
 * `moved`: continued in a newer session (resume), never resumed again.
 */
export type SessionStatus = 'active' | 'final' | 'completed' | 'incomplete' | 'failed' | 'moved';

/** A dialogue offered for resumption, copied into the new session while its prompt is shown. */
export interface ResumeCandidate {
  fromSessionId: string;
  /** The page of the old dialogue's screen to show again on "continue". */
  page: number;
}

/**
 * Everything the engine keeps between two hops of one dialogue. Final and moved records keep
 * only what replay needs (`snapshot` null, no option ids).
 */
export interface SessionRecord {
  /**
   * Version of the dialogue machine that wrote `snapshot`: the dialogue goes on on that version
   * (a build that does not know it discards the snapshot).
   */
  machineVersion: string;
  /** `actor.getPersistedSnapshot()` as JSON-safe data, or null once final. */
  snapshot: unknown;
  /** E.164 digits of the caller: a hop from another number is refused. */
  msisdn: string;
  serviceCode: string;
  /** Cumulative text of the last processed hop (new input is derived by prefix). */
  lastText: string;
  /** Key of the last processed hop: a repeat is a re-delivery and gets `lastReply`. */
  lastRequestKey: string;
  lastReply: { text: string; end: boolean; choice?: boolean };
  /** 1-based page of the rendered screen and the page count. */
  page: number;
  pages: number;
  /** Ids of the screen's options in order: typed `n` (on any page, numbering is global) → `optionIds[n-1]`. */
  optionIds: string[];
  /** Language tag of the session (`en-BW`). */
  language: string;
  status: SessionStatus;
  /** Processed hops so far (replays and busy answers do not count). */
  hops: number;
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
  /**
   * Hash of the context part `snapshot` leaves out (the catalogue and settings it started with),
   * stored once for every dialogue that shares it; absent: the snapshot is whole.
   */
  shared?: string;
  /** Set while the resume prompt is shown; `snapshot` then holds the old dialogue's snapshot. */
  resume?: ResumeCandidate;
  /** The screen shown asks for a secret (a PIN): the next input is masked before it is stored. */
  secretInput?: boolean;
  /** Ranges of `lastText` (and of every later cumulative text) that held secrets, stored as `#`. */
  secretRanges?: [number, number][];
}

/** A record this process saved or read last for a dialogue, and the version it was stored with. */
export interface RecalledRecord {
  /** Frozen: shared by every hop that reads it. */
  record: SessionRecord;
  version: string;
}

/** Outcome of {@link SessionStore.loadAndLock}. */
export type LockResult =
  | { kind: 'locked'; token: string; record: SessionRecord | null }
  /** Another hop of this session holds the lock. */
  | { kind: 'busy' };

/** Outcome of {@link SessionStore.saveIfCurrent}: saved, or what `loadAndLock` would have answered. */
export type SaveIfCurrentResult = { kind: 'saved' } | LockResult;

/** What the first hop of a session learns about its caller. */
export interface MsisdnState {
  /** Remembered language tag, if any. */
  language: string | null;
  /** The caller's previous session (before this one), if the pointer has not expired. */
  previous: SessionRef | null;
}

/** Conditions under which a previous dialogue may be resumed. */
export interface ResumeConditions {
  /** Only a dialogue touched at or after this epoch-ms instant. */
  minUpdatedAt: number;
  /** Only a snapshot of one of these machine versions (the ones the build can continue). */
  machineVersions: readonly string[];
}

/**
 * Session persistence. The hop hot path is two calls (two Redis round trips): `loadAndLock`
 * then `saveAndUnlock` (or `unlock`). A hop that calls no service, on a dialogue this process
 * remembers (`recall`), is one: `saveIfCurrent`. The first hop of a session adds
 * `startMsisdnSession` (one round trip to the caller's own keys), and `takeResumable` when the
 * caller has a previous session that the store did not itself save as over.
 */
export interface SessionStore {
  /**
   * Take the session lock for `lockMs` and read the record, atomically. When the record is the
   * one `recall` holds, it is not copied again: the recalled (frozen) record is returned.
   */
  loadAndLock(ref: SessionRef, lockMs: number): Promise<LockResult>;
  /** The record of `ref` this process last saved or read while it was active, or null. A guess, never checked. */
  recall(ref: SessionRef): RecalledRecord | null;
  /**
   * A hop computed from `recall`'s record (of `version`), in one step: write `record` with a TTL,
   * atomically, if no hop holds the lock and the stored record is still of `version`. Otherwise
   * nothing is written, and the answer is `loadAndLock`'s: `busy`, or the lock (for `lockMs`)
   * and the record as it is now, for the hop to be done again under the lock.
   */
  saveIfCurrent(
    ref: SessionRef,
    version: string,
    record: SessionRecord,
    ttlS: number,
    lockMs: number,
  ): Promise<SaveIfCurrentResult>;
  /**
   * Write the record with a TTL and release the lock, only if `token` still holds it.
   * False when the lock was lost (expired): nothing was written.
   */
  saveAndUnlock(ref: SessionRef, token: string, record: SessionRecord, ttlS: number): Promise<boolean>;
  /** Release the lock without writing (replay, refusal, failure). No-op if not the holder. */
  unlock(ref: SessionRef, token: string): Promise<void>;
  /** Read the caller's language preference and previous session, and point the latter at `ref`. */
  startMsisdnSession(msisdn: string, ref: SessionRef, pointerTtlS: number): Promise<MsisdnState>;
  /** Remember the caller's language (engine-level: the machine does no I/O). */
  setLanguage(msisdn: string, language: string): Promise<void>;
  /** The caller's remembered language tag, or null (the SMS channel shares it with USSD). */
  getLanguage(msisdn: string): Promise<string | null>;
  /**
   * If the dialogue at `ref` is resumable (active/incomplete/failed, with a snapshot, recent
   * enough, of a machine version in the conditions, not locked) mark it `moved` and return it as
   * it was; else null.
   */
  takeResumable(ref: SessionRef, conditions: ResumeConditions): Promise<SessionRecord | null>;
  /** Store a context part dialogues share (JSON, named by its content hash) for `ttlS` seconds. */
  putShared(hash: string, json: string, ttlS: number): Promise<void>;
  /** A shared context part, or null when it expired or was never stored. */
  getShared(hash: string): Promise<string | null>;
  /** Read a dialogue's record without locking it (status asks); null when there is none. */
  peek(ref: SessionRef): Promise<SessionRecord | null>;
  /** Release connections/timers owned by the store. */
  close(): Promise<void>;
}

/** The caller's language preference lives this long (refreshed on every change). */
export const LANGUAGE_PREF_TTL_S = 365 * 24 * 3600;
