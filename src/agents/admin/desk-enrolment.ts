import { AgentInputError } from '../errors';
import type { Agents } from '../index';
import { parseCommissionPolicy } from '../commission';
import type { Agent, AgentFunding, AgentLimits } from '../types';
import { flag, moneyInput, percent, text, wholeNumber } from './desk-input';

/**
 * An operator registers an agent or an assistant: funding (an account the purchase service must
 * list, or the float), limits in money, the agent's own commission policy, its dealer.
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

export class DeskEnrolment {
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
}
