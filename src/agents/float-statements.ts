import type { FloatAccount } from './float-account';
import type { DayFigures, FloatBalance, FloatEntry } from './ledger/store';

/**
 * What a float did, read back: an agent's statement over a period, a local day's figures and
 * sales (the day's summary SMS), the commission earned, and who was active on a day.
 */

export interface Statement {
  msisdn: string;
  currency: string;
  from: string | null;
  to: string | null;
  /** Available balance before the first entry shown. */
  openingMinor: number;
  /** Available balance after the last entry shown. */
  closingMinor: number;
  entries: FloatEntry[];
  /** Now, whatever the period. */
  balance: FloatBalance;
  /** Σ deltaMinor of every entry ever: always equals `balance.availableMinor`. */
  derivedMinor: number;
  /** Commission: in the entries shown, and earned today and this month (local days), whatever the period. */
  commission: { periodMinor: number; todayMinor: number; monthMinor: number };
}

export class FloatStatements {
  constructor(private readonly account: FloatAccount) {}

  /** Sellers' (agents', assistants') sales that succeeded on a local day: count and value. */
  salesOn(
    msisdns: string | readonly string[],
    day = this.account.today(),
  ): Promise<{ count: number; valueMinor: number }> {
    const sellers = typeof msisdns === 'string' ? [msisdns] : msisdns;
    return this.account.store.salesOn(sellers, day, this.account.timeZone);
  }

  /** An account's local day from its entries: commission, float in and out, transfers, closing balance. */
  dayFigures(msisdn: string, day = this.account.today()): Promise<DayFigures> {
    return this.account.store.dayFigures(msisdn, day, this.account.timeZone);
  }

  /** The commission one sale earned the account (0: none, or not settled yet). */
  saleCommission(msisdn: string, purchaseKey: string): Promise<number> {
    return this.account.store.commission(msisdn, { purchaseKey });
  }

  /** Commission earned on a local day and in its month up to the end of that day (BAL, statement). */
  async commissionEarned(
    msisdn: string,
    day = this.account.today(),
  ): Promise<{ todayMinor: number; monthMinor: number }> {
    const { store, timeZone } = this.account;
    const next = nextDay(day);
    const [todayMinor, monthMinor] = await Promise.all([
      store.commission(msisdn, { from: day, to: next, timeZone }),
      store.commission(msisdn, { from: `${day.slice(0, 8)}01`, to: next, timeZone }),
    ]);
    return { todayMinor, monthMinor };
  }

  /** The float owners with an entry or a sale on a local day (the day's summary goes to them). */
  activeOn(day = this.account.today()): Promise<string[]> {
    return this.account.store.activeOn(day, this.account.timeZone);
  }

  /**
   * Entries between `from` (inclusive) and `to` (exclusive) with the balance before and after
   * them, and the balance re-derived from every entry.
   */
  async statement(msisdn: string, period: { from?: Date; to?: Date } = {}): Promise<Statement> {
    const from = period.from?.getTime() ?? -Infinity;
    const to = period.to?.getTime() ?? Infinity;
    const shown: FloatEntry[] = [];
    let opening = 0;
    let closing = 0;
    let derived = 0;
    const page = 1000;
    for (let offset = 0; ; offset += page) {
      const entries = await this.account.store.entries(msisdn, { offset, limit: page });
      for (const entry of entries) {
        derived += entry.deltaMinor;
        const at = Date.parse(entry.at);
        if (at < from) opening = entry.balanceMinor;
        if (at < to) closing = entry.balanceMinor;
        if (at >= from && at < to) shown.push(entry);
      }
      if (entries.length < page) break;
    }
    if (shown.length === 0) closing = opening;
    const [balance, earned] = await Promise.all([
      this.account.store.balance(msisdn),
      this.commissionEarned(msisdn),
    ]);
    const periodMinor = shown.reduce((sum, e) => sum + (e.kind === 'commission' ? e.amountMinor : 0), 0);
    return {
      msisdn,
      currency: this.account.currency,
      from: period.from?.toISOString() ?? null,
      to: period.to?.toISOString() ?? null,
      openingMinor: opening,
      closingMinor: closing,
      entries: shown,
      balance,
      derivedMinor: derived,
      commission: { periodMinor, ...earned },
    };
  }
}

/** The local day after `day` (YYYY-MM-DD). */
function nextDay(day: string): string {
  const at = new Date(`${day}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + 1);
  return at.toISOString().slice(0, 10);
}
