import { AgentInputError, AgentNotFoundError } from '../errors';
import type { Agents } from '../index';
import type { Deposit, DepositDecision, DepositState, FloatBalance } from '../ledger/store';
import type { Registration, RegistrationDecision, RegistrationState } from '../registrations';
import { MAX_LIST, text, wholeNumber } from './desk-input';

/**
 * What agents and dealers asked an operator to decide: bank deposits (approved: credited once,
 * with the approval) and retailers a dealer registered by USSD. Each decision is told through the
 * options' hooks, also when asked again, so a tell lost after the commit is sent.
 */

export interface AgentDeskOptions {
  /**
   * A deposit was decided (approved or rejected; also when asked again, decided before): tell its
   * agent. Called after the decision committed; the teller sends once per deposit and decision.
   */
  onDepositDecided?(deposit: Deposit, balance: FloatBalance): Promise<void>;
  /** A dealer's retailer registration was decided (also when asked again): tell the dealer and the retailer. */
  onRegistrationDecided?(registration: Registration): Promise<void>;
}

export class DeskRequests {
  constructor(
    private readonly agents: Agents,
    private readonly options: AgentDeskOptions,
  ) {}

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
