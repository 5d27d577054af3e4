import type { Agent } from '../../agents';
import { transferToRetailer } from '../../agents/dealers';
import { agentDaySummary } from '../../agents/summary';
import { componentLogger, maskMsisdn } from '../../observability/logger';
import { normaliseMsisdn, type CountryCode } from '../../phone';
import type { AgentSide } from '../../sales/agent-side';
import type { Money } from '../../vas/money';
import type { SmsCommand } from '../commands/grammar';
import type { MoTexts } from './texts';
import type { ConversationOutcome, Turn } from './turn';

const log = componentLogger('sms-mo');

/** TRANSFER, AGENTS, DEPOSIT, TOPUP, SUMMARY, DISABLE and ENABLE. */
export type NetworkCommand = Extract<
  SmsCommand,
  { kind: 'transfer' | 'network' | 'deposit' | 'topup' | 'summary' | 'supervise' }
>;

/** What the network's commands need beyond the agents. */
export interface NetworkServices {
  /** Queue an SMS to another number (a transfer's receiver); `id` sends it once. */
  notify(sms: { id: string; to: string; message: string }): Promise<void>;
  /**
   * The agent's own top-up: a payment request to its number through the payment provider, whose
   * success credits the float once (`AgentFloat.creditTopUp`). Absent: TOPUP is answered "not
   * available" (no payment provider wired for agents).
   */
  topUp?(agent: Agent, amount: Money, requestKey: string): Promise<'requested' | 'unavailable'>;
}

/**
 * The agent network by SMS, after the PIN passed at the intake: a dealer's transfer to its
 * retailer (each side told its new balance), its retailers and an outlet's assistants with their
 * floats and today's sales, a bank deposit reported for an operator, a top-up paid by the agent,
 * the day's summary, and a dealer or owner disabling (or enabling) its own retailer or assistant.
 * An assistant sells; these are its outlet owner's.
 */
export class NetworkCommands {
  constructor(
    private readonly agents: AgentSide,
    private readonly texts: MoTexts,
    private readonly services: NetworkServices,
    private readonly region: string,
  ) {}

  async run(turn: Turn, agent: Agent, command: NetworkCommand): Promise<ConversationOutcome> {
    if (agent.outletMsisdn) {
      await turn.say('sms.agent.ownerOnly');
      return 'refused';
    }
    switch (command.kind) {
      case 'transfer':
        return this.transfer(turn, agent, command.to, command.amountMinor);
      case 'network':
        return this.network(turn, agent);
      case 'deposit':
        return this.deposit(turn, agent, command.amountMinor, command.reference);
      case 'topup':
        return this.topUp(turn, agent, command.amountMinor);
      case 'summary':
        await turn.sayText(await this.summaryText(turn.lang, agent));
        return 'answered';
      case 'supervise':
        return this.supervise(turn, agent, command.target, command.status);
    }
  }

  /** The day's summary in `lang` (also the scheduled SMS's text). */
  async summaryText(lang: string, agent: Agent, day?: string): Promise<string> {
    const float = this.agents.float;
    const s = await agentDaySummary({ registry: this.agents.registry, float }, agent, day);
    const params = {
      day: s.day,
      count: s.sales.count,
      value: float.format(s.sales.valueMinor),
      commission: float.format(s.commissionMinor),
      in: float.format(s.floatInMinor),
      out: float.format(s.floatOutMinor),
    };
    return s.closingMinor === null
      ? this.texts.t(lang, 'sms.agent.summaryNoFloat', params)
      : this.texts.t(lang, 'sms.agent.summary', { ...params, closing: float.format(s.closingMinor) });
  }

  private async transfer(
    turn: Turn,
    dealer: Agent,
    to: string,
    amountMinor: number,
  ): Promise<ConversationOutcome> {
    const number = normaliseMsisdn(to, this.region as CountryCode);
    // One request, one transfer: the inbound message's key (a retried job finds it applied).
    const moved = number.ok
      ? await transferToRetailer(this.agents, dealer, number.e164, amountMinor, turn.key)
      : ({ status: 'not_retailer' } as const);
    switch (moved.status) {
      case 'transferred':
        await this.services.notify({
          id: `${moved.reference}:in`,
          to: moved.retailer.msisdn,
          message: this.texts.t(moved.retailer.language, moved.received.key, moved.received.params),
        });
        await turn.say(moved.sent.key, moved.sent.params);
        return 'answered';
      case 'insufficient':
        await turn.say('sms.agent.transferInsufficient', {
          available: this.agents.float.format(moved.availableMinor),
        });
        return 'refused';
      case 'not_retailer':
        await turn.say('sms.agent.notYourRetailer', { number: to });
        return 'refused';
      case 'conflict':
        log.error('transfer reference used for another transfer', { smsKey: turn.key });
        await turn.say('sms.mo.unavailable');
        return 'refused';
    }
  }

