import path from 'node:path';
import type { Redis } from 'ioredis';
import { ScriptReplyError, ScriptSet } from '../../redis/scripts';
import { PURCHASE_STATES, type PurchaseRecord, type PurchaseState } from '../types';
import { purchaseOutcome } from './codes';
import { purchaseKeys, type PurchaseKeys } from './keys';
import {
  applyTransition,
  awaitsNotification,
  checkTransition,
  DEFAULT_LIST_LIMIT,
  DEFAULT_RETENTION_MS,
  expiresAt,
  referencesOf,
  type RetentionOptions,
  type CreateResult,
  type ListOptions,
  type PageOptions,
  type PurchasePatch,
  type PurchaseStore,
  type TransitionResult,
} from './store';

export interface RedisPurchaseStoreOptions extends RetentionOptions {
  redis: Redis;
  /** Key prefix (e.g. `gw`); tests use a random one each. */
  prefix: string;
  clock?: () => Date;
}

/** The store's scripts, beside this module in `commands/` (`npm run build` copies them into dist/ too). */
export const PURCHASE_SCRIPTS = new ScriptSet('purchase', 3, path.join(__dirname, 'commands'), [
  'createPurchase-9',
  'transitionPurchase-7',
  'purgePurchase-10',
  'indexPurchase-6',
] as const);

/**
 * Redis drops a record by itself this long after its purge is due: the purge normally comes
 * first and removes its index entries too; the expiry is the backstop if no worker purges.
 */
const EXPIRY_GRACE_MS = 24 * 3600_000;

/** How many index entries a filtered MSISDN listing scans before giving up on more matches. */
const MSISDN_SCAN_LIMIT = 500;

/**
 * Purchase records in Redis: one hash per purchase (`json`, `state`, `version`), created and
 * moved only by Lua scripts so the idempotency key, the record and its indexes never disagree.
 */
export class RedisPurchaseStore implements PurchaseStore {
  private readonly redis: Redis;
  private readonly keys: PurchaseKeys;
  private readonly clock: () => Date;
  private readonly retentionMs: number;

  constructor(options: RedisPurchaseStoreOptions) {
    this.redis = options.redis;
    this.keys = purchaseKeys(options.prefix);
    this.clock = options.clock ?? (() => new Date());
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    PURCHASE_SCRIPTS.define(this.redis);
  }

  /** ARGV of a record's purge time and of the expiry Redis applies by itself ('' = keep). */
  private expiryArgs(record: PurchaseRecord): [string, string] {
    const due = expiresAt(record, this.retentionMs);
    return due === null ? ['', ''] : [String(due), String(due + EXPIRY_GRACE_MS)];
  }

  /** The external reference's index key and the provider reference's (the same key when none is known). */
  private referenceKeys(record: PurchaseRecord): [string, string] {
    const [external, provider = external] = referencesOf(record);
    return [this.keys.byReference(external), this.keys.byReference(provider)];
  }

  async create(record: PurchaseRecord): Promise<CreateResult> {
    const [code, id] = (await PURCHASE_SCRIPTS.run(
      this.redis,
      'createPurchase-9',
      [
        this.keys.idempotency(record.idempotencyKey),
        this.keys.record(record.id),
        this.keys.byState(record.state),
        this.keys.byMsisdn(record.intent.beneficiaryMsisdn),
        this.keys.byMsisdn(record.intent.requesterMsisdn),
        this.keys.byIdentifier(record.intent.subscriberIdentifier),
        ...this.referenceKeys(record),
        this.keys.expiring(),
      ],
      [
        record.id,
        JSON.stringify(record),
        record.state,
        record.version,
        Date.parse(record.createdAt),
        ...this.expiryArgs(record),
      ],
    )) as [number, string];
    const outcome = purchaseOutcome('createPurchase', code);
    if (outcome === 'written') return { created: true, record };
    if (outcome !== 'key_taken') throw new ScriptReplyError('createPurchase', code);
    const existing = await this.get(id);
    if (!existing) throw new Error(`purchase store: idempotency key maps to missing purchase ${id}`);
    return { created: false, record: existing };
  }

  async get(id: string): Promise<PurchaseRecord | null> {
    const json = await this.redis.hget(this.keys.record(id), 'json');
    return json === null ? null : (JSON.parse(json) as PurchaseRecord);
  }

  async getByIdempotencyKey(key: string): Promise<PurchaseRecord | null> {
    const id = await this.redis.get(this.keys.idempotency(key));
    return id === null ? null : this.get(id);
  }

