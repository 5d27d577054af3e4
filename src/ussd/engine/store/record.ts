import type { SessionRecord } from './types';

/**
 * Stored JSON of a record, its version first: `{"v":"<version>",…}`. The version is the lock
 * token of the save that wrote it (unique across processes), so a script can tell whether the
 * stored record is the one a process remembers by comparing a prefix, without decoding it.
 * Records written without a version (by `takeResumable`'s tombstone, or an older build) never
 * match a prefix: they are always read in full.
 */
export function encodeRecord(record: SessionRecord, version?: string): string {
  const json = JSON.stringify(record);
  return version === undefined ? json : `${versionPrefix(version)}${json.slice(1)}`;
}

/** The start of a record's JSON written with `version` (lock tokens need no JSON escaping). */
export function versionPrefix(version: string): string {
  return `{"v":"${version}",`;
}

/**
 * Stored JSON → record, or null when it is not one (corrupt or from an unknown layout): the
 * engine then treats the dialogue as new rather than crashing.
 */
export function decodeRecord(json: string | null | undefined): SessionRecord | null {
  return decodeVersioned(json)?.record ?? null;
}

/** Stored JSON → record and the version it was written with (null when written without). */
export function decodeVersioned(
  json: string | null | undefined,
): { record: SessionRecord; version: string | null } | null {
  if (!json) return null;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  // The version is the stored form's, never part of the record (a copy saved again gets its own).
  const { v, ...r } = value as Partial<SessionRecord> & { v?: unknown };
  if (
    typeof r.msisdn !== 'string' ||
    typeof r.machineVersion !== 'string' ||
    typeof r.lastText !== 'string' ||
    typeof r.lastRequestKey !== 'string' ||
    typeof r.lastReply !== 'object' ||
    r.lastReply === null ||
    typeof r.status !== 'string'
  )
    return null;
  // cjson (takeResumable tombstones) writes an empty array as `{}` and drops nulls.
  r.snapshot ??= null;
  if (!Array.isArray(r.optionIds)) r.optionIds = [];
  if (typeof r.page !== 'number') r.page = 1;
  if (typeof r.pages !== 'number') r.pages = 1;
  return { record: r as SessionRecord, version: typeof v === 'string' ? v : null };
}
