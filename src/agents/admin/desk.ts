import type { Agents } from '../index';
import type { Statement } from '../float';
import type { Deposit, DepositDecision } from '../ledger/store';
import type { Registration, RegistrationDecision } from '../registrations';
import type { Agent } from '../types';
import { DeskAgents, type AgentDetails, type AgentNetwork, type AgentSummary } from './desk-agents';
import {
  DeskEnrolment,
  type AccountCheck,
  type AddAgentInput,
  type AddAssistantInput,
} from './desk-enrolment';
import { DeskFloat, type CreditInput, type CreditOutcome } from './desk-float';
import { DeskRequests, type AgentDeskOptions } from './desk-requests';

export type { AgentDetails, AgentNetwork, AgentSummary } from './desk-agents';
export { AccountCheckError, type AccountCheck } from './desk-enrolment';
export type { AddAgentInput, AddAssistantInput } from './desk-enrolment';
export type { CreditInput, CreditOutcome } from './desk-float';
export type { AgentDeskOptions } from './desk-requests';

/**
 * The operator's agent tools, shared by `/admin/agents` and `npm run cli -- agent`: the input
 * as an operator types it (money strings, MSISDNs in any usual form, local dates) checked and
 * turned into registry and float calls. Results are plain JSON; none holds a PIN hash, and a
 * one-time PIN only in the answer of the call that set it. Each action family is written in its
 * own module: `desk-enrolment.ts`, `desk-agents.ts`, `desk-float.ts`, `desk-requests.ts`, with
 * the input rules in `desk-input.ts`.
 */
export class AgentDesk {
  private readonly enrolment: DeskEnrolment;
  private readonly found: DeskAgents;
  private readonly float: DeskFloat;
  private readonly requests: DeskRequests;

  constructor(agents: Agents, accountExists: AccountCheck, options: AgentDeskOptions = {}) {
    this.enrolment = new DeskEnrolment(agents, accountExists);
    this.found = new DeskAgents(agents);
    this.float = new DeskFloat(agents, this.found);
    this.requests = new DeskRequests(agents, options);
  }

  // Registering agents and assistants (desk-enrolment.ts).

  add(input: AddAgentInput): Promise<{ agent: Agent; oneTimePin: string }> {
    return this.enrolment.add(input);
  }
  addAssistant(input: AddAssistantInput): Promise<{ agent: Agent; oneTimePin: string }> {
    return this.enrolment.addAssistant(input);
  }

  // Agents and their status (desk-agents.ts).

  network(msisdn: unknown): Promise<AgentNetwork> {
    return this.found.network(msisdn);
  }
  list(options: { limit?: unknown; offset?: unknown } = {}): Promise<AgentSummary[]> {
    return this.found.list(options);
  }
  show(msisdn: unknown): Promise<AgentDetails> {
    return this.found.show(msisdn);
  }
  disable(msisdn: unknown): Promise<Agent> {
    return this.found.disable(msisdn);
  }
  enable(msisdn: unknown): Promise<Agent> {
    return this.found.enable(msisdn);
  }
  setDealer(msisdn: unknown, dealer: unknown, by: string): Promise<Agent> {
    return this.found.setDealer(msisdn, dealer, by);
  }
  resetPin(msisdn: unknown): Promise<{ agent: Agent; oneTimePin: string }> {
    return this.found.resetPin(msisdn);
  }

  // Deposits and dealers' registrations to decide (desk-requests.ts).

  deposits(options: { state?: unknown; msisdn?: unknown } = {}): Promise<Deposit[]> {
    return this.requests.deposits(options);
  }
  decideDeposit(...args: Parameters<DeskRequests['decideDeposit']>): Promise<DepositDecision> {
    return this.requests.decideDeposit(...args);
  }
  registrations(options: { state?: unknown; dealer?: unknown } = {}): Promise<Registration[]> {
    return this.requests.registrations(options);
  }
  decideRegistration(
    ...args: Parameters<DeskRequests['decideRegistration']>
  ): Promise<Exclude<RegistrationDecision, { status: 'not_found' }>> {
    return this.requests.decideRegistration(...args);
  }

  // The float (desk-float.ts).

  credit(msisdn: unknown, input: CreditInput, idempotencyKey?: string): Promise<CreditOutcome> {
    return this.float.credit(msisdn, input, idempotencyKey);
  }
  adjust(msisdn: unknown, input: CreditInput, idempotencyKey?: string): Promise<CreditOutcome> {
    return this.float.adjust(msisdn, input, idempotencyKey);
  }
  statement(msisdn: unknown, period: { from?: unknown; to?: unknown } = {}): Promise<Statement> {
    return this.float.statement(msisdn, period);
  }
}
