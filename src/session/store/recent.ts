import { deepFreeze } from '../deep-freeze';
import { decodeVersioned } from './record';
import type { RecalledRecord, SessionRecord } from './types';

/** Live dialogues a store remembers by default (a few MB: a record decodes to a few KB). */
export const RECENT_RECORDS = 4096;

/**
 * The last record a process saved or read for each of its live dialogues, with the version it
 * was stored with. A hop of the same dialogue then needs no copy from the store when the stored
 * version still matches (`loadAndLock` answers "unchanged"), and a hop that calls no service
 * saves in one round trip (`saveIfCurrent`). It is only ever a guess: the store's version check
 * decides. Records are frozen: many hops read one object, none may change it.
 */
export class RecentRecords {
  private readonly entries = new Map<string, RecalledRecord>();

  constructor(private readonly capacity = RECENT_RECORDS) {}

  get(key: string): RecalledRecord | null {
    return this.entries.get(key) ?? null;
  }

  /** Remembers a record just read or written; a finished dialogue is forgotten (only replay reads it). */
  remember(key: string, record: SessionRecord | null, version: string | null): void {
    this.entries.delete(key);
    if (!record || version === null || record.status !== 'active' || this.capacity <= 0) return;
    // Oldest first in a Map: evicting the first key drops the dialogue touched longest ago.
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { record: deepFreeze(record), version });
  }

  /** A record's stored JSON, just read from the store: decoded and remembered. */
  read(key: string, raw: string | null | undefined): SessionRecord | null {
    const read = decodeVersioned(raw);
    this.remember(key, read?.record ?? null, read?.version ?? null);
    return read?.record ?? null;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
