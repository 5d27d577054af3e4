import path from 'node:path';
import type { Redis } from 'ioredis';
import { ScriptReplyError, ScriptSet } from '../../redis/scripts';
import type { PurchaseIntent } from '../../purchases/types';
import type { Money } from '../../vas/money';
import { smsMoKeys, type SmsMoKeys } from './keys';

/** A quote waiting for the sender's YES: the validated intent and what the quote SMS said. */
export interface PendingQuote {
  /** Unique: the purchase's idempotency key is `sms:<id>`. */
  id: string;
  /** The short code the sender confirms with (`YES 4821`). */
  code: string;
  /** Epoch ms after which YES no longer buys it. */
  expiresAt: number;
  intent: PurchaseIntent;
  total: Money;
  /** The inbound message that asked for it, and the quote SMS sent: a retried job re-sends it. */
  source?: { key: string; text: string };
}

/** Outcome of a YES against the sender's quotes. */
export type ClaimResult =
  /** This YES took the pending quote: buy it. */
  | { kind: 'claimed'; quote: PendingQuote }
  /** An earlier YES took it (a second YES, or the retry of a job that failed after claiming). */
  | { kind: 'bought'; quote: PendingQuote }
  | { kind: 'expired'; quote: PendingQuote }
  /** A code that is not the pending quote's (nor a recently bought one's). */
  | { kind: 'mismatch' }
  | { kind: 'none' };

/**
 * What the SMS-MO conversation keeps between messages: processed message ids, per-sender rate
 * windows and each sender's quotes. Redis in production, memory in the embedded mode.
 */
export interface SmsMoStore {
  /** True the first time `key` is seen within `ttlMs` (then marks it); false for a repeat. */
  firstSight(key: SeenKey, ttlMs: number): Promise<boolean>;
  /** Forget a sighting (the sender+text marker, once the message is answered). */
  forget(key: SeenKey): Promise<void>;
  /** Count one hit in the sender's current window of `windowMs`; returns the count so far. */
  hit(counter: 'inbound' | 'replies', msisdn: string, windowMs: number, now: number): Promise<number>;
  /** Make `quote` the sender's pending quote (replacing any); the state lives `ttlMs`. */
  putQuote(msisdn: string, quote: PendingQuote, ttlMs: number): Promise<void>;
  /** The sender's pending quote (nothing claimed), or null. */
  peekQuote(msisdn: string): Promise<PendingQuote | null>;
  /** The codes of the sender's pending quote and of the recently bought ones (the PIN gate's). */
  quoteCodes(msisdn: string): Promise<QuoteCodes>;
  /** Claim the pending quote for a YES with `code` (null: a bare YES), atomically. */
  claimQuote(msisdn: string, code: string | null, now: number, ttlMs: number): Promise<ClaimResult>;
  /** Drop the pending quote (NO); true when there was one (with that code, if given). */
  cancelQuote(msisdn: string, code: string | null): Promise<boolean>;
  close(): Promise<void>;
}

export interface QuoteCodes {
  pending: string | null;
  bought: string[];
}

/** A message marker: by provider message id, or by sender + digest of the text. */
export type SeenKey = { provider: string; messageId: string } | { msisdn: string; digest: string };

/** Bought quotes remembered per sender, so a late second YES is answered "already bought". */
export const BOUGHT_REMEMBERED = 5;

/** Lua sees only what it needs (code, expiry); the rest travels as an opaque string. */
interface StoredQuote {
  id: string;
  code: string;
  expiresAt: number;
  body: string;
}

function toStored(quote: PendingQuote): StoredQuote {
  return {
    id: quote.id,
    code: quote.code,
    expiresAt: quote.expiresAt,
    body: JSON.stringify({ intent: quote.intent, total: quote.total, source: quote.source }),
  };
}

function fromStored(stored: StoredQuote): PendingQuote {
  const body = JSON.parse(stored.body) as Pick<PendingQuote, 'intent' | 'total' | 'source'>;
  return { id: stored.id, code: stored.code, expiresAt: stored.expiresAt, ...body };
}