  private async network(turn: Turn, owner: Agent): Promise<ConversationOutcome> {
    const { registry, float } = this.agents;
    const [retailers, assistants] = await Promise.all([
      registry.linked('dealer', owner.msisdn),
      registry.linked('outlet', owner.msisdn),
    ]);
    if (retailers.length + assistants.length === 0) {
      // A dealer an operator made, with no retailer yet: where to add the first one.
      await turn.say(owner.dealer ? 'sms.agent.networkNoneDealer' : 'sms.agent.networkNone');
      return 'answered';
    }
    const lines: string[] = [];
    for (const retailer of retailers) {
      const [balance, today] = await Promise.all([
        float.balance(retailer.msisdn),
        float.salesOn(retailer.msisdn),
      ]);
      lines.push(
        this.texts.t(turn.lang, 'sms.agent.networkRetailer', {
          number: retailer.msisdn,
          name: retailer.name,
          float: float.format(balance.availableMinor),
          count: today.count,
          value: float.format(today.valueMinor),
          status: this.statusWord(turn.lang, retailer),
        }),
      );
    }
    for (const assistant of assistants) {
      const today = await float.salesOn(assistant.msisdn);
      lines.push(
        this.texts.t(turn.lang, 'sms.agent.networkAssistant', {
          number: assistant.msisdn,
          name: assistant.name,
          count: today.count,
          value: float.format(today.valueMinor),
          status: this.statusWord(turn.lang, assistant),
        }),
      );
    }
    await turn.sayText(lines.join('\n'));
    return 'answered';
  }

  private statusWord(lang: string, agent: Agent): string {
    return agent.status === 'active' ? '' : ` (${this.texts.t(lang, `sms.agent.status.${agent.status}`)})`;
  }

  private async deposit(
    turn: Turn,
    agent: Agent,
    amountMinor: number,
    reference: string,
  ): Promise<ConversationOutcome> {
    const float = this.agents.float;
    if (agent.funding.kind !== 'float') {
      await turn.say('sms.agent.noFloat');
      return 'refused';
    }
    const deposit = await float.reportDeposit(agent, float.money(amountMinor), reference);
    if (!deposit) {
      const known = await float.depositByReference(reference.toUpperCase());
      // This very message again (a retried job): the same answer, nothing reported twice.
      if (known && known.msisdn === agent.msisdn && known.amountMinor === amountMinor)
        await turn.say('sms.agent.depositQueued', {
          amount: float.format(amountMinor),
          reference: known.bankReference,
          id: known.id,
        });
      else await turn.say('sms.agent.depositDuplicate', { reference: reference.toUpperCase() });
      return known?.msisdn === agent.msisdn ? 'answered' : 'refused';
    }
    log.info('agent reported a bank deposit', { agent: maskMsisdn(agent.msisdn), id: deposit.id });
    await turn.say('sms.agent.depositQueued', {
      amount: float.format(amountMinor),
      reference: deposit.bankReference,
      id: deposit.id,
    });
    return 'answered';
  }

  private async topUp(turn: Turn, agent: Agent, amountMinor: number): Promise<ConversationOutcome> {
    const float = this.agents.float;
    if (agent.funding.kind !== 'float') {
      await turn.say('sms.agent.noFloat');
      return 'refused';
    }
    const asked = this.services.topUp
      ? await this.services.topUp(agent, float.money(amountMinor), `sms:${turn.key}`)
      : 'unavailable';
    await turn.say(asked === 'requested' ? 'sms.agent.topupRequested' : 'sms.agent.topupUnavailable', {
      amount: float.format(amountMinor),
    });
    return asked === 'requested' ? 'answered' : 'refused';
  }

  private async supervise(
    turn: Turn,
    supervisor: Agent,
    target: string,
    status: 'active' | 'disabled',
  ): Promise<ConversationOutcome> {
    const number = normaliseMsisdn(target, this.region as CountryCode);
    const changed = number.ok
      ? await this.agents.registry.supervise(supervisor.msisdn, number.e164, status)
      : ({ status: 'not_yours' } as const);
    if (changed.status === 'done') {
      await turn.say(status === 'disabled' ? 'sms.agent.superviseDisabled' : 'sms.agent.superviseEnabled', {
        number: changed.agent.msisdn,
        name: changed.agent.name,
      });
      return 'answered';
    }
    await turn.say(
      changed.status === 'not_allowed' ? 'sms.agent.superviseNotAllowed' : 'sms.agent.notYourAgent',
      {
        number: target,
      },
    );
    return 'refused';
  }
}
