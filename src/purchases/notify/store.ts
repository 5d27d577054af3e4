import path from 'node:path';
import type { Redis } from 'ioredis';
import { ScriptReplyError, ScriptSet } from '../../redis/scripts';
import { notificationKeys, type NotificationKeys } from './keys';
import type {
  DeliveryAction,
  DeliveryNote,
  NotificationRecord,
  NotificationStatus,
  SmsNotification,
} from './types';
import { FINAL_NOTIFICATION_STATUSES } from './types';

/** Fields a delivery attempt may change. */
export type NotificationPatch = Partial<
  Pick<NotificationRecord, 'status' | 'attempts' | 'lastError' | 'providerMessageId' | 'sentAt' | 'revivals'>
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
  /** Up to `limit` notifications not yet final, oldest first (the sweep's work list). */
  listOpen(limit: number): Promise<NotificationRecord[]>;
  /** Remember which notification a provider's message id is (when the provider accepted it). */
  linkProviderMessage(providerMessageId: string, id: string): Promise<void>;
  /** The notification a provider's message id belongs to, or null. */
  findByProviderMessage(providerMessageId: string): Promise<NotificationRecord | null>;
  /** Keep a delivery report on the record; `retry` re-opens a sent one, `giveup` makes it undelivered. */
  recordDelivery(
    id: string,
    delivery: DeliveryNote,
    action: DeliveryAction,
    now: Date,
  ): Promise<NotificationRecord | null>;
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

  async listOpen(limit: number): Promise<NotificationRecord[]> {
    return [...this.records.values()]
      .filter((r) => !isFinal(r.status))
      .slice(0, limit)
      .map((r) => ({ ...r }));
  }

  private readonly providerIds = new Map<string, string>();

  async linkProviderMessage(providerMessageId: string, id: string): Promise<void> {
    this.providerIds.set(providerMessageId, id);
  }

  async findByProviderMessage(providerMessageId: string): Promise<NotificationRecord | null> {
    const id = this.providerIds.get(providerMessageId);
    return id === undefined ? null : this.get(id);
  }

  async recordDelivery(
    id: string,
    delivery: DeliveryNote,
    action: DeliveryAction,
    now: Date,
  ): Promise<NotificationRecord | null> {
    const record = this.records.get(id);
    if (!record) return null;
    const next: NotificationRecord = { ...record, delivery, updatedAt: now.toISOString() };
    if (record.status === 'sent' && action !== 'note') {
      next.status = action === 'retry' ? 'queued' : 'undelivered';
      next.deliveryFailures = (record.deliveryFailures ?? 0) + 1;
      next.lastError = `delivery failed: ${delivery.failureReason ?? delivery.providerStatus}`;
    }
    this.records.set(id, next);
    return { ...next };
  }
}

/** The store's scripts, in `commands/` beside this module (`npm run build` copies them into dist/ too). */
export const NOTIFICATION_SCRIPTS = new ScriptSet('sms', 1, path.join(__dirname, 'commands'), [
  'createNotification-2',
  'updateNotification-1',
  'recordDelivery-1',
] as const);

/** Return codes of createNotification-2.lua. */
export enum NotificationCode {
  Stored = 1,
  /** A notification with this id exists: nothing changed. */
  Exists = -1,
}

/** Whether the create script stored the notification; anything unlisted is a bug. */
function storedOutcome(code: unknown): boolean {
  if (code === NotificationCode.Stored) return true;
  if (code === NotificationCode.Exists) return false;
  throw new ScriptReplyError('createNotification', code);
}

export interface RedisNotificationStoreOptions {
  /** The configured `REDIS_PREFIX` (e.g. `gw`): keys are built by `./keys.ts` under `<prefix>:sms:`. */
  prefix: string;
  /** How long a notification (and so its de-duplication) is remembered; default 30 days. */
  ttlSeconds?: number;
}

/** Redis store: one JSON record per notification and a per-purchase index (see `./keys.ts`). */
export class RedisNotificationStore implements NotificationStore {
  private readonly keys: NotificationKeys;
  private readonly ttlSeconds: number;

  constructor(
    private readonly redis: Redis,
    options: RedisNotificationStoreOptions,
  ) {
    this.keys = notificationKeys(options.prefix);
    this.ttlSeconds = options.ttlSeconds ?? 30 * 24 * 3600;
    NOTIFICATION_SCRIPTS.define(redis);
  }

  async create(notification: SmsNotification, now: Date): Promise<boolean> {
    // Indexed as open first: a crash after this leaves an id the sweep drops, never a record it misses.
    await this.redis.zadd(this.keys.open(), 'NX', now.getTime(), notification.id);
    const code = await NOTIFICATION_SCRIPTS.run(
      this.redis,
      'createNotification-2',
      [this.keys.record(notification.id), this.keys.byPurchase(notification.purchaseId)],
      [JSON.stringify(newRecord(notification, now)), notification.id, now.getTime(), this.ttlSeconds],
    );
    return storedOutcome(code);
  }

  async get(id: string): Promise<NotificationRecord | null> {
    const raw = await this.redis.get(this.keys.record(id));
    return raw === null ? null : fromJson(raw);
  }

  async update(id: string, patch: NotificationPatch, now: Date): Promise<NotificationRecord | null> {
    const raw = (await NOTIFICATION_SCRIPTS.run(
      this.redis,
      'updateNotification-1',
      [this.keys.record(id)],
      [JSON.stringify({ ...patch, updatedAt: now.toISOString() })],
    )) as string | null;
    const record = raw === null ? null : fromJson(raw);
    if (record === null || isFinal(record.status)) await this.redis.zrem(this.keys.open(), id);
    return record;
  }

  async listOpen(limit: number): Promise<NotificationRecord[]> {
    if (limit <= 0) return [];
    const ids = await this.redis.zrange(this.keys.open(), '0', String(limit - 1));
    const records = await Promise.all(ids.map((id) => this.get(id)));
    const open: NotificationRecord[] = [];
    for (const [i, record] of records.entries()) {
      if (record && !isFinal(record.status)) open.push(record);
      // Expired, or final while its removal from the index was lost: drop it from the list.
      else await this.redis.zrem(this.keys.open(), ids[i]);
    }
    return open;
  }

  async linkProviderMessage(providerMessageId: string, id: string): Promise<void> {
    await this.redis.set(this.keys.byProviderId(providerMessageId), id, 'EX', this.ttlSeconds);
  }

  async findByProviderMessage(providerMessageId: string): Promise<NotificationRecord | null> {
    const id = await this.redis.get(this.keys.byProviderId(providerMessageId));
    return id === null ? null : this.get(id);
  }

  async recordDelivery(
    id: string,
    delivery: DeliveryNote,
    action: DeliveryAction,
    now: Date,
  ): Promise<NotificationRecord | null> {
    const raw = (await NOTIFICATION_SCRIPTS.run(
      this.redis,
      'recordDelivery-1',
      [this.keys.record(id)],
      [JSON.stringify(delivery), action, now.toISOString()],
    )) as string | null;
    const record = raw === null ? null : fromJson(raw);
    // Re-opened: the sweep must see it like any other open notification.
    if (record && !isFinal(record.status)) await this.redis.zadd(this.keys.open(), now.getTime(), id);
    return record;
  }

  async listByPurchase(purchaseId: string): Promise<NotificationRecord[]> {
    const ids = await this.redis.zrange(this.keys.byPurchase(purchaseId), '0', '-1');
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
