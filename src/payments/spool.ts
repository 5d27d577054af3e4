/**
 * What a provider told us while the records could not take it: a callback (Daraja never sends an
 * STK callback twice) or a push's answer (the only carrier of its CheckoutRequestID). Kept here,
 * on something that is up when PostgreSQL is not — Redis when the gateway has it, else a folder
 * beside the embedded records — before the provider is answered, and applied once the records
 * are back (`PaymentLifecycle.replaySpool`, run by every payment sweep and by the process that
 * spooled, every second until the spool is empty). Applying an entry twice changes nothing (a
 * callback is kept and de-duplicated by the records; an answer is a compare-and-set), so two
 * processes draining one spool, or a crash between applying and dropping, are harmless.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { keyPrefix } from '../redis/keys';
import type { ProviderNotice } from './port';

/** One thing a provider told us that the records did not take. */
export type SpooledEntry =
  | { kind: 'callback'; provider: string; notice: ProviderNotice; at: string }
  /** A push's answer: the provider's key for our payment (attempt `requestAttempts`). */
  | {
      kind: 'answer';
      provider: string;
      paymentId: string;
      requestAttempts: number;
      providerReference: string;
      at: string;
    };

export interface NoticeSpool {
  /** Where it keeps them, for the logs (`redis`, a folder). */
  readonly where: string;
  /** Keep `entry`; resolves once it is durable there. Keeping the same entry twice keeps one. */
  keep(entry: SpooledEntry): Promise<void>;
  /** Everything kept, oldest first, at most `limit`. */
  list(limit: number): Promise<{ id: string; entry: SpooledEntry }[]>;
  /** Forget an entry once it was applied. */
  drop(id: string): Promise<void>;
  /** How many entries wait. */
  count(): Promise<number>;
}

/** The same entry keeps one id: a provider's retry of a callback spooled once is spooled once. */
function idOf(entry: SpooledEntry): string {
  const { at: _at, ...fact } = entry;
  return createHash('sha256').update(JSON.stringify(fact)).digest('hex').slice(0, 32);
}

/**
 * In a Redis hash (`<prefix>:payments:spool`), field = the entry's id, value = `<at> <json>`:
 * one command to keep (HSET is durable as far as the operator's Redis persistence is), shared
 * by every gateway and worker, so any of them applies it.
 */
export class RedisNoticeSpool implements NoticeSpool {
  readonly where = 'redis';
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${keyPrefix(prefix)}payments:spool`;
  }

  async keep(entry: SpooledEntry): Promise<void> {
    await this.redis.hset(this.key, idOf(entry), JSON.stringify(entry));
  }

  async list(limit: number): Promise<{ id: string; entry: SpooledEntry }[]> {
    const all = await this.redis.hgetall(this.key);
    return Object.entries(all)
      .map(([id, json]) => ({ id, entry: JSON.parse(json) as SpooledEntry }))
      .sort((a, b) => a.entry.at.localeCompare(b.entry.at))
      .slice(0, limit);
  }

  async drop(id: string): Promise<void> {
    await this.redis.hdel(this.key, id);
  }

  count(): Promise<number> {
    return this.redis.hlen(this.key);
  }
}

/**
 * A file per entry in a folder (`<DATA_DIR>/spool/payments`), written to a temporary name,
 * flushed to disk, then renamed: an entry is there whole or not at all, across a crash.
 */
export class FileNoticeSpool implements NoticeSpool {
  constructor(readonly where: string) {}

  async keep(entry: SpooledEntry): Promise<void> {
    mkdirSync(this.where, { recursive: true, mode: 0o700 });
    const id = idOf(entry);
    const temporary = join(this.where, `.${id}.tmp`);
    const fd = openSync(temporary, 'w', 0o600);
    try {
      writeSync(fd, JSON.stringify(entry));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, join(this.where, `${id}.json`));
  }

  async list(limit: number): Promise<{ id: string; entry: SpooledEntry }[]> {
    let names: string[];
    try {
      names = readdirSync(this.where).filter((name) => name.endsWith('.json'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    return names
      .map((name) => ({
        id: name.slice(0, -'.json'.length),
        entry: JSON.parse(readFileSync(join(this.where, name), 'utf8')) as SpooledEntry,
      }))
      .sort((a, b) => a.entry.at.localeCompare(b.entry.at))
      .slice(0, limit);
  }

  async drop(id: string): Promise<void> {
    rmSync(join(this.where, `${id}.json`), { force: true });
  }

  async count(): Promise<number> {
    return (await this.list(Number.MAX_SAFE_INTEGER)).length;
  }
}

/** Kept in this process only: for records in memory (`memory://`), which go with it anyway. */
export class MemoryNoticeSpool implements NoticeSpool {
  readonly where = 'memory';
  private readonly entries = new Map<string, SpooledEntry>();

  async keep(entry: SpooledEntry): Promise<void> {
    this.entries.set(idOf(entry), entry);
  }

  async list(limit: number): Promise<{ id: string; entry: SpooledEntry }[]> {
    return [...this.entries]
      .map(([id, entry]) => ({ id, entry }))
      .sort((a, b) => a.entry.at.localeCompare(b.entry.at))
      .slice(0, limit);
  }

  async drop(id: string): Promise<void> {
    this.entries.delete(id);
  }

  async count(): Promise<number> {
    return this.entries.size;
  }
}
