import { componentLogger } from '../observability/logger';
import { formatMoney, type Money } from '../vas/money';
import { AgentConflictError, AgentInputError } from './errors';
import {
  LATE_SETTLE_NOTE,
  type CreditResult,
  type DayUsage,
  type FloatBalance,
  type FloatEntry,
  type FloatStore,
  type LimitName,
  type OutcomeResult,
  type Reservation,
  type ReserveResult,
} from './ledger/store';
import { localDay } from './lockout';
import type { Agent, ResolvedLimits } from './types';

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
}

/**
 * The agents' float and daily limits: the API a sale uses (check on the amount screen,
 * reserve before the purchase is created, settle on success, release on a definitive
 * failure; an unknown outcome keeps its reservation until reconciliation decides) and the
 * one operators use (credit, adjust, statement). Amounts are exact integer minor units.
 */
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

  balance(msisdn: string): Promise<FloatBalance> {
    return this.store.balance(msisdn);
  }

  money(minor: number): Money {
    return { currency: this.currency, minor };
  }

  async allowance(agent: Agent): Promise<Allowance> {
    const limits = this.limitsOf(agent);
    const today = await this.store.dayUsage(agent.msisdn, this.today());
    const available =
      agent.funding.kind === 'float' ? (await this.store.balance(agent.msisdn)).availableMinor : null;
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
      day: localDay(at, this.options.timeZone),
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
    // A success found after the reservation went back (a "no charge found" corrected later).
    if (result.status === 'settled' && result.entry?.note === LATE_SETTLE_NOTE)
      log.error('sale succeeded after its float reservation was released: taken from the float again', {
        msisdn,
        purchaseKey,
        amount: this.format(result.reservation.amountMinor),
      });
    else if (result.status === 'uncovered')
      log.error(
        'SALE SUCCEEDED AFTER ITS FLOAT RESERVATION WAS RELEASED AND THE FLOAT NO LONGER COVERS IT: an operator must recover it',
        {
          msisdn,
          purchaseKey,
          amount: this.format(result.reservation.amountMinor),
          available: this.format(result.availableMinor),
        },
      );
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

  /** An operator's top-up of a float agent, applied once per reference and per idempotency key. */
  credit(
    agent: Agent,
    input: { amount: Money; reference: string; idempotencyKey?: string; note?: string },
  ): Promise<CreditResult> {
    this.checkCurrency(input.amount);
    checkAmount('amount', input.amount.minor, false);
    return this.write(agent, 'credit', input);
  }

  /** An operator's correction (signed, with a note saying why), applied once per reference. */
  adjust(
    agent: Agent,
    input: { amount: Money; reference: string; idempotencyKey?: string; note: string },
  ): Promise<CreditResult> {
    this.checkCurrency(input.amount);
    checkAmount('amount', input.amount.minor, true);
    if (typeof input.note !== 'string' || input.note.trim() === '')
      throw new AgentInputError('note', 'an adjustment needs a note saying why');
    return this.write(agent, 'adjustment', input);
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
    const balance = await this.store.balance(msisdn);
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
    };
  }

  /** `BWP 12.50`: how screens, SMS and the CLI show float amounts. */
  format(minor: number): string {
    return formatMoney(this.money(minor));
  }

  private async write(
    agent: Agent,
    kind: 'credit' | 'adjustment',
    input: { amount: Money; reference: string; idempotencyKey?: string; note?: string },
  ): Promise<CreditResult> {
    if (agent.funding.kind !== 'float')
      throw new AgentConflictError(
        'not_float',
        'the agent sells from its own account: it has no float to credit',
      );
    const reference = typeof input.reference === 'string' ? input.reference.trim() : '';
    if (!/^[\x20-\x7e]{1,64}$/.test(reference))
      throw new AgentInputError('reference', `reference must be 1 to ${MAX_REFERENCE} printable characters`);
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

  private checkCurrency(amount: Money): void {
    if (amount.currency !== this.currency)
      throw new AgentInputError('amount', `amount must be in ${this.currency}, the floats' currency`);
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

function checkKey(key: string, field = 'purchaseKey'): void {
  if (typeof key !== 'string' || key === '' || key.length > MAX_KEY)
    throw new AgentInputError(field, `${field} must be 1 to ${MAX_KEY} characters`);
}
