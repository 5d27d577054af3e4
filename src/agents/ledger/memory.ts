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

interface Ledger {
  available: number;
  held: number;
  entries: FloatEntry[];
  holds: Map<string, Reservation>;
  /** `ref:<reference>` / `key:<key>` → the entry's seq and what it was for. */
  refs: Map<string, { seq: number; signature: string }>;
  days: Map<string, DayUsage>;
}

/**
 * In-process float ledgers for the embedded mode: the rules of the Lua scripts in
 * `commands/`, each operation synchronous (so atomic on the event loop).
 */
export class MemoryFloatStore implements FloatStore {
  private readonly ledgers = new Map<string, Ledger>();

  private ledger(msisdn: string): Ledger {
    let ledger = this.ledgers.get(msisdn);
    if (!ledger) {
      ledger = { available: 0, held: 0, entries: [], holds: new Map(), refs: new Map(), days: new Map() };
      this.ledgers.set(msisdn, ledger);
    }
    return ledger;
  }

  private append(
    ledger: Ledger,
    fields: Pick<FloatEntry, 'kind' | 'amountMinor' | 'deltaMinor'> & Partial<FloatEntry>,
    at: Date,
  ): FloatEntry {
    const entry: FloatEntry = {
      ...fields,
      seq: ledger.entries.length + 1,
      balanceMinor: ledger.available,
      heldMinor: ledger.held,
      at: at.toISOString(),
    };
    ledger.entries.push(entry);
    return { ...entry };
  }

  async balance(msisdn: string): Promise<FloatBalance> {
    const ledger = this.ledger(msisdn);
    return { availableMinor: ledger.available, heldMinor: ledger.held, entries: ledger.entries.length };
  }

  async credit(msisdn: string, write: CreditWrite): Promise<CreditResult> {
    const ledger = this.ledger(msisdn);
    const signature = `${write.kind}|${write.amountMinor}|${write.reference}`;
    const keyed =
      write.idempotencyKey === undefined ? undefined : ledger.refs.get(`key:${write.idempotencyKey}`);
    if (keyed)
      return keyed.signature === signature
        ? { status: 'duplicate', entry: { ...ledger.entries[keyed.seq - 1] } }
        : { status: 'conflict', field: 'idempotencyKey' };
    const referenced = ledger.refs.get(`ref:${write.reference}`);
    if (referenced) {
      if (referenced.signature !== signature) return { status: 'conflict', field: 'reference' };
      if (write.idempotencyKey !== undefined) ledger.refs.set(`key:${write.idempotencyKey}`, referenced);
      return { status: 'duplicate', entry: { ...ledger.entries[referenced.seq - 1] } };
    }
    if (ledger.available + write.amountMinor < 0)
      return { status: 'insufficient', availableMinor: ledger.available };
    ledger.available += write.amountMinor;
    const entry = this.append(
      ledger,
      {
        kind: write.kind,
        amountMinor: write.amountMinor,
        deltaMinor: write.amountMinor,
        reference: write.reference,
        ...(write.note !== undefined && { note: write.note }),
      },
      write.at,
    );
    const ref = { seq: entry.seq, signature };
    ledger.refs.set(`ref:${write.reference}`, ref);
    if (write.idempotencyKey !== undefined) ledger.refs.set(`key:${write.idempotencyKey}`, ref);
    return { status: 'credited', entry };
  }

  async reserve(msisdn: string, write: ReserveWrite): Promise<ReserveResult> {
    const ledger = this.ledger(msisdn);
    const existing = ledger.holds.get(write.purchaseKey);
    if (existing)
      return {
        status: existing.amountMinor === write.amountMinor ? 'duplicate' : 'conflict',
        reservation: { ...existing },
      };
    const { limits } = write;
    const day = ledger.days.get(write.day) ?? { valueMinor: 0, count: 0 };
    if (write.amountMinor > limits.maxSaleMinor)
      return { status: 'over_limit', limit: 'max_sale', limitValue: limits.maxSaleMinor, used: 0 };
    if (day.valueMinor + write.amountMinor > limits.maxDayValueMinor)
      return {
        status: 'over_limit',
        limit: 'day_value',
        limitValue: limits.maxDayValueMinor,
        used: day.valueMinor,
      };
    if (day.count + 1 > limits.maxDayCount)
      return { status: 'over_limit', limit: 'day_count', limitValue: limits.maxDayCount, used: day.count };
    let entry: FloatEntry | null = null;
    if (write.funding === 'float') {
      if (ledger.available < write.amountMinor)
        return { status: 'insufficient', availableMinor: ledger.available };
      ledger.available -= write.amountMinor;
      ledger.held += write.amountMinor;
      entry = this.append(
        ledger,
        {
          kind: 'reserve',
          amountMinor: write.amountMinor,
          deltaMinor: -write.amountMinor,
          purchaseKey: write.purchaseKey,
        },
        write.at,
      );
    }
    ledger.days.set(write.day, { valueMinor: day.valueMinor + write.amountMinor, count: day.count + 1 });
    const reservation: Reservation = {
      purchaseKey: write.purchaseKey,
      amountMinor: write.amountMinor,
      state: 'held',
      day: write.day,
      funding: write.funding,
    };
    ledger.holds.set(write.purchaseKey, reservation);
    return { status: 'reserved', reservation: { ...reservation }, entry };
  }

