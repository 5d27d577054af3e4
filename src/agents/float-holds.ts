import { componentLogger } from '../observability/logger';
import {
  commissionOf,
  parseCommissionPolicy,
  splitCommission,
  type CommissionPolicy,
  type SaleForCommission,
} from './commission';
import { AgentInputError } from './errors';
import { checkAmount, checkKey, MAX_AMOUNT_MINOR, type FloatAccount } from './float-account';
import {
  LATE_SETTLE_NOTE,
  type CommissionWrite,
  type DayUsage,
  type LimitName,
  type OutcomeResult,
  type Reservation,
  type ReserveResult,
  type SettleSaleResult,
} from './ledger/store';
import { localDay } from './lockout';
import type { Agent, ResolvedLimits } from './types';

/**
 * A sale's hold on an agent's float and limits: checked on the amount screen, reserved before
 * the purchase is created, settled (with its commission) on success, released on a definitive
 * failure; an unknown outcome keeps its hold until reconciliation decides.
 */

const log = componentLogger('agents');

/** What is left of an agent's limits today, and its float (null for account funding). */
export interface Allowance {
  limits: ResolvedLimits;
  today: DayUsage;
  dayValueLeftMinor: number;
  dayCountLeft: number;
  availableMinor: number | null;
}

/** Why a sale cannot go ahead: a limit (named, with its value) or the float. */
export type SaleRefusal =
  | { reason: 'over_limit'; limit: LimitName; limitValue: number; used: number }
  | { reason: 'insufficient'; availableMinor: number };

export class FloatSaleHolds {
  constructor(private readonly account: FloatAccount) {}

  async allowance(agent: Agent): Promise<Allowance> {
    const { store } = this.account;
    const limits = this.account.limitsOf(agent);
    const today = await store.dayUsage(agent.msisdn, this.account.today());
    const available =
      agent.funding.kind === 'float' ? (await store.balance(agent.msisdn)).availableMinor : null;
    return {
      limits,
      today,
      dayValueLeftMinor: Math.max(0, limits.maxDayValueMinor - today.valueMinor),
      dayCountLeft: Math.max(0, limits.maxDayCount - today.count),
      availableMinor: available,
    };
  }

  /**
   * Whether a sale of `amountMinor` would be accepted now: for the amount screen, so a sale
   * beyond a limit is refused with the limit named before a quote is asked. Not a promise:
   * `reserve` decides, atomically.
   */
  async checkSale(agent: Agent, amountMinor: number): Promise<SaleRefusal | null> {
    const a = await this.allowance(agent);
    if (amountMinor > a.limits.maxSaleMinor)
      return { reason: 'over_limit', limit: 'max_sale', limitValue: a.limits.maxSaleMinor, used: 0 };
    if (a.today.valueMinor + amountMinor > a.limits.maxDayValueMinor)
      return {
        reason: 'over_limit',
        limit: 'day_value',
        limitValue: a.limits.maxDayValueMinor,
        used: a.today.valueMinor,
      };
    if (a.today.count + 1 > a.limits.maxDayCount)
      return {
        reason: 'over_limit',
        limit: 'day_count',
        limitValue: a.limits.maxDayCount,
        used: a.today.count,
      };
    if (a.availableMinor !== null && a.availableMinor < amountMinor)
      return { reason: 'insufficient', availableMinor: a.availableMinor };
    return null;
  }

  /**
   * Hold a sale's total before its purchase is created, under the purchase's idempotency key:
   * the limits are counted and (float funding) the float debited at once; a second call with
   * the same key and amount changes nothing (`duplicate`).
   */
  async reserve(agent: Agent, purchaseKey: string, amountMinor: number): Promise<ReserveResult> {
    checkKey(purchaseKey);
    checkAmount('amount', amountMinor, false);
    const at = this.account.clock();
    const result = await this.account.store.reserve(agent.msisdn, {
      purchaseKey,
      amountMinor,
      funding: agent.funding.kind,
      limits: this.account.limitsOf(agent),
      day: localDay(at, this.account.timeZone),
      at,
    });
    if (result.status === 'conflict')
      log.error('float reservation asked again with another amount', {
        msisdn: agent.msisdn,
        purchaseKey,
        held: result.reservation.amountMinor,
        asked: amountMinor,
      });
    return result;
  }

