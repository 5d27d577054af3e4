import path from 'node:path';
import type { Redis } from 'ioredis';
import { ScriptSet } from '../../redis/scripts';
import { agentKeys, type FloatKeys } from '../keys';
import { expectCode, FloatCode, LIMIT_OF } from './codes';
import {
  DEFAULT_ENTRY_PAGE,
  LATE_SETTLE_NOTE,
  type CreditResult,
  type CreditWrite,
  type DayUsage,
  type FloatBalance,
  type FloatEntry,
  type FloatStore,
  type OutcomeResult,
  type Reservation,
  type ReserveResult,
  type ReserveWrite,
} from './store';

/** The float's scripts, beside this module in `commands/` (`npm run build` copies them into dist/). */
export const FLOAT_SCRIPTS = new ScriptSet('float', 1, path.join(__dirname, 'commands'), [
  'creditFloat-3',
  'reserveFloat-4',
  'settleReservation-4',
  'releaseReservation-4',
] as const);

/** `held|15000|2026-11-23|float` → a Reservation. */
function reservationOf(purchaseKey: string, value: string): Reservation {
  const [state, amount, day, funding] = value.split('|');
  return {
    purchaseKey,
    amountMinor: Number(amount),
    state: state as Reservation['state'],
    day,
    funding: funding as Reservation['funding'],
  };
}

const entryOf = (json: string): FloatEntry | null => (json === '' ? null : (JSON.parse(json) as FloatEntry));

/** The fields of an entry the script does not compute, as a JSON object it extends. */
function meta(fields: Partial<FloatEntry> & Pick<FloatEntry, 'kind'>, at: Date): string {
  return JSON.stringify({ ...fields, at: at.toISOString() });
}

/**
 * Float ledgers in Redis, under each agent's hash tag: `agent:{<msisdn>}:float:*`. Every
 * change is one Lua script (credit, reserve, settle, release), so the balance, the held sum,
 * the entries, the reservations and the day counters never disagree.
 */
