import type { Redis } from 'ioredis';
import type { NotificationRecord, NotificationStatus, SmsNotification } from './types';
import { FINAL_NOTIFICATION_STATUSES, purchaseIdOf } from './types';

/** Fields a delivery attempt may change. */
export type NotificationPatch = Partial<
  Pick<NotificationRecord, 'status' | 'attempts' | 'lastError' | 'providerMessageId' | 'sentAt'>
>;

/**
 * Where notifications and their delivery status live. `create` is the de-duplication point of
 * `notify`; `update` never changes a notification that reached a final status, so a stale
 * worker cannot turn `sent` back into `queued`.
 */
export interface NotificationStore {
  /** Returns false (and changes nothing) when a notification with this id exists. */
  create(notification: SmsNotification, now: Date): Promise<boolean>;
  get(id: string): Promise<NotificationRecord | null>;
  /** Returns the record after the patch, or null when it is absent; final records are left as they are. */
  update(id: string, patch: NotificationPatch, now: Date): Promise<NotificationRecord | null>;
  /** Notifications of one purchase, oldest first. */
  listByPurchase(purchaseId: string): Promise<NotificationRecord[]>;
}

function isFinal(status: NotificationStatus): boolean {
  return FINAL_NOTIFICATION_STATUSES.includes(status);
}

function newRecord(notification: SmsNotification, now: Date): NotificationRecord {
  const at = now.toISOString();
  return {
    ...notification,
    status: 'queued',
    attempts: 0,
    lastError: null,
    providerMessageId: null,
    createdAt: at,
    updatedAt: at,
    sentAt: null,
  };
}

/** In-process store for the embedded mode and tests. */
export class MemoryNotificationStore implements NotificationStore {
  private readonly records = new Map<string, NotificationRecord>();

  async create(notification: SmsNotification, now: Date): Promise<boolean> {
    if (this.records.has(notification.id)) return false;
    this.records.set(notification.id, newRecord(notification, now));
    return true;
  }

  async get(id: string): Promise<NotificationRecord | null> {
    const record = this.records.get(id);
    return record ? { ...record } : null;
  }

  async update(id: string, patch: NotificationPatch, now: Date): Promise<NotificationRecord | null> {
    const record = this.records.get(id);
    if (!record) return null;
    if (isFinal(record.status)) return { ...record };
    const next = { ...record, ...patch, updatedAt: now.toISOString() };
    this.records.set(id, next);
    return { ...next };
  }

  async listByPurchase(purchaseId: string): Promise<NotificationRecord[]> {
    return [...this.records.values()].filter((r) => r.purchaseId === purchaseId).map((r) => ({ ...r }));
  }
}

/**
 * createNotification: store a notification once and index it under its purchase.
 *   KEYS[1] record (JSON string)   KEYS[2] the purchase's index (sorted set, score = creation ms)
 *   ARGV[1] record JSON   ARGV[2] id   ARGV[3] creation ms   ARGV[4] ttl seconds
 *   returns 1 when stored, 0 when the id already existed
 */
const CREATE_LUA = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[4]) == false then return 0 end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
`;

/**
 * updateNotification: merge a patch into a record unless it reached a final status.
 *   KEYS[1] record (JSON string)
 *   ARGV[1] patch JSON (already carrying updatedAt)
 *   returns the record JSON after the call, or false when absent
 */
const UPDATE_LUA = `
local raw = redis.call('GET', KEYS[1])
if not raw then return false end
local record = cjson.decode(raw)
if record.status == 'sent' or record.status == 'rejected' or record.status == 'undelivered' then return raw end
for k, v in pairs(cjson.decode(ARGV[1])) do record[k] = v end
local out = cjson.encode(record)
redis.call('SET', KEYS[1], out, 'KEEPTTL')
return out
`;

type NotificationRedis = Redis & {
  notifyCreateNotificationV1(
    record: string,
    index: string,
    json: string,
    id: string,
    ms: number,
    ttl: number,
  ): Promise<number>;
  notifyUpdateNotificationV1(record: string, patch: string): Promise<string | null>;
};

export interface RedisNotificationStoreOptions {
  /** Key prefix, e.g. `sms:notification`. Keys carry the purchase id in a hash tag. */
  prefix: string;
  /** How long a notification (and so its de-duplication) is remembered; default 30 days. */
  ttlSeconds?: number;
}

/** Redis store: `<prefix>:{<purchaseId>}:<id>` JSON records and a `<prefix>:{<purchaseId>}` index. */
export class RedisNotificationStore implements NotificationStore {
  private readonly redis: NotificationRedis;
  private readonly ttlSeconds: number;

  constructor(
    redis: Redis,
    private readonly options: RedisNotificationStoreOptions,
  ) {
    this.ttlSeconds = options.ttlSeconds ?? 30 * 24 * 3600;
    if (!('notifyCreateNotificationV1' in redis)) {
      redis.defineCommand('notifyCreateNotificationV1', { numberOfKeys: 2, lua: CREATE_LUA });
      redis.defineCommand('notifyUpdateNotificationV1', { numberOfKeys: 1, lua: UPDATE_LUA });
    }
    this.redis = redis as NotificationRedis;
  }

  private indexKey(purchaseId: string): string {
    return `${this.options.prefix}:{${purchaseId}}`;
  }

  private recordKey(id: string): string {
    return `${this.indexKey(purchaseIdOf(id))}:${id}`;
  }

  async create(notification: SmsNotification, now: Date): Promise<boolean> {
    const stored = await this.redis.notifyCreateNotificationV1(
      this.recordKey(notification.id),
      this.indexKey(notification.purchaseId),
      JSON.stringify(newRecord(notification, now)),
      notification.id,
      now.getTime(),
      this.ttlSeconds,
    );
    return stored === 1;
  }

  async get(id: string): Promise<NotificationRecord | null> {
    const raw = await this.redis.get(this.recordKey(id));
    return raw === null ? null : fromJson(raw);
  }

  async update(id: string, patch: NotificationPatch, now: Date): Promise<NotificationRecord | null> {
    const raw = await this.redis.notifyUpdateNotificationV1(
      this.recordKey(id),
      JSON.stringify({ ...patch, updatedAt: now.toISOString() }),
    );
    return raw === null ? null : fromJson(raw);
  }

  async listByPurchase(purchaseId: string): Promise<NotificationRecord[]> {
    const ids = await this.redis.zrange(this.indexKey(purchaseId), '0', '-1');
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((r): r is NotificationRecord => r !== null);
  }
}

/** cjson turns JSON null into a sentinel and drops absent keys: restore the record's shape. */
function fromJson(raw: string): NotificationRecord {
  const parsed = JSON.parse(raw) as Partial<NotificationRecord>;
  return {
    ...(parsed as NotificationRecord),
    lastError: parsed.lastError ?? null,
    providerMessageId: parsed.providerMessageId ?? null,
    sentAt: parsed.sentAt ?? null,
  };
}
