import type { Agent } from '../../agents';
import { componentLogger, maskMsisdn } from '../../observability/logger';
import type { PurchaseDesk } from '../../purchases/types';
import type { AgentSide } from '../../sales/agent-side';
import { agentLastSales } from '../../sales/recent';
import { refusalText, type SpendRefusal } from '../../spend/rules';
import { formatMoney } from '../../vas/money';
import type { SmsCommand } from '../commands/grammar';
import type { NetworkCommand, NetworkCommands } from './network-commands';
import type { MoTexts } from './texts';
import type { ConversationOutcome, Turn } from './turn';

const log = componentLogger('sms-mo');

/** BAL, SALES, PIN and BLOCK, and the network's commands. */
export type AgentCommand =
  Extract<SmsCommand, { kind: 'balance' | 'sales' | 'pinChange' | 'block' }> | NetworkCommand;

/**
 * The agent's half of the SMS conversation: who may sell (registered, active, its PIN passed at
 * the intake) and the agent's own commands. Absent `agents`: every agent command is answered
 * "not an agent".
 */
export class AgentCommands {
  constructor(
    private readonly agents: AgentSide | undefined,
    private readonly desk: Pick<PurchaseDesk, 'listByMsisdn'>,
    private readonly texts: MoTexts,
    private readonly network?: NetworkCommands,
  ) {}

  /** The sender as an active agent, or null after saying why not. */
  async activeAgent(turn: Turn): Promise<Agent | null> {
    const agent = await this.agents?.registry.get(turn.msisdn);
    if (!agent) {
      await turn.say('sms.agent.notAgent');
      return null;
    }
    if (agent.status === 'disabled') {
      await turn.say('sms.agent.disabled');
      return null;
    }
    if (agent.status === 'locked' && agent.lockedUntil) {
      await turn.say('sms.agent.locked', { until: this.texts.localTime(agent.lockedUntil) });
      return null;
    }
    return agent;
  }

  /** The PIN verdict of an agent command, answered when it is not a pass; the agent when it is. */
  async pinChecked(turn: Turn, code: string | null): Promise<Agent | null> {
    const verdict = turn.pin;
    if (!verdict) {
      await turn.say('sms.agent.pinNeeded', { yes: this.texts.keyword(turn.lang, 'YES'), code: code ?? '' });
      return null;
    }
    switch (verdict.status) {
      case 'ok':
        if (verdict.mustChangePin) {
          await turn.say('sms.agent.mustChangePin');
          return null;
        }
        return this.activeAgent(turn);
      case 'wrong':
        await turn.say('sms.agent.wrongPin', { left: verdict.attemptsLeft });
        return null;
      case 'locked':
        await turn.say('sms.agent.locked', { until: this.texts.localTime(verdict.until) });
        return null;
      case 'disabled':
        await turn.say('sms.agent.disabled');
        return null;
      default:
        await turn.say('sms.agent.notAgent');
        return null;
    }
  }

  /** A sale refused by the agent's float or limits (or the spending rules), named as on USSD. */
  async refused(turn: Turn, refusal: SpendRefusal | null): Promise<ConversationOutcome> {
    if (refusal) {
      const text = refusalText(refusal);
      await turn.say(text.key, text.params);
    }
    return 'refused';
  }

  /**
   * BLOCK and PIN change the agent's own account: answered in the language the agent was
   * registered with, as the notices it gets unasked are (deposits, top-ups, the day's summary),
   * whatever the keyword's language. Questions (BAL, SALES, the network's) follow the sender's.
   */
  private async accountChange(
    turn: Turn,
    command: Extract<AgentCommand, { kind: 'block' | 'pinChange' }>,
  ): Promise<ConversationOutcome> {
    const agent = await this.agents?.registry.get(turn.msisdn);
    if (agent) turn.lang = agent.language;
    if (command.kind === 'block') {
      if (!agent) {
        await turn.say('sms.agent.notAgent');
        return 'refused';
      }
      // A lost or stolen phone: no PIN asked, the account stops at once.
      await this.agents!.registry.disable(turn.msisdn, 'blocked');
      log.warn('agent blocked by SMS', { agent: maskMsisdn(turn.msisdn) });
      await turn.say('sms.agent.blocked');
      return 'answered';
    }
    const verdict = turn.pin;
    if (verdict?.status === 'changed') await turn.say('sms.agent.pinChanged');
    else if (verdict?.status === 'invalid')
      // The reason in words, as the USSD change shows it (it was the bare code: `weak`).
      await turn.say('sms.agent.pinRefused', {
        reason: this.texts.t(turn.lang, `agent.pin.problem.${pinProblemKey(verdict.problem)}`),
      });
    else await this.pinChecked(turn, null);
    return verdict?.status === 'changed' ? 'answered' : 'refused';
  }

  /** BAL, SALES, PIN and BLOCK: only from a registered agent's number. */
  async run(turn: Turn, command: AgentCommand): Promise<ConversationOutcome> {
    const agents = this.agents;
    if (command.kind === 'block' || command.kind === 'pinChange') return this.accountChange(turn, command);
    const agent = await this.pinChecked(turn, null);
    if (!agent) return 'refused';
    if (command.kind !== 'balance' && command.kind !== 'sales') {
      if (!this.network) {
        await turn.say('sms.agent.notAgent');
        return 'refused';
      }
      return this.network.run(turn, agent, command);
    }
    if (command.kind === 'balance') {
      const float = agents!.float;
      // An assistant sells from its outlet's float: that is the balance it is told.
      const owner = agent.outletMsisdn ? ((await agents!.registry.get(agent.outletMsisdn)) ?? agent) : agent;
      const allowance = await float.allowance(owner);
      if (owner.funding.kind === 'float') {
        const balance = await float.balance(owner.msisdn);
        const earned = await float.commissionEarned(owner.msisdn);
        // One reply per message: the commission earned today and this month goes on the balance's SMS.
        const lines = [
          this.texts.t(turn.lang, 'sms.agent.balance', {
            available: formatMoney(float.money(balance.availableMinor)),
            held: formatMoney(float.money(balance.heldMinor)),
          }),
          ...(earned.monthMinor > 0
            ? [
                this.texts.t(turn.lang, 'sms.agent.commissionToday', {
                  commission: float.format(earned.todayMinor),
                  month: float.format(earned.monthMinor),
                }),
              ]
            : []),
        ];
        await turn.sayText(lines.join('\n'));
      } else
        await turn.say('sms.agent.balanceAccount', {
          account: owner.funding.kind === 'account' ? owner.funding.debitedAccountId : '',
          count: allowance.today.count,
          value: formatMoney(float.money(allowance.today.valueMinor)),
        });
      return 'answered';
    }
    await turn.sayText(this.texts.sales(turn.lang, await agentLastSales(this.desk, agent.msisdn)));
    return 'answered';
  }
}

/** The locale key of a refused new PIN's problem (`agent.pin.problem.<key>`). */
function pinProblemKey(problem: string): 'format' | 'weak' | 'same' {
  return problem === 'weak' || problem === 'same' ? problem : 'format';
}