export class RedisFloatStore implements FloatStore {
  private readonly keys: FloatKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = agentKeys(prefix).float;
    FLOAT_SCRIPTS.define(redis);
  }

  async balance(msisdn: string): Promise<FloatBalance> {
    const [balance, held, seq] = await this.redis.hmget(this.keys.account(msisdn), 'balance', 'held', 'seq');
    return { availableMinor: Number(balance ?? 0), heldMinor: Number(held ?? 0), entries: Number(seq ?? 0) };
  }

  async credit(msisdn: string, write: CreditWrite): Promise<CreditResult> {
    const k = this.keys;
    const amount = String(write.amountMinor);
    const [code, value] = (await FLOAT_SCRIPTS.run(
      this.redis,
      'creditFloat-3',
      [k.account(msisdn), k.entries(msisdn), k.refs(msisdn)],
      [
        amount,
        write.reference,
        write.idempotencyKey ?? '',
        meta(
          {
            kind: write.kind,
            reference: write.reference,
            ...(write.note !== undefined && { note: write.note }),
          },
          write.at,
        ),
        `${write.kind}|${amount}|${write.reference}`,
      ],
    )) as [number, string | number];
    switch (
      expectCode('creditFloat', code, [
        FloatCode.Written,
        FloatCode.Already,
        FloatCode.Conflict,
        FloatCode.Insufficient,
      ])
    ) {
      case FloatCode.Written:
        return { status: 'credited', entry: entryOf(String(value))! };
      case FloatCode.Already: {
        const json = await this.redis.lindex(k.entries(msisdn), Number(value) - 1);
        if (json === null) throw new Error(`float ledger: entry ${value} of a credit is missing`);
        return { status: 'duplicate', entry: entryOf(json)! };
      }
      case FloatCode.Conflict:
        return { status: 'conflict', field: value as 'reference' | 'idempotencyKey' };
      default:
        return { status: 'insufficient', availableMinor: Number(value) };
    }
  }

  async reserve(msisdn: string, write: ReserveWrite): Promise<ReserveResult> {
    const k = this.keys;
    const { limits } = write;
    const reply = (await FLOAT_SCRIPTS.run(
      this.redis,
      'reserveFloat-4',
      [k.account(msisdn), k.entries(msisdn), k.holds(msisdn), k.days(msisdn)],
      [
        write.purchaseKey,
        String(write.amountMinor),
        write.funding,
        String(limits.maxSaleMinor),
        String(limits.maxDayValueMinor),
        String(limits.maxDayCount),
        write.day,
        meta({ kind: 'reserve', purchaseKey: write.purchaseKey }, write.at),
      ],
    )) as [number, string | number, string | number];
    const [code, first, second] = reply;
    switch (
      expectCode('reserveFloat', code, [
        FloatCode.Written,
        FloatCode.Already,
        FloatCode.Mismatch,
        FloatCode.Insufficient,
        FloatCode.OverMaxSale,
        FloatCode.OverDayValue,
        FloatCode.OverDayCount,
      ])
    ) {
      case FloatCode.Written:
        return {
          status: 'reserved',
          reservation: reservationOf(write.purchaseKey, String(first)),
          entry: entryOf(String(second)),
        };
      case FloatCode.Already:
        return { status: 'duplicate', reservation: reservationOf(write.purchaseKey, String(first)) };
      case FloatCode.Mismatch:
        return { status: 'conflict', reservation: reservationOf(write.purchaseKey, String(first)) };
      case FloatCode.Insufficient:
        return { status: 'insufficient', availableMinor: Number(first) };
      default:
        return {
          status: 'over_limit',
          limit: LIMIT_OF[code as FloatCode]!,
          limitValue: Number(first),
          used: Number(second),
        };
    }
  }

  async settle(msisdn: string, purchaseKey: string, at: Date): Promise<OutcomeResult> {
    const k = this.keys;
    const script = 'settleReservation-4';
    const [code, first, second] = (await FLOAT_SCRIPTS.run(
      this.redis,
      script,
      [k.account(msisdn), k.entries(msisdn), k.holds(msisdn), k.days(msisdn)],
      [
        purchaseKey,
        meta({ kind: 'settle', purchaseKey }, at),
        meta({ kind: 'settle', purchaseKey, note: LATE_SETTLE_NOTE }, at),
      ],
    )) as [number, string | number | undefined, string | undefined];
    switch (
      expectCode(script, code, [
        FloatCode.Written,
        FloatCode.Already,
        FloatCode.Mismatch,
        FloatCode.Insufficient,
      ])
    ) {
      case FloatCode.Written:
        return {
          status: 'settled',
          reservation: reservationOf(purchaseKey, String(first)),
          entry: entryOf(second ?? ''),
        };
      case FloatCode.Already:
        return { status: 'already', reservation: reservationOf(purchaseKey, String(first)) };
      case FloatCode.Insufficient:
        return {
          status: 'uncovered',
          reservation: reservationOf(purchaseKey, String(second)),
          availableMinor: Number(first),
        };
      default:
        return { status: 'not_found' };
    }
  }

  async release(msisdn: string, purchaseKey: string, at: Date): Promise<OutcomeResult> {
    const k = this.keys;
    const script = 'releaseReservation-4';
    const [code, hold, entry] = (await FLOAT_SCRIPTS.run(
      this.redis,
      script,
      [k.account(msisdn), k.entries(msisdn), k.holds(msisdn), k.days(msisdn)],
      [purchaseKey, meta({ kind: 'release', purchaseKey }, at)],
    )) as [number, string?, string?];
    switch (expectCode(script, code, [FloatCode.Written, FloatCode.Already, FloatCode.Mismatch])) {
      case FloatCode.Written:
        return { status: 'released', reservation: reservationOf(purchaseKey, hold!), entry: entryOf(entry!) };
      case FloatCode.Already:
        return { status: 'already', reservation: reservationOf(purchaseKey, hold!) };
      default:
        return { status: 'not_found' };
    }
  }

  async reservation(msisdn: string, purchaseKey: string): Promise<Reservation | null> {
    const value = await this.redis.hget(this.keys.holds(msisdn), purchaseKey);
    return value === null ? null : reservationOf(purchaseKey, value);
  }

  async entries(msisdn: string, options: { offset?: number; limit?: number } = {}): Promise<FloatEntry[]> {
    const offset = options.offset ?? 0;
    const limit = options.limit ?? DEFAULT_ENTRY_PAGE;
    const rows = await this.redis.lrange(this.keys.entries(msisdn), offset, offset + limit - 1);
    return rows.map((json) => JSON.parse(json) as FloatEntry);
  }

  async dayUsage(msisdn: string, day: string): Promise<DayUsage> {
    const [value, count] = await this.redis.hmget(this.keys.days(msisdn), `${day}|value`, `${day}|count`);
    return { valueMinor: Number(value ?? 0), count: Number(count ?? 0) };
  }
}