  async settle(msisdn: string, purchaseKey: string, at: Date): Promise<OutcomeResult> {
    return this.close(msisdn, purchaseKey, 'settled', at);
  }

  async release(msisdn: string, purchaseKey: string, at: Date): Promise<OutcomeResult> {
    return this.close(msisdn, purchaseKey, 'released', at);
  }

  private close(msisdn: string, purchaseKey: string, to: 'settled' | 'released', at: Date): OutcomeResult {
    const ledger = this.ledger(msisdn);
    const hold = ledger.holds.get(purchaseKey);
    if (!hold) return { status: 'not_found' };
    if (to === 'settled' && hold.state === 'released') return this.settleAfterRelease(ledger, hold, at);
    if (hold.state !== 'held') return { status: 'already', reservation: { ...hold } };
    hold.state = to;
    const amount = hold.amountMinor;
    if (to === 'released') {
      const day = ledger.days.get(hold.day);
      if (day) ledger.days.set(hold.day, { valueMinor: day.valueMinor - amount, count: day.count - 1 });
    }
    let entry: FloatEntry | null = null;
    if (hold.funding === 'float') {
      ledger.held -= amount;
      if (to === 'released') ledger.available += amount;
      entry = this.append(
        ledger,
        {
          kind: to === 'settled' ? 'settle' : 'release',
          amountMinor: amount,
          deltaMinor: to === 'settled' ? 0 : amount,
          purchaseKey,
        },
        at,
      );
    }
    return { status: to, reservation: { ...hold }, entry };
  }

  /** A success found after the release: the float pays after all, if it covers it. */
  private settleAfterRelease(ledger: Ledger, hold: Reservation, at: Date): OutcomeResult {
    const amount = hold.amountMinor;
    if (hold.funding === 'float' && ledger.available < amount)
      return { status: 'uncovered', reservation: { ...hold }, availableMinor: ledger.available };
    const day = ledger.days.get(hold.day) ?? { valueMinor: 0, count: 0 };
    ledger.days.set(hold.day, { valueMinor: day.valueMinor + amount, count: day.count + 1 });
    hold.state = 'settled';
    let entry: FloatEntry | null = null;
    if (hold.funding === 'float') {
      ledger.available -= amount;
      entry = this.append(
        ledger,
        {
          kind: 'settle',
          amountMinor: amount,
          deltaMinor: -amount,
          purchaseKey: hold.purchaseKey,
          note: LATE_SETTLE_NOTE,
        },
        at,
      );
    }
    return { status: 'settled', reservation: { ...hold }, entry };
  }

  async reservation(msisdn: string, purchaseKey: string): Promise<Reservation | null> {
    const hold = this.ledgers.get(msisdn)?.holds.get(purchaseKey);
    return hold ? { ...hold } : null;
  }

  async entries(msisdn: string, options: { offset?: number; limit?: number } = {}): Promise<FloatEntry[]> {
    const offset = options.offset ?? 0;
    const all = this.ledgers.get(msisdn)?.entries ?? [];
    return all.slice(offset, offset + (options.limit ?? DEFAULT_ENTRY_PAGE)).map((e) => ({ ...e }));
  }

  async dayUsage(msisdn: string, day: string): Promise<DayUsage> {
    return { ...(this.ledgers.get(msisdn)?.days.get(day) ?? { valueMinor: 0, count: 0 }) };
  }
}
