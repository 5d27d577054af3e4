import { parseDecimalAmount, parseMoney, MoneyFormatError, type Money } from '../../vas/money';
import { AgentConflictError, AgentInputError, AgentNotFoundError } from '../errors';
import type { Agents } from '../index';
import type { FloatBalance, FloatEntry } from '../ledger/store';
import type { Allowance, Statement } from '../float';
import type { Agent, AgentFunding, AgentLimits } from '../types';

/**
 * The operator's agent tools, shared by `/admin/agents` and `npm run cli -- agent`: the input
 * as an operator types it (money strings, MSISDNs in any usual form, local dates) checked and
 * turned into registry and float calls. Results are plain JSON; none holds a PIN hash, and a
 * one-time PIN only in the answer of the call that set it.
 */

/** `agent add` / `POST /admin/agents`. */
export interface AddAgentInput {
  msisdn?: unknown;
  name?: unknown;
  language?: unknown;
  /** A purchase-service account id: sales debit it. Exclusive with `float`. */
  account?: unknown;
  /** Sales are paid from the gateway's float for this agent. */
  float?: unknown;
  /** `BWP 500.00` (or `500.00` in the floats' currency). */
  maxSale?: unknown;
  maxDayValue?: unknown;
  maxDayCount?: unknown;
}

export interface CreditInput {
  amount?: unknown;
  reference?: unknown;
  note?: unknown;
}

export interface AgentSummary {
  agent: Agent;
  /** Float agents only. */
  float: FloatBalance | null;
}

export interface AgentDetails extends AgentSummary {
  currency: string;
  allowance: Allowance;
}

export interface CreditOutcome {
  /** False when the reference (or idempotency key) had been applied before: nothing written. */
  applied: boolean;
  entry: FloatEntry;
  balance: FloatBalance;
}

/** Whether the purchase service lists this account for the integration user. */
export type AccountCheck = (id: number) => Promise<boolean>;

const MAX_LIST = 500;

/** The purchase service could not say whether an account exists (502): nothing was registered. */
export class AccountCheckError extends Error {
  constructor(cause: string) {
    super(`could not check the account with the purchase service: ${cause}`);
    this.name = 'AccountCheckError';
  }
}

export class AgentDesk {
  constructor(
    private readonly agents: Agents,
    private readonly accountExists: AccountCheck,
  ) {}

  async add(input: AddAgentInput): Promise<{ agent: Agent; oneTimePin: string }> {
    const funding = await this.funding(input);
    const limits: AgentLimits = {};
    if (input.maxSale !== undefined) limits.maxSaleMinor = this.amount('maxSale', input.maxSale);
    if (input.maxDayValue !== undefined)
      limits.maxDayValueMinor = this.amount('maxDayValue', input.maxDayValue);
    if (input.maxDayCount !== undefined) limits.maxDayCount = wholeNumber('maxDayCount', input.maxDayCount);
    return this.agents.registry.add({
      msisdn: text('msisdn', input.msisdn),
      name: text('name', input.name),
      ...(input.language !== undefined && { language: text('language', input.language) }),
      funding,
      limits,
    });
  }

  async list(options: { limit?: unknown; offset?: unknown } = {}): Promise<AgentSummary[]> {
    const limit = options.limit === undefined ? 100 : wholeNumber('limit', options.limit, MAX_LIST);
    const offset =
      options.offset === undefined ? 0 : wholeNumber('offset', options.offset, Number.MAX_SAFE_INTEGER, 0);
    const agents = await this.agents.registry.list({ limit, offset });
    return Promise.all(agents.map((agent) => this.summary(agent)));
  }

  async show(msisdn: unknown): Promise<AgentDetails> {
    const agent = await this.agent(msisdn);
    return {
      ...(await this.summary(agent)),
      currency: this.agents.float.currency,
      allowance: await this.agents.float.allowance(agent),
    };
  }

  async disable(msisdn: unknown): Promise<Agent> {
    return this.agents.registry.disable((await this.agent(msisdn)).msisdn, 'operator');
  }

  async enable(msisdn: unknown): Promise<Agent> {
    return this.agents.registry.enable((await this.agent(msisdn)).msisdn);
  }

  async resetPin(msisdn: unknown): Promise<{ agent: Agent; oneTimePin: string }> {
    return this.agents.registry.resetPin((await this.agent(msisdn)).msisdn);
  }

  /** A float top-up; `idempotencyKey` (a client's retry key) and the reference each apply it once. */
  credit(msisdn: unknown, input: CreditInput, idempotencyKey?: string): Promise<CreditOutcome> {
    return this.write('credit', msisdn, input, idempotencyKey);
  }

  /** A signed correction with a note (`BWP -20.00`). */
  adjust(msisdn: unknown, input: CreditInput, idempotencyKey?: string): Promise<CreditOutcome> {
    return this.write('adjustment', msisdn, input, idempotencyKey);
  }

  /** `from`/`to`: local days (`2026-11-23`, `to` inclusive) or ISO times (`to` exclusive). */
  async statement(msisdn: unknown, period: { from?: unknown; to?: unknown } = {}): Promise<Statement> {
    const agent = await this.agent(msisdn);
    const zone = this.agents.float.timeZone;
    const from = period.from === undefined ? undefined : instant('from', period.from, zone, false);
    const to = period.to === undefined ? undefined : instant('to', period.to, zone, true);
    if (from && to && from >= to) throw new AgentInputError('to', 'to must be after from');
    return this.agents.float.statement(agent.msisdn, { from, to });
  }

