import path from 'node:path';
import type { Redis } from 'ioredis';
import { ScriptReplyError, ScriptSet } from '../../redis/scripts';
import { outboxKeys, type OutboxKeys } from './keys';
import type { SmsEncoding } from '../../i18n/gsm';

/** One message kept by the outbox driver, as listed by `GET /dev/sms`. */
export interface OutboxEntry {
  id: string;
  to: string;
  from: string | null;
  message: string;
  parts: number;
  encoding: SmsEncoding;
  /** ISO 8601. */
  createdAt: string;
  purchaseId: string | null;
}

export interface OutboxQuery {
  /** E.164 digits, no `+`. */
  to?: string;
  limit?: number;
}

/** Where the outbox driver keeps messages. `add` stores an id once; a repeat is a no-op. */
export interface OutboxStore {
  /** Returns false when an entry with this id was already stored (nothing changes). */
  add(entry: OutboxEntry): Promise<boolean>;
  /** Newest first. */
  list(query?: OutboxQuery): Promise<OutboxEntry[]>;
}

export const DEFAULT_OUTBOX_CAP = 10_000;
const DEFAULT_LIMIT = 50;

function limitOf(query: OutboxQuery | undefined, cap: number): number {
  return Math.min(Math.max(1, query?.limit ?? DEFAULT_LIMIT), cap);
}

/** In-process outbox for the embedded mode and tests. */
export class MemoryOutboxStore implements OutboxStore {
  private readonly entries: OutboxEntry[] = [];
  private readonly ids = new Set<string>();

  constructor(private readonly cap = DEFAULT_OUTBOX_CAP) {}

  async add(entry: OutboxEntry): Promise<boolean> {
    if (this.ids.has(entry.id)) return false;
    this.ids.add(entry.id);
    this.entries.unshift({ ...entry });
    // Forget the oldest entries (and their ids) past the cap, like the Redis store's LTRIM.
    for (const dropped of this.entries.splice(this.cap)) this.ids.delete(dropped.id);
    return true;
  }

  async list(query?: OutboxQuery): Promise<OutboxEntry[]> {
    const matching = query?.to ? this.entries.filter((e) => e.to === query.to) : this.entries;
    return matching.slice(0, limitOf(query, this.cap)).map((e) => ({ ...e }));
  }
}

/** The outbox script, in `commands/` beside this module (`npm run build` copies it into dist/ too). */
export const OUTBOX_SCRIPTS = new ScriptSet('sms', 1, path.join(__dirname, 'commands'), [
  'addOutboxEntry-3',
] as const);

/** Return codes of addOutboxEntry-3.lua. */
export enum OutboxCode {
  Stored = 1,
  /** An entry with this id was already stored: nothing changed. */
  Duplicate = -1,
}

/** Whether the add script stored the entry; anything unlisted is a bug. */
function storedOutcome(code: unknown): boolean {
  if (code === OutboxCode.Stored) return true;
  if (code === OutboxCode.Duplicate) return false;
  throw new ScriptReplyError('addOutboxEntry', code);
}

export interface RedisOutboxOptions {
  /** The configured `REDIS_PREFIX` (e.g. `gw`): keys are built by `./keys.ts` under `<prefix>:sms:`. */
  prefix: string;
  cap?: number;
  /** How long a recipient's index and an id's duplicate marker live; default 7 days. */
  ttlSeconds?: number;
}

/** Outbox in Redis: a capped list of all entries, a per-recipient list and id markers (see `./keys.ts`). */
export class RedisOutboxStore implements OutboxStore {
  private readonly keys: OutboxKeys;
  private readonly cap: number;
  private readonly ttlSeconds: number;

  constructor(
    private readonly redis: Redis,
    options: RedisOutboxOptions,
  ) {
    this.keys = outboxKeys(options.prefix);
    this.cap = options.cap ?? DEFAULT_OUTBOX_CAP;
    this.ttlSeconds = options.ttlSeconds ?? 7 * 24 * 3600;
    OUTBOX_SCRIPTS.define(redis);
  }

  async add(entry: OutboxEntry): Promise<boolean> {
    const code = await OUTBOX_SCRIPTS.run(
      this.redis,
      'addOutboxEntry-3',
      [this.keys.marker(entry.id), this.keys.all(), this.keys.recipient(entry.to)],
      [JSON.stringify(entry), this.cap, this.ttlSeconds],
    );
    return storedOutcome(code);
  }

  async list(query?: OutboxQuery): Promise<OutboxEntry[]> {
    const key = query?.to ? this.keys.recipient(query.to) : this.keys.all();
    const rows = await this.redis.lrange(key, 0, limitOf(query, this.cap) - 1);
    return rows.map((row) => JSON.parse(row) as OutboxEntry);
  }
}
