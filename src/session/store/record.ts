import type { SessionRecord } from './types';

/** Record → stored JSON. */
export function encodeRecord(record: SessionRecord): string {
  return JSON.stringify(record);
}

/**
 * Stored JSON → record, or null when it is not one (corrupt or from an unknown layout): the
 * engine then treats the dialogue as new rather than crashing.
 */
export function decodeRecord(json: string | null | undefined): SessionRecord | null {
  if (!json) return null;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const r = value as Partial<SessionRecord>;
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
  return {
    ...(r as SessionRecord),
    snapshot: r.snapshot ?? null,
    optionIds: Array.isArray(r.optionIds) ? r.optionIds : [],
    page: typeof r.page === 'number' ? r.page : 1,
    pages: typeof r.pages === 'number' ? r.pages : 1,
  };
}
