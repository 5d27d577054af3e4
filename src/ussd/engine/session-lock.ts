import { componentLogger, maskMsisdn, withLogContext } from '../../observability/logger';
import type { UssdSessionEnd } from './hop';
import type { SessionRecord, SessionRef, SessionStore } from './store/types';

const log = componentLogger('ussd-engine');

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Takes a session's lock, waiting (5 → 50 ms, until `waitUntil`) while another hop of the
 * session holds it; null when it stayed busy. One hop at a time per session, across instances.
 */
export async function acquireSession(
  store: SessionStore,
  ref: SessionRef,
  lockMs: number,
  waitUntil: number,
): Promise<{ token: string; record: SessionRecord | null } | null> {
  for (let pause = 5; ; pause = Math.min(pause * 2, 50)) {
    const lock = await store.loadAndLock(ref, lockMs);
    if (lock.kind === 'locked') return lock;
    if (Date.now() + pause > waitUntil) return null;
    await sleep(pause);
  }
}

/**
 * An aggregator's end-of-session notification, under the session's lock: the dialogue ends,
 * and stays resumable (with its snapshot) when the caller dropped part-way.
 */
export async function endDialogue(
  store: SessionStore,
  end: UssdSessionEnd,
  limits: { lockMs: number; waitMs: number; resumeWindowS: number; activeTtlS: number; finalTtlS: number },
): Promise<'ended' | 'ignored'> {
  const ref: SessionRef = { aggregator: end.aggregator, sessionId: end.sessionId };
  return withLogContext({ requestId: `${end.aggregator}-${end.sessionId}-end` }, async () => {
    const held = await acquireSession(store, ref, limits.lockMs, Date.now() + limits.waitMs);
    if (!held) {
      log.warn('end notification: session stayed busy, ignored');
      return 'ignored';
    }
    let saved = false;
    try {
      const record = held.record;
      if (!record || (end.msisdn !== null && record.msisdn !== end.msisdn) || record.status !== 'active')
        return 'ignored';
      const keep = end.status !== 'completed' && limits.resumeWindowS > 0 && record.snapshot !== null;
      const next: SessionRecord = keep
        ? { ...record, status: end.status }
        : { ...record, status: end.status, snapshot: null, optionIds: [], resume: undefined };
      saved = await store.saveAndUnlock(ref, held.token, next, keep ? limits.activeTtlS : limits.finalTtlS);
      log.info('session ended', { status: end.status, resumable: keep, msisdn: maskMsisdn(record.msisdn) });
      return saved ? 'ended' : 'ignored';
    } finally {
      if (!saved) await store.unlock(ref, held.token).catch(() => undefined);
    }
  });
}
