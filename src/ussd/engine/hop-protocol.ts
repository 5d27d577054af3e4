import { acquireSession } from './session-lock';
import type { SessionRecord, SessionRef, SessionStore } from './store/types';

/**
 * The hop protocol: one hop of a dialogue at a time, across instances, in as few round trips as
 * it can. Used by the hop engine (engine.ts) and by the benchmark's floor (bench/floor-engine.ts).
 *
 * 1. A dialogue this process remembers (`store.recall`): the hop says, from the remembered record
 *    alone and without any I/O of consequence, whether it is a pure step — the record to save
 *    and the answer — or needs the lock (a service to call, a replay, a refusal, a resume...).
 *    A pure step is saved by one `saveIfCurrent`: written only if no hop holds the lock and the
 *    stored record is still the remembered one, which is the lock, load, save and unlock of the
 *    hop as one atomic step. Nothing was called, so a refused save loses nothing.
 * 2. Otherwise the hop runs under the lock: taken by that same script when the record had
 *    changed (another instance moved the dialogue), else by `loadAndLock`, polling while another
 *    hop holds it. The hop gets the record as stored: when it is the remembered one (the store
 *    answers "unchanged" with the very object), what was decided on it holds and is not decided
 *    again. It saves with `saveAndUnlock`; the lock is released if it saves nothing.
 */

/** A hop decided without the lock: the record it writes and its answer. */
export interface PureHop<A> {
  record: SessionRecord;
  ttlS: number;
  answer: A;
}

/** Writes the record and releases the lock; false when the lock was lost (nothing written). */
export type SaveAndUnlock = (record: SessionRecord, ttlS: number) => Promise<boolean>;

/** One hop, as the protocol runs it. */
export interface HopSteps<A> {
  /**
   * The hop on the record this process remembers: a pure step to save in one round trip, or null
   * when it needs the lock. Decided from the record and the hop; no service is called.
   */
  pure(remembered: SessionRecord): PureHop<A> | null | Promise<PureHop<A> | null>;
  /** The hop under the session's lock, on the record as stored (null: the session's first hop). */
  locked(record: SessionRecord | null, save: SaveAndUnlock): Promise<A>;
  /** The answer when another hop of the session kept the lock until `waitUntil`. */
  busy(): A;
}

export interface HopLimits {
  /** How long the lock is held at most (it outlives the hop's budget). */
  lockMs: number;
  /** Until when to wait for a lock another hop holds (epoch ms). */
  waitUntil: number;
}

/** Runs one hop of the dialogue at `ref` by the protocol above. */
export async function playHop<A>(
  store: SessionStore,
  ref: SessionRef,
  limits: HopLimits,
  steps: HopSteps<A>,
): Promise<A> {
  const recalled = store.recall(ref);
  let held: { token: string; record: SessionRecord | null } | null = null;
  if (recalled) {
    const pure = await steps.pure(recalled.record);
    if (pure) {
      const saved = await store.saveIfCurrent(ref, recalled.version, pure.record, pure.ttlS, limits.lockMs);
      if (saved.kind === 'saved') return pure.answer;
      if (saved.kind === 'locked') held = saved;
    }
  }
  held ??= await acquireSession(store, ref, limits.lockMs, limits.waitUntil);
  if (!held) return steps.busy();
  const { token } = held;
  let saved = false;
  try {
    return await steps.locked(held.record, async (record, ttlS) => {
      saved = await store.saveAndUnlock(ref, token, record, ttlS);
      return saved;
    });
  } finally {
    if (!saved) await store.unlock(ref, token).catch(() => undefined);
  }
}
