import type { ScryptParams } from '../../src/agents';

/** Cheaper scrypt for tests that hash many PINs; the defaults are tested on their own. */
export const FAST_SCRYPT: ScryptParams = { N: 1024, r: 8, p: 1, keyLen: 32 };

/** A clock that moves only when told. */
export function frozenClock(start = '2026-11-23T06:00:00.000Z') {
  let now = new Date(start);
  return {
    clock: () => new Date(now),
    set: (iso: string) => {
      now = new Date(iso);
    },
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
    now: () => new Date(now),
  };
}

export const MINUTE = 60_000;

/** Limits big enough not to matter in a test about something else. */
export const WIDE_LIMITS = {
  maxSaleMinor: 10_000_000,
  maxDayValueMinor: 1_000_000_000,
  maxDayCount: 100_000,
};
