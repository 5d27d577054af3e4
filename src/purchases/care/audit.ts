import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { careKeys, type CareKeys } from './keys';

/**
 * The audit trail of customer care: who did what to which purchase, when, and why. Written
 * before the action's answer is given (a reveal before anything is shown), so nothing an
 * operator did or saw is missing from it. Entries carry ids and the operator's note, never a
 * full number or token.
 */

export type CareAction = 'resolve' | 'reconcile' | 'reveal';

export interface AuditEntry {
  id: string;
  /** ISO time. */
  at: string;
  /** The admin token's label (`ADMIN_TOKENS`), or `cli:<user>` for the operator CLI. */
  actor: string;
  action: CareAction;
  purchaseId: string | null;
  note: string | null;
  /** What was asked (a reveal: the request, numbers masked). */
  detail: string | null;
}

export type AuditInput = Pick<AuditEntry, 'actor' | 'action'> &
  Partial<Pick<AuditEntry, 'purchaseId' | 'note' | 'detail'>>;

export interface AuditTrail {
  record(input: AuditInput): Promise<AuditEntry>;
  /** Newest first; one purchase's entries, or every entry. */
  list(options?: { purchaseId?: string; limit?: number }): Promise<AuditEntry[]>;
}

/** Entries kept in the whole trail (a purchase's own trail keeps all of its few). */
export const MAX_TRAIL_ENTRIES = 100_000;
export const DEFAULT_AUDIT_LIMIT = 50;

function entryOf(input: AuditInput, now: Date): AuditEntry {
  return {
    id: randomUUID(),
    at: now.toISOString(),
    actor: input.actor,
    action: input.action,
    purchaseId: input.purchaseId ?? null,
    note: input.note ?? null,
    detail: input.detail ?? null,
  };
}

export class MemoryAuditTrail implements AuditTrail {
  private readonly entries: AuditEntry[] = [];

  constructor(private readonly clock: () => Date = () => new Date()) {}

  async record(input: AuditInput): Promise<AuditEntry> {
    const entry = entryOf(input, this.clock());
    this.entries.push(entry);
    if (this.entries.length > MAX_TRAIL_ENTRIES) this.entries.shift();
    return { ...entry };
  }

  async list({ purchaseId, limit = DEFAULT_AUDIT_LIMIT }: { purchaseId?: string; limit?: number } = {}) {
    return this.entries
      .filter((e) => purchaseId === undefined || e.purchaseId === purchaseId)
      .reverse()
      .slice(0, limit)
      .map((e) => ({ ...e }));
  }
}

export class RedisAuditTrail implements AuditTrail {
  private readonly keys: CareKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.keys = careKeys(prefix);
  }

  async record(input: AuditInput): Promise<AuditEntry> {
    const entry = entryOf(input, this.clock());
    const json = JSON.stringify(entry);
    const score = Date.parse(entry.at);
    const tx = this.redis.multi().zadd(this.keys.trail(), score, json);
    if (entry.purchaseId) tx.zadd(this.keys.purchaseTrail(entry.purchaseId), score, json);
    tx.zremrangebyrank(this.keys.trail(), 0, -(MAX_TRAIL_ENTRIES + 1));
    const replies = await tx.exec();
    const failed = replies?.find(([error]) => error);
    if (!replies || failed) throw failed?.[0] ?? new Error('audit trail: transaction aborted');
    return entry;
  }

  async list({ purchaseId, limit = DEFAULT_AUDIT_LIMIT }: { purchaseId?: string; limit?: number } = {}) {
    const key = purchaseId === undefined ? this.keys.trail() : this.keys.purchaseTrail(purchaseId);
    const members = await this.redis.zrevrange(key, 0, limit - 1);
    return members.map((m) => JSON.parse(m) as AuditEntry);
  }
}
