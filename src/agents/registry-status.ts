import { componentLogger } from '../observability/logger';
import { AgentConflictError, AgentInputError, AgentNotFoundError } from './errors';
import type { AgentRecords } from './registry-records';
import { publicAgent, type Agent, type DisabledReason } from './types';

/**
 * Who may sell, and as what: an operator's disable/enable and dealer flag, the agent's own
 * `BLOCK`, and a dealer's or an outlet owner's supervision of its retailers and assistants
 * (never undoing what someone else disabled).
 */

const log = componentLogger('agents');

/** What a dealer (its retailer) or an outlet's owner (its assistant) asked of an agent's status. */
export type SupervisedChange =
  | { status: 'done'; agent: Agent }
  /** Not this supervisor's retailer or assistant. */
  | { status: 'not_yours' }
  /** Disabled by someone else (an operator, lockouts, BLOCK): only they can enable it. */
  | { status: 'not_allowed'; reason: DisabledReason | null };

export class AgentStatusChanges {
  constructor(private readonly records: AgentRecords) {}

  /**
   * A dealer disables or enables one of its retailers, an outlet's owner one of its assistants.
   * Enabling is allowed only for what the same kind of supervisor disabled (never an agent an
   * operator, lockouts or BLOCK disabled). Checked on the row under its lock.
   */
  async supervise(
    supervisor: string,
    target: string,
    status: 'active' | 'disabled',
  ): Promise<SupervisedChange> {
    const found = await this.records.store.get(target);
    if (!found) return { status: 'not_yours' };
    const role: DisabledReason | null =
      found.dealerMsisdn === supervisor ? 'dealer' : found.outletMsisdn === supervisor ? 'owner' : null;
    if (!role) return { status: 'not_yours' };
    let refusedReason: DisabledReason | null = null;
    const changed = await this.records.store.setStatusIf(
      target,
      { status, reason: status === 'disabled' ? role : null, now: this.records.clock() },
      (current) => {
        const mine = (role === 'dealer' ? current.dealerMsisdn : current.outletMsisdn) === supervisor;
        if (!mine) return false;
        if (status === 'disabled') return current.status !== 'disabled' || current.disabledReason === role;
        const ok = current.status !== 'disabled' || current.disabledReason === role;
        if (!ok) refusedReason = current.disabledReason;
        return ok;
      },
    );
    if (!changed) return { status: 'not_yours' };
    if (changed.status === 'refused')
      return changed.record.dealerMsisdn === supervisor || changed.record.outletMsisdn === supervisor
        ? { status: 'not_allowed', reason: refusedReason ?? changed.record.disabledReason }
        : { status: 'not_yours' };
    log.warn(
      `agent ${status === 'disabled' ? 'disabled' : 'enabled'} by its ${role === 'dealer' ? 'dealer' : 'owner'}`,
      {
        msisdn: target,
        by: supervisor,
      },
    );
    return { status: 'done', agent: publicAgent(changed.record) };
  }

  /** Disable at once: by an operator, or by the agent itself (`BLOCK`, a lost phone). */
  async disable(msisdn: string, reason: 'operator' | 'blocked' = 'operator'): Promise<Agent> {
    const record = await this.records.store.setStatus(msisdn, {
      status: 'disabled',
      reason,
      now: this.records.clock(),
    });
    if (!record) throw new AgentNotFoundError(msisdn);
    log.warn('agent disabled', { msisdn, reason });
    return publicAgent(record);
  }

  /** Enable, clearing wrong attempts and lockouts (the PIN stays as it is). */
  async enable(msisdn: string): Promise<Agent> {
    const record = await this.records.store.setStatus(msisdn, {
      status: 'active',
      reason: null,
      now: this.records.clock(),
    });
    if (!record) throw new AgentNotFoundError(msisdn);
    log.info('agent enabled', { msisdn });
    return publicAgent(record);
  }

  /**
   * An operator makes an agent a dealer (its menu offers "My retailers" before it has any) or
   * not: refused for an assistant, and turning off while any agent names it its dealer.
   */
  async setDealer(msisdn: string, dealer: boolean, by: string): Promise<Agent> {
    const written = await this.records.store.setDealer(msisdn, dealer, this.records.clock());
    if (!written) throw new AgentNotFoundError(msisdn);
    if (written.status === 'assistant')
      throw new AgentInputError('msisdn', 'an assistant cannot be a dealer');
    if (written.status === 'has_retailers')
      throw new AgentConflictError(
        'has_retailers',
        `the agent has ${written.retailers} retailer(s): it stays a dealer while any agent names it its dealer`,
      );
    if (written.status === 'written')
      log.warn(dealer ? 'agent made a dealer' : 'agent no longer a dealer', { msisdn, by });
    return publicAgent(written.record);
  }
}
