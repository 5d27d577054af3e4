import { componentLogger } from '../observability/logger';
import { formatMoney, type Money } from '../vas/money';
import {
  commissionOf,
  parseCommissionPolicy,
  splitCommission,
  type CommissionPolicy,
  type SaleForCommission,
} from './commission';
import { AgentConflictError, AgentInputError } from './errors';
import {
  LATE_SETTLE_NOTE,
  type CommissionWrite,
  type CreditResult,
  type DayFigures,
  type DayUsage,
  type Deposit,
  type DepositDecision,
  type DepositState,
  type FloatBalance,
  type FloatEntry,
  type FloatStore,
  type LimitName,
  type OutcomeResult,
  type Reservation,
  type ReserveResult,
  type SettleSaleResult,
  type TransferResult,
} from './ledger/store';
import { localDay } from './lockout';
import type { Agent, ResolvedLimits } from './types';

/**
 * The agents' float and daily limits, one class for every caller: a sale's hold (checked on the
 * amount screen, reserved before the purchase is created, settled with its commission on success,
 * released on a definitive failure; an unknown outcome keeps its hold until reconciliation
 * decides), the money in (an operator's credit and adjustment, the agent's paid top-up, bank
 * deposits, a dealer's transfer; each applied once per reference) and what operators and the
 * day's summary read back (statement, day figures, commission). Amounts are exact integer minor
 * units; every input is checked before anything is written. The ledger itself is `ledger/`.
 */

const log = componentLogger('agents');

/** Largest amount one operation takes (10 billion in major units): sums stay exact integers. */
export const MAX_AMOUNT_MINOR = 1_000_000_000_000;
const MAX_REFERENCE = 64;
const MAX_NOTE = 200;
const MAX_KEY = 200;

export interface AgentFloatOptions {
  store: FloatStore;
  /** Currency of every float (ISO 4217). */
  currency: string;
  /** The configured limits, overridden per agent. */
  defaults: ResolvedLimits;
  /** Zone of the local day the day's limits count in. */
  timeZone: string;
  /** `AGENT_COMMISSION`: what a sale earns unless the agent's own policy says (absent: nothing). */
  commission?: CommissionPolicy;
  /** `AGENT_DEALER_SHARE`: a dealer's share of its retailers' commission, basis points (absent: 0). */
  dealerShareBp?: number;
  clock?: () => Date;
}

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

/** An operator's or the agent's write to a float: reference, note and key checked, once per reference. */
export interface FloatCreditInput {
  amount: Money;
  reference: string;
  idempotencyKey?: string;
  note?: string;
}

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

export class AgentFloat {
  readonly currency: string;
  /** Zone of the local days limits and statements count in. */
  readonly timeZone: string;
  private readonly store: FloatStore;
  private readonly clock: () => Date;

  constructor(private readonly options: AgentFloatOptions) {
    this.store = options.store;
    this.currency = options.currency;
    this.timeZone = options.timeZone;
    this.clock = options.clock ?? (() => new Date());
  }

  // The account: limits, local day, amounts.

  /** The agent's limits: its overrides over the configured defaults. */
  limitsOf(agent: Pick<Agent, 'limits'>): ResolvedLimits {
    const d = this.options.defaults;
    return {
      maxSaleMinor: agent.limits.maxSaleMinor ?? d.maxSaleMinor,
      maxDayValueMinor: agent.limits.maxDayValueMinor ?? d.maxDayValueMinor,
      maxDayCount: agent.limits.maxDayCount ?? d.maxDayCount,
    };
  }

  /** The local day now (`YYYY-MM-DD`) in the configured zone. */
  today(): string {
    return localDay(this.clock(), this.options.timeZone);
  }

  money(minor: number): Money {
    return { currency: this.currency, minor };
  }

  /** `BWP 12.50`: how screens, SMS and the CLI show float amounts. */
  format(minor: number): string {
    return formatMoney(this.money(minor));
  }

  private checkCurrency(amount: Money): void {
    if (amount.currency !== this.currency)
      throw new AgentInputError('amount', `amount must be in ${this.currency}, the floats' currency`);
  }

  balance(msisdn: string): Promise<FloatBalance> {
    return this.store.balance(msisdn);
  }

  // A sale's hold.