const windowOf = (now: number, windowMs: number): number => Math.floor(now / windowMs);

/** In-process twin of the Redis store: the same rules, for the embedded mode and tests. */
export class MemorySmsMoStore implements SmsMoStore {
  private readonly seen = new Map<string, number>();
  private readonly counters = new Map<string, { count: number; until: number }>();
  private readonly quotes = new Map<
    string,
    { pending: StoredQuote | null; bought: StoredQuote[]; until: number }
  >();

  constructor(private readonly clock: () => number = Date.now) {}

  private seenKey(key: SeenKey): string {
    return 'provider' in key ? `id:${key.provider}:${key.messageId}` : `text:${key.msisdn}:${key.digest}`;
  }

  async firstSight(key: SeenKey, ttlMs: number): Promise<boolean> {
    const k = this.seenKey(key);
    const until = this.seen.get(k);
    if (until !== undefined && until > this.clock()) return false;
    this.seen.set(k, this.clock() + ttlMs);
    if (this.seen.size > 100_000) this.prune();
    return true;
  }

  async forget(key: SeenKey): Promise<void> {
    this.seen.delete(this.seenKey(key));
  }

  async hit(counter: 'inbound' | 'replies', msisdn: string, windowMs: number, now: number): Promise<number> {
    const k = `${counter}:${msisdn}:${windowOf(now, windowMs)}`;
    const entry = this.counters.get(k);
    if (entry && entry.until > this.clock()) {
      entry.count += 1;
      return entry.count;
    }
    this.counters.set(k, { count: 1, until: this.clock() + windowMs });
    if (this.counters.size > 100_000) this.prune();
    return 1;
  }

  private state(msisdn: string) {
    const s = this.quotes.get(msisdn);
    return s && s.until > this.clock() ? s : undefined;
  }

  async putQuote(msisdn: string, quote: PendingQuote, ttlMs: number): Promise<void> {
    const bought = this.state(msisdn)?.bought ?? [];
    this.quotes.set(msisdn, { pending: toStored(quote), bought, until: this.clock() + ttlMs });
  }

  async peekQuote(msisdn: string): Promise<PendingQuote | null> {
    const pending = this.state(msisdn)?.pending;
    return pending ? fromStored(pending) : null;
  }

  async quoteCodes(msisdn: string): Promise<QuoteCodes> {
    const s = this.state(msisdn);
    return { pending: s?.pending?.code ?? null, bought: (s?.bought ?? []).map((q) => q.code) };
  }

  async claimQuote(msisdn: string, code: string | null, now: number, ttlMs: number): Promise<ClaimResult> {
    const s = this.state(msisdn);
    if (!s) return { kind: 'none' };
    const given = code ?? '';
    const old = s.bought.find((q) => q.code === given);
    if (old) return { kind: 'bought', quote: fromStored(old) };
    if (!s.pending) {
      if (given === '' && s.bought[0]) return { kind: 'bought', quote: fromStored(s.bought[0]) };
      return given === '' ? { kind: 'none' } : { kind: 'mismatch' };
    }
    if (given !== '' && s.pending.code !== given) return { kind: 'mismatch' };
    if (s.pending.expiresAt < now) return { kind: 'expired', quote: fromStored(s.pending) };
    const pending = s.pending;
    s.bought = [pending, ...s.bought].slice(0, BOUGHT_REMEMBERED);
    s.pending = null;
    s.until = this.clock() + ttlMs;
    return { kind: 'claimed', quote: fromStored(pending) };
  }

  async cancelQuote(msisdn: string, code: string | null): Promise<boolean> {
    const s = this.state(msisdn);
    if (!s?.pending || (code !== null && s.pending.code !== code)) return false;
    s.pending = null;
    return true;
  }

  async close(): Promise<void> {}

  private prune(): void {
    const now = this.clock();
    for (const [k, until] of this.seen) if (until <= now) this.seen.delete(k);
    for (const [k, c] of this.counters) if (c.until <= now) this.counters.delete(k);
    for (const [k, q] of this.quotes) if (q.until <= now) this.quotes.delete(k);
  }
}

