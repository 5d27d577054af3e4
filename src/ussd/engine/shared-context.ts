import { createHash } from 'node:crypto';
import { deepFreeze } from './deep-freeze';
import type { SessionStore } from './store/types';

/**
 * Context fields many dialogues hold alike (the catalogue and the settings a dialogue started
 * with) are stored once per content, not in every snapshot: a saved snapshot names them by a
 * hash (`SessionRecord.shared`), and the hop that continues it puts them back before the
 * machine runs (src/ussd/engine/dialogue-runner.ts). The machine never sees the difference.
 *
 * The parts live in this process (by hash, frozen: dialogues share them by reference, and a
 * write through one would change the others) and in the session store, written when first
 * seen and again every {@link REFRESH_MS}, so another
 * instance, or this one after a restart, can continue any dialogue. Their store TTL outlives
 * every record that names them. A part gone from the store (evicted) makes its dialogue start
 * afresh, as a snapshot of another machine version does.
 */

/** How often a part still in use has its store TTL renewed. */
const REFRESH_MS = 30 * 60 * 1000;
/** Parts kept in this process; a catalogue changes a few times a day at most. */
const MAX_PARTS = 32;

interface Part {
  values: Record<string, unknown>;
  json: string;
  /** When this process last wrote the part to the store (0: read from it, not written yet). */
  writtenAt: number;
}

export class SharedContext {
  private readonly parts = new Map<string, Part>();
  /** The first shared field's value (an object) → its part's hash: no hashing on a hop that continues. */
  private readonly hashOf = new WeakMap<object, string>();
  /** Store TTL of a part: a refresh interval plus the longest a record naming it may live. */
  private readonly ttlS: number;

  constructor(
    private readonly store: Pick<SessionStore, 'putShared' | 'getShared'>,
    /** The context fields shared by content (all objects); none: snapshots are stored whole. */
    private readonly keys: readonly string[],
    /** The longest a record may live after its last save (dialogue TTL + resume window). */
    recordLifeS: number,
    private readonly now: () => number = Date.now,
  ) {
    this.ttlS = Math.ceil(REFRESH_MS / 1000) * 2 + recordLifeS;
  }

  /** The fields stored apart: the dialogue leaves them out of the snapshots it persists. */
  get fields(): readonly string[] {
    return this.keys;
  }

  /**
   * The hash naming the shared fields a hop's dialogue left out of its snapshot (`values`, the
   * objects themselves), stored when new; undefined when it left none out.
   */
  async nameOf(values: Record<string, unknown> | undefined): Promise<string | undefined> {
    if (this.keys.length === 0 || !values) return undefined;
    const hash = this.identify(values);
    await this.keepStored(hash);
    return hash;
  }

  /** The shared fields a stored snapshot names; undefined when it names none, null when they are nowhere to be found. */
  async valuesOf(shared: string | undefined): Promise<Readonly<Record<string, unknown>> | undefined | null> {
    if (shared === undefined) return undefined;
    const part = this.parts.get(shared) ?? (await this.load(shared));
    return part ? part.values : null;
  }

  /** As {@link valuesOf}, from this process only (no store call): null when the part is not here. */
  held(shared: string | undefined): Readonly<Record<string, unknown>> | undefined | null {
    if (shared === undefined) return undefined;
    return this.parts.get(shared)?.values ?? null;
  }

  /** The hash of the shared fields' values, registering them as a part when new. */
  private identify(fields: Record<string, unknown>): string {
    const first = fields[this.keys[0]] as object;
    const known = this.hashOf.get(first);
    if (known !== undefined) {
      const part = this.parts.get(known);
      if (part && this.keys.every((key) => part.values[key] === fields[key])) return known;
    }
    const values: Record<string, unknown> = {};
    for (const key of this.keys) values[key] = fields[key];
    const json = JSON.stringify(values);
    const hash = createHash('sha256').update(json).digest('base64url').slice(0, 22);
    const existing = this.parts.get(hash);
    if (existing) {
      // The same content loaded again (a fresh dialogue): later hops get the kept objects.
      this.hashOf.set(first, hash);
      return hash;
    }
    this.remember(hash, { values: deepFreeze(values), json, writtenAt: 0 });
    return hash;
  }

  private async keepStored(hash: string): Promise<void> {
    const part = this.parts.get(hash)!;
    const at = this.now();
    if (at - part.writtenAt < REFRESH_MS) return;
    await this.store.putShared(hash, part.json, this.ttlS);
    part.writtenAt = at;
  }

  private async load(hash: string): Promise<Part | null> {
    const json = await this.store.getShared(hash);
    if (json === null) return null;
    let values: Record<string, unknown>;
    try {
      values = JSON.parse(json) as Record<string, unknown>;
    } catch {
      return null;
    }
    const part: Part = { values: deepFreeze(values), json, writtenAt: 0 };
    this.remember(hash, part);
    return part;
  }

  private remember(hash: string, part: Part): void {
    if (this.parts.size >= MAX_PARTS) this.parts.delete(this.parts.keys().next().value!);
    this.parts.set(hash, part);
    this.hashOf.set(part.values[this.keys[0]] as object, hash);
  }
}
