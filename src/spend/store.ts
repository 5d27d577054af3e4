import path from 'node:path';
import type { Redis } from 'ioredis';
import { ScriptReplyError, ScriptSet } from '../redis/scripts';
import { spendKeys, type BlockKind, type SpendKeys } from './keys';
import type { DailyLimits } from './rules';

/** A number's spending on one local day. */
export interface DayUsage {
  valueMinor: number;
  count: number;
}

export type DailyReservation =
  { status: 'counted'; usage: DayUsage } | { status: 'over'; limit: 'value' | 'count'; usage: DayUsage };

/** Where the daily counts and the blocklists live: Redis, or memory in the embedded mode. */
export interface SpendStore {
  usage(msisdn: string, day: string): Promise<DayUsage>;
  /** Count a sale once per purchase key, atomically against the limits. */
  reserve(
    msisdn: string,
    day: string,
    purchaseKey: string,
    amountMinor: number,
    limits: DailyLimits,
  ): Promise<DailyReservation>;
  /**
   * Give back what `reserve` counted under `purchaseKey` on `day` (a purchase that failed
   * uncharged); false when nothing is counted under it. The key stays spent: never counted again.
   */
  release(msisdn: string, day: string, purchaseKey: string): Promise<boolean>;
  block(kind: BlockKind, value: string): Promise<boolean>;
  unblock(kind: BlockKind, value: string): Promise<boolean>;
  isBlocked(kind: BlockKind, value: string): Promise<boolean>;
  blocked(kind: BlockKind): Promise<string[]>;
}

/** A day's counts are kept two days (the local day may start before UTC's). */
const DAY_KEPT_MS = 2 * 24 * 3600 * 1000;

export class MemorySpendStore implements SpendStore {
  private readonly days = new Map<string, DayUsage & { keys: Map<string, number | 'released'> }>();
  private readonly lists: Record<BlockKind, Set<string>> = { msisdn: new Set(), identifier: new Set() };

  async usage(msisdn: string, day: string): Promise<DayUsage> {
    const d = this.days.get(`${msisdn}:${day}`);
    return { valueMinor: d?.valueMinor ?? 0, count: d?.count ?? 0 };
  }

  async reserve(
    msisdn: string,
    day: string,
    purchaseKey: string,
    amountMinor: number,
    limits: DailyLimits,
  ): Promise<DailyReservation> {
    const k = `${msisdn}:${day}`;
    const d = this.days.get(k) ?? { valueMinor: 0, count: 0, keys: new Map<string, number | 'released'>() };
    this.days.set(k, d);
    const usage = (): DayUsage => ({ valueMinor: d.valueMinor, count: d.count });
    if (d.keys.has(purchaseKey)) return { status: 'counted', usage: usage() };
    if (d.valueMinor + amountMinor > limits.maxValueMinor)
      return { status: 'over', limit: 'value', usage: usage() };
    if (d.count + 1 > limits.maxCount) return { status: 'over', limit: 'count', usage: usage() };
    d.valueMinor += amountMinor;
    d.count += 1;
    d.keys.set(purchaseKey, amountMinor);
    return { status: 'counted', usage: usage() };
  }

  async release(msisdn: string, day: string, purchaseKey: string): Promise<boolean> {
    const d = this.days.get(`${msisdn}:${day}`);
    const amount = d?.keys.get(purchaseKey);
    if (!d || amount === undefined || amount === 'released') return false;
    d.valueMinor -= amount;
    d.count -= 1;
    d.keys.set(purchaseKey, 'released');
    return true;
  }

  async block(kind: BlockKind, value: string): Promise<boolean> {
    const had = this.lists[kind].has(value);
    this.lists[kind].add(value);
    return !had;
  }

  async unblock(kind: BlockKind, value: string): Promise<boolean> {
    return this.lists[kind].delete(value);
  }

  async isBlocked(kind: BlockKind, value: string): Promise<boolean> {
    return this.lists[kind].has(value);
  }

  async blocked(kind: BlockKind): Promise<string[]> {
    return [...this.lists[kind]].sort();
  }
}

export const SPEND_SCRIPTS = new ScriptSet('spend', 1, path.join(__dirname, 'commands'), [
  'reserveDaily-1',
  'releaseDaily-1',
] as const);

export class RedisSpendStore implements SpendStore {
  private readonly keys: SpendKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = spendKeys(prefix);
    SPEND_SCRIPTS.define(redis);
  }

  async usage(msisdn: string, day: string): Promise<DayUsage> {
    const [value, count] = await this.redis.hmget(this.keys.day(msisdn, day), 'value', 'count');
    return { valueMinor: Number(value ?? 0), count: Number(count ?? 0) };
  }

  async reserve(
    msisdn: string,
    day: string,
    purchaseKey: string,
    amountMinor: number,
    limits: DailyLimits,
  ): Promise<DailyReservation> {
    const reply = await SPEND_SCRIPTS.run(
      this.redis,
      'reserveDaily-1',
      [this.keys.day(msisdn, day)],
      [purchaseKey, amountMinor, limits.maxValueMinor, limits.maxCount, DAY_KEPT_MS],
    );
    if (!Array.isArray(reply) || reply.length !== 3) throw new ScriptReplyError('reserveDaily', reply);
    const [code, value, count] = reply as number[];
    const usage = { valueMinor: value, count };
    if (code === 1) return { status: 'counted', usage };
    if (code === -1) return { status: 'over', limit: 'value', usage };
    if (code === -2) return { status: 'over', limit: 'count', usage };
    throw new ScriptReplyError('reserveDaily', reply);
  }

  async release(msisdn: string, day: string, purchaseKey: string): Promise<boolean> {
    const reply = await SPEND_SCRIPTS.run(
      this.redis,
      'releaseDaily-1',
      [this.keys.day(msisdn, day)],
      [purchaseKey],
    );
    if (!Array.isArray(reply) || reply.length !== 3 || (reply[0] !== 0 && reply[0] !== 1))
      throw new ScriptReplyError('releaseDaily', reply);
    return reply[0] === 1;
  }

  async block(kind: BlockKind, value: string): Promise<boolean> {
    return (await this.redis.sadd(this.keys.blocked(kind), value)) === 1;
  }

  async unblock(kind: BlockKind, value: string): Promise<boolean> {
    return (await this.redis.srem(this.keys.blocked(kind), value)) === 1;
  }

  async isBlocked(kind: BlockKind, value: string): Promise<boolean> {
    return (await this.redis.sismember(this.keys.blocked(kind), value)) === 1;
  }

  async blocked(kind: BlockKind): Promise<string[]> {
    return (await this.redis.smembers(this.keys.blocked(kind))).sort();
  }
}
