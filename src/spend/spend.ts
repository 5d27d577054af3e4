import { componentLogger, maskMsisdn } from '../observability/logger';
import type { PurchaseIntent } from '../purchases/types';
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
 * counted atomically. `check` answers before a quote (nothing counted); `reserve` counts at the
 * hand-over to the desk, once per purchase key, and refuses by throwing.
 */
export class Spend {
  constructor(
    readonly store: SpendStore,
    readonly rules: SpendRules,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The number whose day it counts against: the subscriber who asked, or an agent's customer. */
  private payer(intent: PurchaseIntent): string {
    return intent.agent ? intent.beneficiaryMsisdn : intent.requesterMsisdn;
  }

  private today(): string {
    return localDay(this.clock(), this.rules.timeZone);
  }

  /** Why `intent` would be refused now (nothing counted), or null. */
  async check(intent: PurchaseIntent): Promise<SpendRefusal | null> {
    const range = checkAmount(this.rules, intent.productType, intent.amount);
    if (range) return range;
    if (await this.blocked(intent)) return { code: 'spend_blocked' };
    const day = this.today();
    const usage = await this.store.usage(this.payer(intent), day);
    return this.overDaily(
      intent,
      usage.valueMinor + intent.amount.minor > this.rules.daily.maxValueMinor
        ? 'value'
        : usage.count + 1 > this.rules.daily.maxCount
          ? 'count'
          : null,
      day,
    );
  }

  /** Count `intent` against its number's day under `purchaseKey`; throws SpendRefusedError. */
  async reserve(intent: PurchaseIntent, purchaseKey: string): Promise<void> {
    const range = checkAmount(this.rules, intent.productType, intent.amount);
    if (range) throw new SpendRefusedError(range);
    if (await this.blocked(intent)) throw new SpendRefusedError({ code: 'spend_blocked' });
    const day = this.today();
    const result = await this.store.reserve(
      this.payer(intent),
      day,
      purchaseKey,
      intent.amount.minor,
      this.rules.daily,
    );
    if (result.status === 'over') {
      log.warn('daily spending limit reached', {
        msisdn: maskMsisdn(this.payer(intent)),
        limit: result.limit,
      });
      throw new SpendRefusedError(this.overDaily(intent, result.limit, day)!);
    }
  }

  private overDaily(
    intent: PurchaseIntent,
    limit: 'value' | 'count' | null,
    day: string,
  ): SpendRefusal | null {
    if (limit === null) return null;
    const resetsOn = nextDay(day);
    return limit === 'value'
      ? {
          code: 'spend_daily_value',
          limit: { currency: intent.amount.currency, minor: this.rules.daily.maxValueMinor },
          resetsOn,
        }
      : { code: 'spend_daily_count', count: this.rules.daily.maxCount, resetsOn };
  }

  private async blocked(intent: PurchaseIntent): Promise<boolean> {
    const [requester, beneficiary, identifier] = await Promise.all([
      this.store.isBlocked('msisdn', intent.requesterMsisdn),
      this.store.isBlocked('msisdn', intent.beneficiaryMsisdn),
      this.store.isBlocked('identifier', intent.subscriberIdentifier),
    ]);
    return requester || beneficiary || identifier;
  }
}
