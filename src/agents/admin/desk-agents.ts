import { AgentNotFoundError } from '../errors';
import type { Agents } from '../index';
import type { Allowance } from '../float';
import type { FloatBalance } from '../ledger/store';
import type { Agent } from '../types';
import { flag, MAX_LIST, text, wholeNumber } from './desk-input';

/**
 * The operator's view of agents and their status: find one by any usual form of its number,
 * list, show (float and what is left today), a dealer's or outlet's network, disable/enable,
 * the dealer flag and a PIN reset.
 */

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

export class DeskAgents {
  constructor(private readonly agents: Agents) {}

  /** The agent an operator named: AgentInputError for no mobile number, AgentNotFoundError for no agent. */
  async agent(msisdn: unknown): Promise<Agent> {
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
}
