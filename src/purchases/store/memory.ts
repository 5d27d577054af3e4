import { PURCHASE_STATES, type PurchaseRecord, type PurchaseState } from '../types';
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
  type PageCursor,
  type PageOptions,
  type PurchasePatch,
  type PurchaseStore,
  type TransitionResult,
} from './store';

const copy = (record: PurchaseRecord): PurchaseRecord => structuredClone(record);
const order = (a: PageCursor, b: PageCursor): number => {
  const ta = Date.parse(a.createdAt);
  const tb = Date.parse(b.createdAt);
  if (ta !== tb) return ta - tb;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
};
const newestFirst = (a: PageCursor, b: PageCursor): number => order(b, a);

/** In-process purchase store for the embedded mode: same semantics as the Redis store. */
export class MemoryPurchaseStore implements PurchaseStore {
  private readonly records = new Map<string, PurchaseRecord>();
  private readonly keys = new Map<string, string>();

  private readonly retentionMs: number;

  constructor(
    private readonly clock: () => Date = () => new Date(),
    options: RetentionOptions = {},
  ) {
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  }

  async create(record: PurchaseRecord): Promise<CreateResult> {
    const existing = this.keys.get(record.idempotencyKey);
    if (existing !== undefined) return { created: false, record: copy(this.records.get(existing)!) };
    this.keys.set(record.idempotencyKey, record.id);
    this.records.set(record.id, copy(record));
    return { created: true, record: copy(record) };
  }

  async get(id: string): Promise<PurchaseRecord | null> {
    const record = this.records.get(id);
    return record ? copy(record) : null;
  }

  async getByIdempotencyKey(key: string): Promise<PurchaseRecord | null> {
    const id = this.keys.get(key);
    return id === undefined ? null : this.get(id);
  }

  async transition(
    id: string,
    from: readonly PurchaseState[],
    to: PurchaseState,
    expectedVersion: number,
    patch?: PurchasePatch,
  ): Promise<TransitionResult> {
    const current = this.records.get(id) ?? null;
    const conflict = checkTransition(current && copy(current), from, expectedVersion);
    if (conflict) return { ok: false, conflict };
    const next = applyTransition(current!, to, patch, this.clock());
    this.records.set(id, copy(next));
    return { ok: true, record: next };
  }

  async listByMsisdn(msisdn: string, options: ListOptions = {}): Promise<PurchaseRecord[]> {
    return this.list(
      (r) =>
        (r.intent.beneficiaryMsisdn === msisdn || r.intent.requesterMsisdn === msisdn) &&
        (options.state === undefined || r.state === options.state),
      { limit: options.limit },
    );
  }

  async listByState(state: PurchaseState, options: PageOptions = {}): Promise<PurchaseRecord[]> {
    return this.list((r) => r.state === state, options);
  }

  async listUnnotified(options: PageOptions = {}): Promise<PurchaseRecord[]> {
    return this.list(awaitsNotification, options, order);
  }

  async listByIdentifier(identifier: string, options: ListOptions = {}): Promise<PurchaseRecord[]> {
    return this.list(
      (r) =>
        r.intent.subscriberIdentifier === identifier &&
        (options.state === undefined || r.state === options.state),
      { limit: options.limit },
    );
  }

  async listByReference(reference: string, options: ListOptions = {}): Promise<PurchaseRecord[]> {
    return this.list(
      (r) =>
        referencesOf(r).includes(reference) && (options.state === undefined || r.state === options.state),
      { limit: options.limit },
    );
  }

  async countByState(): Promise<Record<PurchaseState, number>> {
    const counts = Object.fromEntries(PURCHASE_STATES.map((s) => [s, 0])) as Record<PurchaseState, number>;
    for (const record of this.records.values()) counts[record.state] += 1;
    return counts;
  }

  async purgeExpired({ limit = 1000 }: { limit?: number } = {}): Promise<number> {
    const now = this.clock().getTime();
    let purged = 0;
    for (const record of [...this.records.values()]) {
      if (purged >= limit) break;
      const until = expiresAt(record, this.retentionMs);
      if (until === null || until > now) continue;
      this.records.delete(record.id);
      this.keys.delete(record.idempotencyKey);
      purged += 1;
    }
    return purged;
  }

  private list(
    match: (record: PurchaseRecord) => boolean,
    { limit = DEFAULT_LIST_LIMIT, after }: PageOptions,
    sort = newestFirst,
  ): PurchaseRecord[] {
    return [...this.records.values()]
      .filter((record) => match(record) && (after === undefined || sort(after, record) < 0))
      .sort(sort)
      .slice(0, limit)
      .map(copy);
  }
}
