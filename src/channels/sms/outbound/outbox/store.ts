import type { Redis } from 'ioredis';
import type { SmsEncoding } from '../../../../i18n/gsm';

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

/**
 * addOutboxEntry: store an entry once, newest first, with a per-recipient index.
 *   KEYS[1] id marker (`<prefix>:id:<id>`)   KEYS[2] all entries list   KEYS[3] recipient list
 *   ARGV[1] entry JSON   ARGV[2] cap (max list length)   ARGV[3] ttl seconds of marker and recipient list
 *   returns 1 when stored, 0 when the id was already stored
 */
const ADD_ENTRY_LUA = `
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[3]) == false then return 0 end
local cap = tonumber(ARGV[2]) - 1
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], 0, cap)
redis.call('LPUSH', KEYS[3], ARGV[1])
redis.call('LTRIM', KEYS[3], 0, cap)
redis.call('EXPIRE', KEYS[3], ARGV[3])
return 1
`;

type OutboxRedis = Redis & {
  outboxAddEntryV1(
    marker: string,
    all: string,
    recipient: string,
    json: string,
    cap: number,
    ttl: number,
  ): Promise<number>;
};

export interface RedisOutboxOptions {
  /** Key prefix, e.g. `sms:outbox`. */
  prefix: string;
  cap?: number;
  /** How long a recipient's index and an id's duplicate marker live; default 7 days. */
  ttlSeconds?: number;
}

/** Outbox in Redis: `<prefix>` list of entries (capped), `<prefix>:to:<msisdn>` index, `<prefix>:id:<id>` markers. */
export class RedisOutboxStore implements OutboxStore {
  private readonly redis: OutboxRedis;
  private readonly cap: number;
  private readonly ttlSeconds: number;

  constructor(
    redis: Redis,
    private readonly options: RedisOutboxOptions,
  ) {
    this.cap = options.cap ?? DEFAULT_OUTBOX_CAP;
    this.ttlSeconds = options.ttlSeconds ?? 7 * 24 * 3600;
    if (!('outboxAddEntryV1' in redis))
      redis.defineCommand('outboxAddEntryV1', { numberOfKeys: 3, lua: ADD_ENTRY_LUA });
    this.redis = redis as OutboxRedis;
  }

  async add(entry: OutboxEntry): Promise<boolean> {
    const { prefix } = this.options;
    const stored = await this.redis.outboxAddEntryV1(
      `${prefix}:id:${entry.id}`,
      prefix,
      `${prefix}:to:${entry.to}`,
      JSON.stringify(entry),
      this.cap,
      this.ttlSeconds,
    );
    return stored === 1;
  }

  async list(query?: OutboxQuery): Promise<OutboxEntry[]> {
    const key = query?.to ? `${this.options.prefix}:to:${query.to}` : this.options.prefix;
    const rows = await this.redis.lrange(key, 0, limitOf(query, this.cap) - 1);
    return rows.map((row) => JSON.parse(row) as OutboxEntry);
  }
}