  async transition(
    id: string,
    from: readonly PurchaseState[],
    to: PurchaseState,
    expectedVersion: number,
    patch?: PurchasePatch,
  ): Promise<TransitionResult> {
    const current = await this.get(id);
    const conflict = checkTransition(current, from, expectedVersion);
    if (conflict) return { ok: false, conflict };
    const next = applyTransition(current!, to, patch, this.clock());
    // The script re-checks version and state atomically: another writer may have won since the read.
    const code = await PURCHASE_SCRIPTS.run(
      this.redis,
      'transitionPurchase-7',
      [
        this.keys.record(id),
        this.keys.byState(current!.state),
        this.keys.byState(to),
        this.keys.unnotified(),
        this.keys.idempotency(next.idempotencyKey),
        this.referenceKeys(next)[1],
        this.keys.expiring(),
      ],
      [
        current!.version,
        current!.state,
        to,
        next.version,
        JSON.stringify(next),
        id,
        Date.parse(next.createdAt),
        awaitsNotification(next) ? '1' : '0',
        ...this.expiryArgs(next),
      ],
    );
    const outcome = purchaseOutcome('transitionPurchase', code);
    if (outcome === 'written') return { ok: true, record: next };
    const latest = await this.get(id);
    if (outcome === 'not_found' || latest === null)
      return { ok: false, conflict: { reason: 'not_found', current: null } };
    return {
      ok: false,
      conflict: { reason: from.includes(latest.state) ? 'version' : 'state', current: latest },
    };
  }

  listByMsisdn(msisdn: string, options: ListOptions = {}): Promise<PurchaseRecord[]> {
    return this.lookup(
      this.keys.byMsisdn(msisdn),
      (r) => r.intent.beneficiaryMsisdn === msisdn || r.intent.requesterMsisdn === msisdn,
      options,
    );
  }

  listByIdentifier(identifier: string, options: ListOptions = {}): Promise<PurchaseRecord[]> {
    return this.lookup(
      this.keys.byIdentifier(identifier),
      (r) => r.intent.subscriberIdentifier === identifier,
      options,
    );
  }

  listByReference(reference: string, options: ListOptions = {}): Promise<PurchaseRecord[]> {
    return this.lookup(this.keys.byReference(reference), (r) => referencesOf(r).includes(reference), options);
  }

  async countByState(): Promise<Record<PurchaseState, number>> {
    const pipeline = this.redis.pipeline();
    for (const state of PURCHASE_STATES) pipeline.zcard(this.keys.byState(state));
    const replies = (await pipeline.exec()) ?? [];
    return Object.fromEntries(
      PURCHASE_STATES.map((state, i) => {
        const [error, count] = replies[i] ?? [new Error('no reply'), 0];
        if (error) throw error;
        return [state, Number(count)];
      }),
    ) as Record<PurchaseState, number>;
  }

  async purgeExpired({ limit = 1000 }: { limit?: number } = {}): Promise<number> {
    const now = this.clock().getTime();
    const due = await this.redis.zrangebyscore(this.keys.expiring(), '-inf', now, 'LIMIT', 0, limit);
    let purged = 0;
    for (const id of due) {
      const record = await this.get(id);
      if (!record) {
        // Redis expired it first (no worker purged for a day): its lookups drop the ids they meet.
        await this.redis.zrem(this.keys.expiring(), id);
        continue;
      }
      const until = expiresAt(record, this.retentionMs);
      if (until === null || until > now) continue; // moved on; its transition re-scored it
      const [external, provider] = this.referenceKeys(record);
      const code = await PURCHASE_SCRIPTS.run(
        this.redis,
        'purgePurchase-10',
        [
          this.keys.record(id),
          this.keys.idempotency(record.idempotencyKey),
          this.keys.byState(record.state),
          this.keys.byMsisdn(record.intent.beneficiaryMsisdn),
          this.keys.byMsisdn(record.intent.requesterMsisdn),
          this.keys.byIdentifier(record.intent.subscriberIdentifier),
          external,
          provider,
          this.keys.unnotified(),
          this.keys.expiring(),
        ],
        [id, record.version],
      );
      if (code === 1) purged += 1;
      else if (code !== -2) throw new ScriptReplyError('purgePurchase', code);
    }
    return purged;
  }

