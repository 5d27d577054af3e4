import { randomBytes } from 'node:crypto';
import type { PurchaseService } from '../../vas';
import { parseCommissionPolicy } from '../commission';
import { AgentConflictError, AgentInputError, AgentNotFoundError } from '../errors';
import type { Allowance, Statement } from '../float';
import type { Agents } from '../index';
import type { Deposit, DepositDecision, DepositState, FloatBalance, FloatEntry } from '../ledger/store';
import type { Registration, RegistrationDecision, RegistrationState } from '../registrations';
import type { Agent, AgentFunding, AgentLimits } from '../types';
import { flag, instant, MAX_LIST, moneyInput, percent, text, wholeNumber } from './desk-input';

/**
 * The operator's agent tools, shared by `/admin/agents` and `npm run cli -- agent`: the input
 * as an operator types it (money strings, MSISDNs in any usual form, local dates; the rules in
 * `desk-input.ts`) checked and turned into registry, PIN and float calls. Registering agents and
 * assistants, finding and showing them with their float and network, status, the dealer flag and
 * PIN resets, an operator's credit and adjustment with the statement, and what agents and dealers
 * asked an operator to decide (deposits, dealers' registrations), each decision told through the
 * options' hooks. Results are plain JSON; none holds a PIN hash, and a one-time PIN only in the
 * answer of the call that set it.
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
  /** A retailer: its dealer's number (that agent becomes a dealer). */
  dealer?: unknown;
  /** A dealer from the start (`true`): "My retailers" on its menu before it has any. */
  isDealer?: unknown;
  /** The agent's own commission policy (`ELECTRICITY:2%,AIRTIME:3%`). */
  commission?: unknown;
  /** A dealer's share of its retailers' commission (`20%`). */
  dealerShare?: unknown;
}

/** `agent add-assistant` / `POST /admin/agents/:outlet/assistants`. */
export interface AddAssistantInput {
  agent?: unknown;
  msisdn?: unknown;
  name?: unknown;
  language?: unknown;
}

/** Whether the purchase service lists this account for the integration user. */
export type AccountCheck = (id: number) => Promise<boolean>;

/** The purchase service could not say whether an account exists (502): nothing was registered. */
export class AccountCheckError extends Error {
  constructor(cause: string) {
    super(`could not check the account with the purchase service: ${cause}`);
    this.name = 'AccountCheckError';
  }
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

/** A dealer's retailers and an outlet's assistants, each with its float and today's sales. */
export interface AgentNetwork {
  agent: Agent;
  retailers: (AgentSummary & { today: { count: number; valueMinor: number } })[];
  assistants: (AgentSummary & { today: { count: number; valueMinor: number } })[];
}

export interface CreditInput {
  amount?: unknown;
  reference?: unknown;
  note?: unknown;
}

export interface CreditOutcome {
  /** False when the reference (or idempotency key) had been applied before: nothing written. */
  applied: boolean;
  entry: FloatEntry;
  balance: FloatBalance;
}

export interface AgentDeskOptions {
  /**
   * A deposit was decided (approved or rejected; also when asked again, decided before): tell its
   * agent. Called after the decision committed; the teller sends once per deposit and decision.
   */
  onDepositDecided?(deposit: Deposit, balance: FloatBalance): Promise<void>;
  /** A dealer's retailer registration was decided (also when asked again): tell the dealer and the retailer. */
  onRegistrationDecided?(registration: Registration): Promise<void>;
}

/** `agent add --account ID`: the account must be one `GET /accounts` lists for the integration user. */
export function accountCheckFor(service: Pick<PurchaseService, 'listAccounts'>): AccountCheck {
  return async (id) => {
    const accounts = await service.listAccounts({
      requestId: `agent-admin-${randomBytes(6).toString('hex')}`,
    });
    return accounts.some((account) => account.id === id);
  };
}

export class AgentDesk {
  constructor(
    private readonly agents: Agents,
    private readonly accountExists: AccountCheck,
    private readonly options: AgentDeskOptions = {},
  ) {}

