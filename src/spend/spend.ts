import { componentLogger, maskMsisdn } from '../observability/logger';
import type { SpendClaim } from '../purchases/store/store';
import type { PurchaseIntent } from '../purchases/types';
import type { Money } from '../vas/money';
import type { ProductType } from '../vas/port';
import {
  checkAmount,
  localDay,
  nextDay,
  SpendRefusedError,
  type SpendRefusal,
  type SpendRules,
} from './rules';
import type { SpendStore } from './store';

const log = componentLogger('spend');

/**
 * The operator's spending rules, the same for every channel: an amount range per product, a
 * blocklist of numbers and identifiers, and per-number daily limits (value and count, local day)
 * counted atomically.
 *
 * The primitives (`checkAmount`, `isBlocked`, `reserveDaily`, `release`) are what a channel
 * calls; `check` (before a quote, nothing counted) and `reserve` (at the hand-over to the desk,
 * once per purchase key, throwing SpendRefusedError) combine them for a whole intent.
 */
export class Spend {
  constructor(
    readonly store: SpendStore,
    readonly rules: SpendRules,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The product's amount range: why `amount` is refused, or null. Pure, no I/O. */
  checkAmount(product: ProductType, amount: Money): SpendRefusal | null {
    return checkAmount(this.rules, product, amount);
  }

  /** Whether any of these numbers (E.164 digits) or the identifier is on the blocklist. */
  async isBlocked(who: { msisdns: readonly string[]; identifier?: string }): Promise<boolean> {
    return this.store.anyBlocked(who);
  }

  /**
   * Count `amount` against `msisdn`'s local day under `intentKey`, atomically: null when counted
   * (or counted before under that key: a retried hop or job counts once), else the refusal,
   * which names the limit and the day it resets.
   */
  async reserveDaily(
    msisdn: string,
    amount: Money,
    intentKey: string,
    blocked?: { msisdns: readonly string[]; identifier?: string },
  ): Promise<SpendRefusal | null> {
    const day = this.today();
    const result = await this.store.reserve(msisdn, day, intentKey, amount.minor, this.rules.daily, blocked);
    if (result.status === 'counted') return null;
    if (result.status === 'blocked') return { code: 'spend_blocked' };
    log.warn('daily spending limit reached', { msisdn: maskMsisdn(msisdn), limit: result.limit });
    return this.overDaily(amount.currency, result.limit, day);
  }

  /**
   * Give back what `reserveDaily` counted under `intentKey` (a purchase that failed without a
   * charge). `reservedAt` is when it was counted (the purchase's creation): its local day is
   * the one given back. True when something was given back.
   */
  async release(msisdn: string, intentKey: string, reservedAt: Date): Promise<boolean> {
    return this.store.release(msisdn, localDay(reservedAt, this.rules.timeZone), intentKey);
  }

  /** Why `intent` would be refused now (nothing counted), or null. */
  async check(intent: PurchaseIntent): Promise<SpendRefusal | null> {
    const range = this.checkAmount(intent.productType, intent.amount);
    if (range) return range;
    const day = this.today();
    // The blocklist and the day's usage in one statement: one commit on the quote hop.
    const { blocked, usage } = await this.store.standing(this.who(intent), this.payer(intent), day);
    if (blocked) return { code: 'spend_blocked' };
    const { maxValueMinor, maxCount } = this.rules.daily;
    const over =
      usage.valueMinor + intent.amount.minor > maxValueMinor
        ? 'value'
        : usage.count + 1 > maxCount
          ? 'count'
          : null;
    return over === null ? null : this.overDaily(intent.amount.currency, over, day);
  }

  /** Count `intent` against its number's day under `purchaseKey`; throws SpendRefusedError. */
  async reserve(intent: PurchaseIntent, purchaseKey: string): Promise<void> {
    const range = this.checkAmount(intent.productType, intent.amount);
    if (range) throw new SpendRefusedError(range);
    // The blocklist is asked by the reservation's own statement (one commit).
    const refusal = await this.reserveDaily(this.payer(intent), intent.amount, purchaseKey, this.who(intent));
    if (refusal) throw new SpendRefusedError(refusal);
  }

  /**
   * What a new purchase of `intent` counts, for the purchase store to write with it in one
   * statement (`PurchaseStore.create`); throws SpendRefusedError for an amount out of range.
   * The store's refusal is turned into the rules' by {@link refusedError}.
   */
  claim(intent: PurchaseIntent): SpendClaim {
    const range = this.checkAmount(intent.productType, intent.amount);
    if (range) throw new SpendRefusedError(range);
    const who = this.who(intent);
    return {
      msisdn: this.payer(intent),
      day: this.today(),
      amountMinor: intent.amount.minor,
      maxValueMinor: this.rules.daily.maxValueMinor,
      maxCount: this.rules.daily.maxCount,
      blockedMsisdns: [...new Set(who.msisdns)],
      identifier: who.identifier ?? null,
    };
  }

  /** The records refused `claim` (`SpendClaimRefusedError`): the rules' error, naming why. */
  refusedError(
    claim: SpendClaim,
    currency: string,
    refusal: 'blocked' | 'value' | 'count',
  ): SpendRefusedError {
    if (refusal === 'blocked') return new SpendRefusedError({ code: 'spend_blocked' });
    log.warn('daily spending limit reached', { msisdn: maskMsisdn(claim.msisdn), limit: refusal });
    return new SpendRefusedError(this.overDaily(currency, refusal, claim.day));
  }

  /** The number whose day it counts against: the subscriber who asked, or an agent's customer. */
  private payer(intent: PurchaseIntent): string {
    return intent.agent ? intent.beneficiaryMsisdn : intent.requesterMsisdn;
  }

  private today(): string {
    return localDay(this.clock(), this.rules.timeZone);
  }

  private overDaily(currency: string, limit: 'value' | 'count', day: string): SpendRefusal {
    const resetsOn = nextDay(day);
    return limit === 'value'
      ? { code: 'spend_daily_value', limit: { currency, minor: this.rules.daily.maxValueMinor }, resetsOn }
      : { code: 'spend_daily_count', count: this.rules.daily.maxCount, resetsOn };
  }

  /** Who a sale's blocklist check names: requester, beneficiary and the identifier. */
  private who(intent: PurchaseIntent): { msisdns: readonly string[]; identifier?: string } {
    return {
      msisdns: [intent.requesterMsisdn, intent.beneficiaryMsisdn],
      identifier: intent.subscriberIdentifier,
    };
  }
}