  async allowance(agent: Agent): Promise<Allowance> {
    const { store } = this;
    const limits = this.limitsOf(agent);
    const today = await store.dayUsage(agent.msisdn, this.today());
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
    const at = this.clock();
    const result = await this.store.reserve(agent.msisdn, {
      purchaseKey,
      amountMinor,
      funding: agent.funding.kind,
      limits: this.limitsOf(agent),
      day: localDay(at, this.timeZone),
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
    const result = await this.store.settle(msisdn, purchaseKey, this.clock());
    const format = (minor: number) => this.format(minor);
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
    const dealerBp = dealer ? (dealer.dealerShareBp ?? this.options.dealerShareBp ?? 0) : 0;
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
        return parseCommissionPolicy(agent.commission, this.currency);
      } catch (error) {
        log.error('agent commission policy unreadable: the configured one applies', {
          msisdn: agent.msisdn,
          error: (error as Error).message,
        });
      }
    }
    return this.options.commission ?? {};
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
    const result = await this.store.settleSale(msisdn, purchaseKey, this.clock(), commission);
    if (
      result.status === 'uncovered' ||
      (result.status === 'settled' && result.entry?.note === LATE_SETTLE_NOTE)
    )
      log.error('sale settled after its float reservation was released', {
        msisdn,
        purchaseKey,
        status: result.status,
        amount: this.format(result.reservation.amountMinor),
      });
    if (result.commissionMinor > 0)
      log.info('agent commission credited', {
        msisdn,
        purchaseKey,
        commission: this.format(result.commissionMinor),
        dealerShare: commission.dealer ? this.format(commission.dealer.minor) : null,
      });
    return result;
  }

  /** The sale definitively failed (never for an unknown outcome); idempotent. */
  async release(msisdn: string, purchaseKey: string): Promise<OutcomeResult> {
    const result = await this.store.release(msisdn, purchaseKey, this.clock());
    if (result.status === 'already' && result.reservation.state === 'settled')
      log.error('release asked for a settled sale: nothing released', { msisdn, purchaseKey });
    return result;
  }

  reservation(msisdn: string, purchaseKey: string): Promise<Reservation | null> {
    return this.store.reservation(msisdn, purchaseKey);
  }

  // Money into and between floats.

  /**
   * A dealer moves float to one of its retailers: both entries in one transaction, never more
   * than the dealer's float, never to an agent that is not its retailer, once per `reference`.
   */
  async transfer(
    dealer: Agent,
    retailerMsisdn: string,
    amountMinor: number,
    reference: string,
  ): Promise<TransferResult> {
    checkAmount('amount', amountMinor, false);
    checkReference(reference);
    const result = await this.store.transfer(
      dealer.msisdn,
      retailerMsisdn,
      amountMinor,
      reference,
      this.clock(),
    );
    if (result.status === 'transferred')
      log.info('dealer float transferred', {
        dealer: dealer.msisdn,
        retailer: retailerMsisdn,
        amount: this.format(amountMinor),
        reference,
      });
    return result;
  }

  /**
   * The agent's own top-up, paid through the payment provider: credited once per the provider's
   * reference (the same reference again: `duplicate`, nothing written). Call it once the payment
   * is known successful, never before.
   */
  creditTopUp(agent: Agent, amount: Money, paymentReference: string): Promise<CreditResult> {
    this.checkCurrency(amount);
    checkAmount('amount', amount.minor, false);
    return this.write(agent, 'topup', {
      amount,
      reference: `topup:${paymentReference}`,
      note: 'paid by the agent',
    });
  }

  /** A bank deposit the agent reports: pending until an operator decides; null when its reference was reported before. */
  reportDeposit(agent: Agent, amount: Money, bankReference: string): Promise<Deposit | null> {
    this.checkCurrency(amount);
    checkAmount('amount', amount.minor, false);
    if (agent.funding.kind !== 'float')
      throw new AgentConflictError('not_float', 'the agent sells from its own account: it has no float');
    const reference = bankReference.trim().toUpperCase();
    checkReference(`deposit:${reference}`);
    return this.store.reportDeposit(agent.msisdn, amount.minor, reference, this.clock());
  }

  deposit(id: number): Promise<Deposit | null> {
    return this.store.deposit(id);
  }

  deposits(options: { state?: DepositState; msisdn?: string; limit?: number } = {}): Promise<Deposit[]> {
    return this.store.deposits(options);
  }

  depositByReference(bankReference: string): Promise<Deposit | null> {
    return this.store.depositByReference(bankReference.trim().toUpperCase());
  }

  /** An operator approves a pending deposit: credited in the same transaction, once. */
  async approveDeposit(id: number, by: string): Promise<DepositDecision> {
    const decision = await this.store.approveDeposit(id, by, this.clock());
    if (decision.status === 'approved')
      log.info('agent bank deposit approved', {
        msisdn: decision.deposit.msisdn,
        amount: this.format(decision.deposit.amountMinor),
        id,
        by,
      });
    return decision;
  }

  rejectDeposit(id: number, by: string, note: string | null): Promise<DepositDecision> {
    return this.store.rejectDeposit(id, by, this.clock(), note);
  }

  /** An operator's top-up of a float agent, applied once per reference and per idempotency key. */
  credit(agent: Agent, input: FloatCreditInput): Promise<CreditResult> {
    this.checkCurrency(input.amount);
    checkAmount('amount', input.amount.minor, false);
    return this.write(agent, 'credit', input);
  }