  private async write(
    kind: 'credit' | 'adjustment',
    msisdn: unknown,
    input: CreditInput,
    idempotencyKey: string | undefined,
  ): Promise<CreditOutcome> {
    const agent = await this.agent(msisdn);
    const amount = this.money('amount', input.amount, kind === 'adjustment');
    const reference = text('reference', input.reference);
    const note = input.note === undefined ? undefined : text('note', input.note);
    const common = { amount, reference, ...(idempotencyKey !== undefined && { idempotencyKey }) };
    const { float } = this.agents;
    const result =
      kind === 'credit'
        ? await float.credit(agent, { ...common, ...(note !== undefined && { note }) })
        : await float.adjust(agent, { ...common, note: note ?? '' });
    if (result.status === 'conflict')
      throw new AgentConflictError(
        `${result.field === 'reference' ? 'reference' : 'idempotency_key'}_used`,
        result.field === 'reference'
          ? 'this reference was used for another amount on this agent'
          : 'this Idempotency-Key was used for another request',
      );
    if (result.status === 'insufficient')
      throw new AgentConflictError(
        'insufficient_float',
        `the adjustment is larger than the float (${float.format(result.availableMinor)} available)`,
      );
    return {
      applied: result.status === 'credited',
      entry: result.entry,
      balance: await float.balance(agent.msisdn),
    };
  }

  private async agent(msisdn: unknown): Promise<Agent> {
    const normalised = this.agents.registry.msisdnOf(text('msisdn', msisdn));
    const agent = await this.agents.registry.get(normalised);
    if (!agent) throw new AgentNotFoundError(normalised);
    return agent;
  }

  private async summary(agent: Agent): Promise<AgentSummary> {
    const float = agent.funding.kind === 'float' ? await this.agents.float.balance(agent.msisdn) : null;
    return { agent, float };
  }

  private async funding(input: AddAgentInput): Promise<AgentFunding> {
    const float = input.float === true || input.float === 'true';
    if (float === (input.account !== undefined))
      throw new AgentInputError('account', 'give either account (a purchase-service account id) or float');
    if (float) return { kind: 'float' };
    const id = wholeNumber('account', input.account, Number.MAX_SAFE_INTEGER);
    let exists: boolean;
    try {
      exists = await this.accountExists(id);
    } catch (error) {
      throw new AccountCheckError(error instanceof Error ? error.message : String(error));
    }
    if (!exists)
      throw new AgentInputError('account', `account ${id} is not one of the integration user's accounts`);
    return { kind: 'account', debitedAccountId: id };
  }

  /** Minor units of a positive amount in the floats' currency. */
  private amount(field: string, value: unknown): number {
    return this.money(field, value, false).minor;
  }

  private money(field: string, value: unknown, signed: boolean): Money {
    const currency = this.agents.float.currency;
    const raw = typeof value === 'number' ? String(value) : value;
    if (typeof raw !== 'string')
      throw new AgentInputError(field, `${field} must be an amount such as "${currency} 500.00"`);
    let money: Money;
    try {
      if (/^[A-Z]{3} /.test(raw.trim())) money = parseMoney(raw);
      else {
        const negative = signed && raw.trim().startsWith('-');
        const parsed = parseDecimalAmount(negative ? raw.trim().slice(1) : raw);
        if (!parsed.ok) throw new MoneyFormatError(raw, parsed.reason);
        money = { currency, minor: negative ? -parsed.minor : parsed.minor };
      }
    } catch (error) {
      if (!(error instanceof MoneyFormatError)) throw error;
      throw new AgentInputError(
        field,
        `${field} must be an amount such as "${currency} 500.00" (at most two decimals)`,
      );
    }
    if (money.currency !== currency) throw new AgentInputError(field, `${field} must be in ${currency}`);
    if (signed ? money.minor === 0 : money.minor <= 0)
      throw new AgentInputError(field, `${field} must be ${signed ? 'non-zero' : 'positive'}`);
    return money;
  }
}

function text(field: string, value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number')
    throw new AgentInputError(field, `${field} is required`);
  const s = String(value).trim();
  if (s === '') throw new AgentInputError(field, `${field} is required`);
  return s;
}

function wholeNumber(field: string, value: unknown, max = 1_000_000, min = 1): number {
  const s = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\d+$/.test(s) || Number(s) < min || Number(s) > max)
    throw new AgentInputError(field, `${field} must be a whole number from ${min} to ${max}`);
  return Number(s);
}

/** Offset of `zone` from UTC at `at` (ms). */
function zoneOffset(at: number, zone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
      .formatToParts(new Date(at))
      .map((p) => [p.type, Number(p.value)]),
  );
  return (
    Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) -
    Math.floor(at / 1000) * 1000
  );
}

/** A local day's start in `zone` (or the next day's, for an inclusive `to`), or an ISO time as given. */
function instant(field: string, value: unknown, zone: string, endOfDay: boolean): Date {
  const s = typeof value === 'string' ? value.trim() : '';
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (day) {
    const utcMidnight = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]) + (endOfDay ? 1 : 0));
    const guess = utcMidnight - zoneOffset(utcMidnight, zone);
    return new Date(utcMidnight - zoneOffset(guess, zone));
  }
  const at = Date.parse(s);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(s) || Number.isNaN(at))
    throw new AgentInputError(
      field,
      `${field} must be a day (2026-11-23) or an ISO time (2026-11-23T08:00:00Z)`,
    );
  return new Date(at);
}