  // Registering agents and assistants: funding (an account the purchase service must list, or the
  // float), limits in money, the agent's own commission policy, its dealer.

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
      ...(input.dealer !== undefined && { dealer: text('dealer', input.dealer) }),
      ...(input.isDealer !== undefined && { isDealer: flag('isDealer', input.isDealer) }),
      ...(input.commission !== undefined && { commission: this.commissionPolicy(input.commission) }),
      ...(input.dealerShare !== undefined && { dealerShareBp: percent('dealerShare', input.dealerShare) }),
    });
  }

  /** An assistant at the outlet `agent`: its own number and one-time PIN, the outlet's float. */
  addAssistant(input: AddAssistantInput): Promise<{ agent: Agent; oneTimePin: string }> {
    return this.agents.registry.addAssistant({
      outlet: text('agent', input.agent),
      msisdn: text('msisdn', input.msisdn),
      ...(input.name !== undefined && { name: text('name', input.name) }),
      ...(input.language !== undefined && { language: text('language', input.language) }),
    });
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

  /** An agent's own commission policy, checked as `AGENT_COMMISSION` is (in the floats' currency). */
  private commissionPolicy(value: unknown): string {
    const policy = text('commission', value);
    try {
      parseCommissionPolicy(policy, this.agents.float.currency);
    } catch (error) {
      throw new AgentInputError('commission', (error as Error).message);
    }
    return policy;
  }

  /** Minor units of a positive amount in the floats' currency. */
  private amount(field: string, value: unknown): number {
    return moneyInput(field, value, false, this.agents.float.currency).minor;
  }

  // Agents and their status: find one by any usual form of its number, list, show (float and what
  // is left today), a dealer's or outlet's network, disable/enable, the dealer flag, a PIN reset.

  /** The agent an operator named: AgentInputError for no mobile number, AgentNotFoundError for no agent. */
  private async agent(msisdn: unknown): Promise<Agent> {
    const normalised = this.agents.registry.msisdnOf(text('msisdn', msisdn));
    const agent = await this.agents.registry.get(normalised);
    if (!agent) throw new AgentNotFoundError(normalised);
    return agent;
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

  /** A dealer's retailers and an outlet's assistants, with their floats and today's sales. */
  async network(msisdn: unknown): Promise<AgentNetwork> {
    const agent = await this.agent(msisdn);
    const { registry, float } = this.agents;
    const day = float.today();
    const line = async (linked: Agent) => ({
      ...(await this.summary(linked)),
      today: await float.salesOn(linked.msisdn, day),
    });
    return {
      agent,
      retailers: await Promise.all((await registry.linked('dealer', agent.msisdn)).map(line)),
      assistants: await Promise.all((await registry.linked('outlet', agent.msisdn)).map(line)),
    };
  }

  async disable(msisdn: unknown): Promise<Agent> {
    return this.agents.registry.disable((await this.agent(msisdn)).msisdn, 'operator');
  }

  async enable(msisdn: unknown): Promise<Agent> {
    return this.agents.registry.enable((await this.agent(msisdn)).msisdn);
  }

  /** Make an agent a dealer or not (`by`: the operator, logged). */
  async setDealer(msisdn: unknown, dealer: unknown, by: string): Promise<Agent> {
    const on = flag('dealer', dealer);
    return this.agents.registry.setDealer((await this.agent(msisdn)).msisdn, on, by);
  }

  async resetPin(msisdn: unknown): Promise<{ agent: Agent; oneTimePin: string }> {
    return this.agents.pins.resetPin((await this.agent(msisdn)).msisdn);
  }

  private async summary(agent: Agent): Promise<AgentSummary> {
    const float = agent.funding.kind === 'float' ? await this.agents.float.balance(agent.msisdn) : null;
    return { agent, float };
  }

  // The float: a top-up (credit), a signed correction (adjust), each applied once per reference and
  // per Idempotency-Key, and the statement over local days or ISO times.

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
    const amount = moneyInput('amount', input.amount, kind === 'adjustment', this.agents.float.currency);
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

  // What agents and dealers asked an operator to decide: bank deposits (approved: credited once,
  // with the approval) and retailers a dealer registered by USSD, each decision told through the
  // options' hooks, also when asked again, so a tell lost after the commit is sent.

  /** Bank deposits agents reported, oldest first (`state`: pending by default). */
  deposits(options: { state?: unknown; msisdn?: unknown } = {}): Promise<Deposit[]> {
    const state = stateOf(options.state);
    return this.agents.float.deposits({
      ...(state !== 'all' && { state: state as DepositState }),
      ...(options.msisdn !== undefined && {
        msisdn: this.agents.registry.msisdnOf(text('msisdn', options.msisdn)),
      }),
      limit: MAX_LIST,
    });
  }

  /** Approve (credited once, with the approval) or reject a pending deposit. */
  async decideDeposit(
    id: unknown,
    decision: 'approve' | 'reject',
    by: string,
    note?: unknown,
  ): Promise<DepositDecision> {
    const depositId = wholeNumber('id', id, Number.MAX_SAFE_INTEGER);
    const result =
      decision === 'approve'
        ? await this.agents.float.approveDeposit(depositId, by)
        : await this.agents.float.rejectDeposit(
            depositId,
            by,
            note === undefined ? null : text('note', note),
          );
    if (result.status === 'not_found') throw new AgentNotFoundError(`deposit ${depositId}`);
    // Asked again ('already'): told again under the same id, so a tell lost after the commit is sent.
    if (this.options.onDepositDecided && result.deposit.state !== 'pending')
      await this.options.onDepositDecided(
        result.deposit,
        await this.agents.float.balance(result.deposit.msisdn),
      );
    return result;
  }

  /** Retailers dealers asked to add by USSD, oldest first (`state`: pending by default). */
  registrations(options: { state?: unknown; dealer?: unknown } = {}): Promise<Registration[]> {
    const state = stateOf(options.state);
    return this.agents.registrations.list({
      ...(state !== 'all' && { state: state as RegistrationState }),
      ...(options.dealer !== undefined && {
        dealer: this.agents.registry.msisdnOf(text('dealer', options.dealer)),
      }),
    });
  }

  /** Approve (the retailer registered once, its one-time PIN in this answer only) or reject a request. */
  async decideRegistration(
    id: unknown,
    decision: 'approve' | 'reject',
    by: string,
    note?: unknown,
  ): Promise<Exclude<RegistrationDecision, { status: 'not_found' }>> {
    const registrationId = wholeNumber('id', id, Number.MAX_SAFE_INTEGER);
    const { registrations } = this.agents;
    const result =
      decision === 'approve'
        ? await registrations.approve(registrationId, by)
        : await registrations.reject(registrationId, by, note === undefined ? null : text('note', note));
    if (result.status === 'not_found') throw new AgentNotFoundError(`registration ${registrationId}`);
    // Asked again ('already'): told again under the same ids, so a tell lost after the commit is sent.
    if (this.options.onRegistrationDecided) await this.options.onRegistrationDecided(result.registration);
    return result;
  }
}

/** The list filter both request kinds take: pending (by default), approved, rejected or all. */
function stateOf(value: unknown): string {
  const state = value === undefined ? 'pending' : text('state', value);
  if (!['pending', 'approved', 'rejected', 'all'].includes(state))
    throw new AgentInputError('state', 'state must be pending, approved, rejected or all');
  return state;
}
