/**
 * An agent's own float top-up (`TOPUP <amount> <PIN>`): a payment request to the agent's own
 * number through the payment lifecycle, the float credited once when the payment is known
 * successful (`AgentFloat.creditTopUp`, once per provider reference), and an SMS saying so with
 * the new balance — or that nothing came. Each SMS has a fixed id: sent once per top-up and outcome.
 */
import type { Agents } from './';
import type { Agent } from './types';
import { transliterate, type Locales } from '../i18n';
import { componentLogger, maskMsisdn } from '../observability/logger';
import type { PaymentLifecycle } from '../payments/lifecycle/runner';
import type { SqlPaymentStore } from '../payments/store/sql';
import type { PaymentRecord } from '../payments/store/types';
import type { Money } from '../vas/money';

const log = componentLogger('agent-topups');

export interface AgentTopUpsOptions {
  agents: Agents;
  store: Pick<SqlPaymentStore, 'topUp' | 'settleTopUp'>;
  /** Queue one SMS to an agent; `id` sends it once. */
  send(sms: { id: string; to: string; message: string }): Promise<void>;
  locales: Locales;
  clock?: () => Date;
}

export class AgentTopUps {
  private lifecycle: PaymentLifecycle | null = null;
  private readonly clock: () => Date;

  constructor(private readonly options: AgentTopUpsOptions) {
    this.clock = options.clock ?? (() => new Date());
  }

  /** The lifecycle is built with this object's `settled` as its hook, then given here. */
  attach(lifecycle: PaymentLifecycle): void {
    this.lifecycle = lifecycle;
  }

  /**
   * Ask `agent` to pay `amount` into its float, once per `requestKey` (the TOPUP message's key: a
   * re-delivered message asks nothing again). `unavailable`: no payment provider, or it refused
   * the request at once (the agent is also told why by `settled`).
   */
  readonly request = async (
    agent: Agent,
    amount: Money,
    requestKey: string,
  ): Promise<'requested' | 'unavailable'> => {
    if (!this.lifecycle) return 'unavailable';
    const { created, record } = await this.lifecycle.requestTopUp({
      requestKey,
      msisdn: agent.msisdn,
      amount,
    });
    log.info(created ? 'agent top-up requested' : 'agent top-up asked again: not requested twice', {
      agent: maskMsisdn(agent.msisdn),
      paymentId: record.id,
      state: record.state,
    });
    return record.state === 'failed' ? 'unavailable' : 'requested';
  };

  /**
   * The lifecycle's `onTopUp`: successful → the float credited once (the provider's receipt or
   * reference is the ledger's reference) and the agent told its new balance; failed or unknown →
   * told nothing was credited (money that still comes later is credited then). The top-up is
   * marked told last, so a crash in between is told again by the sweep — the SMS de-duplicated
   * by its id, the credit by its reference.
   */
  readonly settled = async (topUpId: string, payment: PaymentRecord): Promise<void> => {
    const { agents, store, locales } = this.options;
    const topUp = await store.topUp(topUpId);
    if (!topUp || topUp.state === 'credited') return;
    const agent = await agents.registry.get(topUp.msisdn);
    const lang = agent?.language ?? 'en';
    const float = agents.float;
    const amount = float.format(topUp.amount.minor);
    const at = this.clock().toISOString();
    if (payment.state === 'successful') {
      if (!agent) {
        log.error('AGENT TOP-UP PAID BY A NUMBER NO LONGER AN AGENT: not credited, a person must act', {
          agent: maskMsisdn(topUp.msisdn),
          paymentId: payment.id,
          receipt: payment.receipt,
        });
        return;
      }
      const reference = payment.receipt ?? payment.providerReference ?? payment.id;
      const credited = await float.creditTopUp(agent, topUp.amount, reference);
      if (credited.status !== 'credited' && credited.status !== 'duplicate') {
        log.error('AGENT TOP-UP NOT CREDITED: a person must act', {
          agent: maskMsisdn(agent.msisdn),
          paymentId: payment.id,
          status: credited.status,
        });
        return;
      }
      const balance = await float.balance(agent.msisdn);
      await this.options.send({
        id: `topup:${topUpId}:credited`,
        to: agent.msisdn,
        message: transliterate(
          locales.t(lang, 'sms.agent.topupCredited', {
            amount,
            reference,
            balance: float.format(balance.availableMinor),
          }),
        ),
      });
      await store.settleTopUp(topUpId, 'credited', at);
      log.info('agent top-up credited', {
        agent: maskMsisdn(agent.msisdn),
        paymentId: payment.id,
        status: credited.status,
      });
      return;
    }
    if (topUp.state === 'failed') return;
    const reasonKey = `payment.reason.${payment.state === 'unknown' ? 'unknown' : (payment.reason ?? 'other')}`;
    const reason = locales.t(lang, locales.template(lang, reasonKey) ? reasonKey : 'payment.reason.other');
    await this.options.send({
      id: `topup:${topUpId}:failed`,
      to: topUp.msisdn,
      message: transliterate(locales.t(lang, 'sms.agent.topupFailed', { amount, reason })),
    });
    await store.settleTopUp(topUpId, 'failed', at);
    log.info('agent top-up not paid', { agent: maskMsisdn(topUp.msisdn), paymentId: payment.id });
  };
}