export const SMS_MO_SCRIPTS = new ScriptSet('smsMo', 1, path.join(__dirname, 'commands'), [
  'putQuote-1',
  'claimQuote-1',
  'cancelQuote-1',
  'countHit-1',
] as const);

/** The conversation's state in Redis (keys in `keys.ts`, scripts in `commands/`). */
export class RedisSmsMoStore implements SmsMoStore {
  private readonly keys: SmsMoKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = smsMoKeys(prefix);
    SMS_MO_SCRIPTS.define(redis);
  }

  private seenKey(key: SeenKey): string {
    return 'provider' in key
      ? this.keys.seen(key.provider, key.messageId)
      : this.keys.recent(key.msisdn, key.digest);
  }

  async firstSight(key: SeenKey, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(this.seenKey(key), '1', 'PX', ttlMs, 'NX')) === 'OK';
  }

  async forget(key: SeenKey): Promise<void> {
    await this.redis.del(this.seenKey(key));
  }

  async hit(counter: 'inbound' | 'replies', msisdn: string, windowMs: number, now: number): Promise<number> {
    const window = windowOf(now, windowMs);
    const key = counter === 'inbound' ? this.keys.inbound(msisdn, window) : this.keys.replies(msisdn, window);
    const count = await SMS_MO_SCRIPTS.run(this.redis, 'countHit-1', [key], [windowMs]);
    if (typeof count !== 'number') throw new ScriptReplyError('countHit', count);
    return count;
  }

  async putQuote(msisdn: string, quote: PendingQuote, ttlMs: number): Promise<void> {
    await SMS_MO_SCRIPTS.run(
      this.redis,
      'putQuote-1',
      [this.keys.quotes(msisdn)],
      [JSON.stringify(toStored(quote)), ttlMs],
    );
  }

  async peekQuote(msisdn: string): Promise<PendingQuote | null> {
    const raw = await this.redis.get(this.keys.quotes(msisdn));
    if (raw === null) return null;
    const pending = (JSON.parse(raw) as { pending?: unknown }).pending;
    return pending && typeof pending === 'object' ? fromStored(pending as StoredQuote) : null;
  }

  async quoteCodes(msisdn: string): Promise<QuoteCodes> {
    const raw = await this.redis.get(this.keys.quotes(msisdn));
    const state = (raw === null ? {} : JSON.parse(raw)) as { pending?: unknown; bought?: unknown };
    const codeOf = (quote: unknown): string | null =>
      quote && typeof quote === 'object' && typeof (quote as StoredQuote).code === 'string'
        ? (quote as StoredQuote).code
        : null;
    const bought = Array.isArray(state.bought) ? state.bought.map(codeOf) : [];
    return { pending: codeOf(state.pending), bought: bought.filter((c): c is string => c !== null) };
  }

  async claimQuote(msisdn: string, code: string | null, now: number, ttlMs: number): Promise<ClaimResult> {
    const reply = await SMS_MO_SCRIPTS.run(
      this.redis,
      'claimQuote-1',
      [this.keys.quotes(msisdn)],
      [code ?? '', now, ttlMs, BOUGHT_REMEMBERED],
    );
    if (!Array.isArray(reply) || typeof reply[0] !== 'string')
      throw new ScriptReplyError('claimQuote', reply);
    const [kind, raw] = reply as [string, string | undefined];
    if (kind === 'none' || kind === 'mismatch') return { kind };
    if ((kind === 'claimed' || kind === 'bought' || kind === 'expired') && typeof raw === 'string')
      return { kind, quote: fromStored(JSON.parse(raw) as StoredQuote) };
    throw new ScriptReplyError('claimQuote', reply);
  }

  async cancelQuote(msisdn: string, code: string | null): Promise<boolean> {
    return (
      (await SMS_MO_SCRIPTS.run(this.redis, 'cancelQuote-1', [this.keys.quotes(msisdn)], [code ?? ''])) === 1
    );
  }

  async close(): Promise<void> {}
}