  /**
   * The sale succeeded; idempotent (`already` the second time). After a release (a success
   * found late) the float pays after all, if it covers it; `uncovered` (logged) otherwise.
   */
  async settle(msisdn: string, purchaseKey: string): Promise<OutcomeResult> {
    const result = await this.account.store.settle(msisdn, purchaseKey, this.account.clock());
    const format = (minor: number) => this.account.format(minor);
    // A success found after the reservation went back (a "no charge found" corrected later).
    if (result.status === 'settled' && result.entry?.note === LATE_SETTLE_NOTE)
      log.error('sale succeeded after its float reservation was released: taken from the float again', {
        msisdn,
        purchaseKey,
        amount: format(result.reservation.amountMinor),
      });
    else if (result.status === 'uncovered')
      log.error(
        'SALE SUCCEEDED AFTER ITS FLOAT RESERVATION WAS RELEASED AND THE FLOAT NO LONGER COVERS IT: an operator must recover it',
        {
          msisdn,
          purchaseKey,
          amount: format(result.reservation.amountMinor),
          available: format(result.availableMinor),
        },
      );
    return result;
  }

  /**
   * What a sale earns its seller (an agent selling from its float) and, for a retailer, its dealer:
   * the seller's own policy (else `AGENT_COMMISSION`), split by the dealer's share (else
   * `AGENT_DEALER_SHARE`). An agent funded by an account of its own earns nothing here: the
   * service pays its commission into that account.
   */
  commissionFor(seller: Agent, dealer: Agent | null, sale: SaleForCommission): CommissionWrite {
    if (seller.funding.kind !== 'float') return { sellerMinor: 0, dealer: null };
    const total = commissionOf(this.policyOf(seller), sale);
    const dealerBp = dealer ? (dealer.dealerShareBp ?? this.account.options.dealerShareBp ?? 0) : 0;
    const split = splitCommission(total, dealerBp);
    return {
      sellerMinor: split.seller,
      dealer: dealer && split.dealer > 0 ? { msisdn: dealer.msisdn, minor: split.dealer } : null,
      note: `${sale.productType.toLowerCase()} sale`,
    };
  }

  /** The agent's own policy, or the configured one (an unreadable own policy is logged, not used). */
  policyOf(agent: Pick<Agent, 'msisdn' | 'commission'>): CommissionPolicy {
    if (agent.commission) {
      try {
        return parseCommissionPolicy(agent.commission, this.account.currency);
      } catch (error) {
        log.error('agent commission policy unreadable: the configured one applies', {
          msisdn: agent.msisdn,
          error: (error as Error).message,
        });
      }
    }
    return this.account.options.commission ?? {};
  }

  /**
   * The sale succeeded: `settle`, and its commission credited in the same transaction, once per
   * purchase (run again: nothing more). No commission when the settle did not spend the sale
   * (`uncovered`, `not_found`).
   */
  async settleSale(
    msisdn: string,
    purchaseKey: string,
    commission: CommissionWrite,
  ): Promise<SettleSaleResult> {
    for (const minor of [commission.sellerMinor, commission.dealer?.minor ?? 0])
      if (!Number.isSafeInteger(minor) || minor < 0 || minor > MAX_AMOUNT_MINOR)
        throw new AgentInputError('commission', 'commission must be a whole amount in minor units');
    const result = await this.account.store.settleSale(msisdn, purchaseKey, this.account.clock(), commission);
    if (
      result.status === 'uncovered' ||
      (result.status === 'settled' && result.entry?.note === LATE_SETTLE_NOTE)
    )
      log.error('sale settled after its float reservation was released', {
        msisdn,
        purchaseKey,
        status: result.status,
        amount: this.account.format(result.reservation.amountMinor),
      });
    if (result.commissionMinor > 0)
      log.info('agent commission credited', {
        msisdn,
        purchaseKey,
        commission: this.account.format(result.commissionMinor),
        dealerShare: commission.dealer ? this.account.format(commission.dealer.minor) : null,
      });
    return result;
  }

  /** The sale definitively failed (never for an unknown outcome); idempotent. */
  async release(msisdn: string, purchaseKey: string): Promise<OutcomeResult> {
    const result = await this.account.store.release(msisdn, purchaseKey, this.account.clock());
    if (result.status === 'already' && result.reservation.state === 'settled')
      log.error('release asked for a settled sale: nothing released', { msisdn, purchaseKey });
    return result;
  }

  reservation(msisdn: string, purchaseKey: string): Promise<Reservation | null> {
    return this.account.store.reservation(msisdn, purchaseKey);
  }
}
