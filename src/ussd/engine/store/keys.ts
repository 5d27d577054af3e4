import { keyPrefix } from '../../../redis/keys';
import type { SessionRef } from './types';

/**
 * Every Redis key of the session engine, built here and nowhere else, all under `ussd:`.
 *
 * All keys of one dialogue share the hash tag `{<aggregator>:<sessionId>}` and all keys of one
 * caller share `{<msisdn>}`, so each multi-key script touches one Redis Cluster slot. A shared
 * context part is tagged by its own hash (single-key commands only).
 * Adapters refuse session ids with `{`, `}` or spaces, so a tag cannot be broken out of.
 */

/** Keys of one dialogue: the record (JSON) and its lock (token). */
export function sessionKeys(prefix: string, ref: SessionRef): { record: string; lock: string } {
  const base = `${keyPrefix(prefix)}ussd:{${ref.aggregator}:${ref.sessionId}}`;
  return { record: `${base}:rec`, lock: `${base}:lock` };
}

/**
 * Keys of one caller: the language preference (plain string value = language tag) and the
 * pointer to the caller's latest USSD session.
 */
export function msisdnKeys(prefix: string, msisdn: string): { language: string; resume: string } {
  const base = `${keyPrefix(prefix)}ussd:{${msisdn}}`;
  return { language: `${base}:lang`, resume: `${base}:resume` };
}

/** A context part dialogues share by content (see src/ussd/engine/shared-context.ts), tagged by its hash. */
export function sharedPartKey(prefix: string, hash: string): string {
  return `${keyPrefix(prefix)}ussd:shared:{${hash}}`;
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