  /** An operator's correction (signed, with a note saying why), applied once per reference. */
  adjust(agent: Agent, input: FloatCreditInput & { note: string }): Promise<CreditResult> {
    this.checkCurrency(input.amount);
    checkAmount('amount', input.amount.minor, true);
    if (typeof input.note !== 'string' || input.note.trim() === '')
      throw new AgentInputError('note', 'an adjustment needs a note saying why');
    return this.write(agent, 'adjustment', input);
  }

  private async write(
    agent: Agent,
    kind: 'credit' | 'adjustment' | 'topup',
    input: FloatCreditInput,
  ): Promise<CreditResult> {
    if (agent.funding.kind !== 'float')
      throw new AgentConflictError(
        'not_float',
        'the agent sells from its own account: it has no float to credit',
      );
    const reference = typeof input.reference === 'string' ? input.reference.trim() : '';
    checkReference(reference);
    const note = input.note?.trim();
    if (note !== undefined && note.length > MAX_NOTE)
      throw new AgentInputError('note', `note must be at most ${MAX_NOTE} characters`);
    if (input.idempotencyKey !== undefined) checkKey(input.idempotencyKey, 'idempotencyKey');
    const result = await this.store.credit(agent.msisdn, {
      kind,
      amountMinor: input.amount.minor,
      reference,
      ...(input.idempotencyKey !== undefined && { idempotencyKey: input.idempotencyKey }),
      ...(note !== undefined && note !== '' && { note }),
      at: this.clock(),
    });
    if (result.status === 'credited')
      log.info(`agent float ${kind}`, {
        msisdn: agent.msisdn,
        amount: this.format(input.amount.minor),
        reference,
        seq: result.entry.seq,
      });
    return result;
  }

  // What the float did, read back.

  /** Sellers' (agents', assistants') sales that succeeded on a local day: count and value. */
  salesOn(
    msisdns: string | readonly string[],
    day = this.today(),
  ): Promise<{ count: number; valueMinor: number }> {
    const sellers = typeof msisdns === 'string' ? [msisdns] : msisdns;
    return this.store.salesOn(sellers, day, this.timeZone);
  }

  /** An account's local day from its entries: commission, float in and out, transfers, closing balance. */
  dayFigures(msisdn: string, day = this.today()): Promise<DayFigures> {
    return this.store.dayFigures(msisdn, day, this.timeZone);
  }

  /** The commission one sale earned the account (0: none, or not settled yet). */
  saleCommission(msisdn: string, purchaseKey: string): Promise<number> {
    return this.store.commission(msisdn, { purchaseKey });
  }

  /** Commission earned on a local day and in its month up to the end of that day (BAL, statement). */
  async commissionEarned(
    msisdn: string,
    day = this.today(),
  ): Promise<{ todayMinor: number; monthMinor: number }> {
    const { store, timeZone } = this;
    const next = nextDay(day);
    const [todayMinor, monthMinor] = await Promise.all([
      store.commission(msisdn, { from: day, to: next, timeZone }),
      store.commission(msisdn, { from: `${day.slice(0, 8)}01`, to: next, timeZone }),
    ]);
    return { todayMinor, monthMinor };
  }

  /** The float owners with an entry or a sale on a local day (the day's summary goes to them). */
  activeOn(day = this.today()): Promise<string[]> {
    return this.store.activeOn(day, this.timeZone);
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
      const entries = await this.store.entries(msisdn, { offset, limit: page });
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
    const [balance, earned] = await Promise.all([this.store.balance(msisdn), this.commissionEarned(msisdn)]);
    const periodMinor = shown.reduce((sum, e) => sum + (e.kind === 'commission' ? e.amountMinor : 0), 0);
    return {
      msisdn,
      currency: this.currency,
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

function checkAmount(field: string, minor: number, signed: boolean): void {
  const ok =
    Number.isSafeInteger(minor) && Math.abs(minor) <= MAX_AMOUNT_MINOR && (signed ? minor !== 0 : minor > 0);
  if (!ok)
    throw new AgentInputError(
      field,
      `${field} must be ${signed ? 'a non-zero' : 'a positive'} amount in minor units`,
    );
}

function checkReference(reference: string): void {
  if (!/^[\x20-\x7e]{1,64}$/.test(reference))
    throw new AgentInputError('reference', `reference must be 1 to ${MAX_REFERENCE} printable characters`);
}

function checkKey(key: string, field = 'purchaseKey'): void {
  if (typeof key !== 'string' || key === '' || key.length > MAX_KEY)
    throw new AgentInputError(field, `${field} must be 1 to ${MAX_KEY} characters`);
}

/** The local day after `day` (YYYY-MM-DD). */
function nextDay(day: string): string {
  const at = new Date(`${day}T00:00:00Z`);
  at.setUTCDate(at.getUTCDate() + 1);
  return at.toISOString().slice(0, 10);
}
