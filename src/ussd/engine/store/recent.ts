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
  /**
   * Dialogues this process saved as over (final, completed or moved), until their record expires:
   * epoch ms by key. Such a record never becomes resumable again (a hop on it answers "ended",
   * an end notification ignores it, `takeResumable` leaves it), so no store call is needed to
   * learn that the caller's previous dialogue cannot be resumed.
   */
  private readonly over = new Map<string, number>();

  constructor(
    private readonly capacity = RECENT_RECORDS,
    /** The clock records expire by (the memory store's own). */
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): RecalledRecord | null {
    return this.entries.get(key) ?? null;
  }

  /**
   * Remembers a record just read or written; a finished dialogue is forgotten (only replay reads
   * it), and remembered as over for the `ttlS` its record was written with, when given.
   */
  remember(key: string, record: SessionRecord | null, version: string | null, ttlS?: number): void {
    this.entries.delete(key);
    // The last write decides: only a save of a record that is over marks it so.
    this.over.delete(key);
    if (record && ttlS !== undefined && isOver(record) && this.capacity > 0) {
      if (this.over.size >= this.capacity) this.over.delete(this.over.keys().next().value!);
      this.over.set(key, this.now() + ttlS * 1000);
    }
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

  /** Whether this process saved the dialogue at `key` as over and its record has not expired since. */
  isOver(key: string): boolean {
    const until = this.over.get(key);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.over.delete(key);
    return false;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.over.clear();
  }
}

/** A dialogue that can never be resumed again: any status `takeResumable` leaves alone. */
function isOver(record: SessionRecord): boolean {
  return record.status !== 'active' && record.status !== 'incomplete' && record.status !== 'failed';
}