  /**
   * Index every record written before the care lookups and the retention existed (identifier,
   * references, expiry): run once after upgrading (`npm run cli -- purchases reindex`). Safe to
   * run again and beside running workers (a record that changed meanwhile was indexed by its
   * transition). Returns how many records it indexed.
   */
  async reindex(): Promise<number> {
    let indexed = 0;
    const match = `${this.keys.record('')}*`;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', match, 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const json = await this.redis.hget(key, 'json');
        if (json === null) continue;
        const record = JSON.parse(json) as PurchaseRecord;
        const code = await PURCHASE_SCRIPTS.run(
          this.redis,
          'indexPurchase-6',
          [
            key,
            this.keys.idempotency(record.idempotencyKey),
            this.keys.byIdentifier(record.intent.subscriberIdentifier),
            ...this.referenceKeys(record),
            this.keys.expiring(),
          ],
          [record.id, record.version, Date.parse(record.createdAt), ...this.reindexExpiry(record)],
        );
        if (code === 1) indexed += 1;
        else if (code !== -2) throw new ScriptReplyError('indexPurchase', code);
      }
    } while (cursor !== '0');
    return indexed;
  }

  /**
   * A record long past its retention gets its Redis expiry no sooner than a grace period from
   * now: the purge deletes it first, with its index entries, rather than Redis alone.
   */
  private reindexExpiry(record: PurchaseRecord): [string, string] {
    const [due, drop] = this.expiryArgs(record);
    if (due === '') return [due, drop];
    return [due, String(Math.max(Number(drop), this.clock().getTime() + EXPIRY_GRACE_MS))];
  }

  /**
   * Newest records of a lookup index that still match it. An id whose record is gone (Redis
   * expired it before a purge could) is removed from the index as it is met.
   */
  private async lookup(
    key: string,
    matches: (record: PurchaseRecord) => boolean,
    options: ListOptions,
  ): Promise<PurchaseRecord[]> {
    const limit = options.limit ?? DEFAULT_LIST_LIMIT;
    const scan = options.state === undefined ? limit : MSISDN_SCAN_LIMIT;
    const ids = await this.redis.zrevrange(key, 0, String(scan - 1));
    const found = await this.loadById(ids);
    const gone = ids.filter((id) => !found.has(id));
    if (gone.length > 0) await this.redis.zrem(key, ...gone);
    return [...found.values()]
      .filter((r) => matches(r) && (options.state === undefined || r.state === options.state))
      .slice(0, limit);
  }

  /** Records by id, in the order of `ids`, missing ones left out. */
  private async loadById(ids: string[]): Promise<Map<string, PurchaseRecord>> {
    const records = await this.load(ids);
    return new Map(records.map((r) => [r.id, r]));
  }

  listByState(state: PurchaseState, options: PageOptions = {}): Promise<PurchaseRecord[]> {
    return this.listPage(this.keys.byState(state), 'newest', options, (r) => r.state === state);
  }

  listUnnotified(options: PageOptions = {}): Promise<PurchaseRecord[]> {
    return this.listPage(this.keys.unnotified(), 'oldest', options, awaitsNotification);
  }

  /**
   * A page of an index's records that still belong there: one may have moved on between
   * reading the index and loading it. A page that moved on whole is no sign of the end (an
   * empty page ends a sweep): the next one is read instead.
   */
  private async listPage(
    key: string,
    first: 'newest' | 'oldest',
    options: PageOptions,
    belongs: (record: PurchaseRecord) => boolean,
  ): Promise<PurchaseRecord[]> {
    for (let after = options.after; ;) {
      const records = await this.load(await this.page(key, first, { ...options, after }));
      const kept = records.filter(belongs);
      if (kept.length > 0 || records.length === 0) return kept;
      after = records[records.length - 1];
    }
  }

  /**
   * Ids of one page of an index scored by creation time. Redis orders equal scores by member,
   * as the memory store orders equal times by id, so (score, id) is the cursor: the ids that
   * share the cursor's score and come after it, then those of later scores.
   */
  private async page(key: string, first: 'newest' | 'oldest', options: PageOptions): Promise<string[]> {
    const limit = options.limit ?? DEFAULT_LIST_LIMIT;
    const newest = first === 'newest';
    if (!options.after) {
      const last = String(limit - 1);
      return newest ? this.redis.zrevrange(key, '0', last) : this.redis.zrange(key, '0', last);
    }
    const { id } = options.after;
    const score = Date.parse(options.after.createdAt);
    const [tied, later] = await Promise.all(
      newest
        ? [
            this.redis.zrevrangebyscore(key, score, score),
            this.redis.zrevrangebyscore(key, `(${score}`, '-inf', 'LIMIT', 0, limit),
          ]
        : [
            this.redis.zrangebyscore(key, score, score),
            this.redis.zrangebyscore(key, `(${score}`, '+inf', 'LIMIT', 0, limit),
          ],
    );
    const tiedAfter = tied.filter((member) => (newest ? member < id : member > id));
    return [...tiedAfter, ...later].slice(0, limit);
  }

  private async load(ids: string[]): Promise<PurchaseRecord[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hget(this.keys.record(id), 'json');
    const replies = (await pipeline.exec()) ?? [];
    const records: PurchaseRecord[] = [];
    for (const [error, json] of replies) {
      if (error) throw error;
      if (typeof json === 'string') records.push(JSON.parse(json) as PurchaseRecord);
    }
    return records;
  }
}
