import type { SessionRef } from './types';

/**
 * Every Redis key of the session engine, built here and nowhere else.
 *
 * All keys of one dialogue share the hash tag `{<aggregator>:<sessionId>}` and all keys of one
 * caller share `{<msisdn>}`, so each multi-key script touches one Redis Cluster slot.
 * Adapters refuse session ids with `{`, `}` or spaces, so a tag cannot be broken out of.
 */

/** Keys of one dialogue: the record (JSON) and its lock (token). */
export function sessionKeys(prefix: string, ref: SessionRef): { record: string; lock: string } {
  const tag = `{${ref.aggregator}:${ref.sessionId}}`;
  return { record: `${prefix}:ussd:${tag}:rec`, lock: `${prefix}:ussd:${tag}:lock` };
}

/**
 * Keys of one caller: the language preference (`pref:`, shared with the SMS channel, plain
 * string value = language tag) and the pointer to the caller's latest USSD session.
 */
export function msisdnKeys(prefix: string, msisdn: string): { language: string; resume: string } {
  const tag = `{${msisdn}}`;
  return { language: `${prefix}:pref:${tag}:lang`, resume: `${prefix}:ussd:resume:${tag}` };
}

/** The resume pointer's value. */
export function encodeRef(ref: SessionRef): string {
  return JSON.stringify([ref.aggregator, ref.sessionId]);
}

export function decodeRef(value: string | null): SessionRef | null {
  if (!value) return null;
  try {
    const parsed: unknown = JSON.parse(value);
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((p) => typeof p === 'string'))
      return { aggregator: parsed[0], sessionId: parsed[1] };
  } catch {
    // fall through: a corrupt pointer only loses a resume offer
  }
  return null;
}
