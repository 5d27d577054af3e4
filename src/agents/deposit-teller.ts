/**
 * The SMS an agent gets when an operator decides its bank deposit (`DEPOSIT <amount> <ref> <PIN>`):
 * approved with its float after the credit, or rejected. One per deposit and decision: the id
 * names both, so an approval asked again (or a tell retried) never sends a second SMS.
 */
import type { Deposit, FloatBalance } from './ledger/store';
import type { AgentRegistry } from './registry';
import type { AgentFloat } from './float';
import { transliterate, type Locales } from '../i18n';

export function depositTeller(options: {
  registry: Pick<AgentRegistry, 'get'>;
  float: Pick<AgentFloat, 'format'>;
  locales: Locales;
  /** Queue one SMS to the agent; `id` sends it once. */
  send(sms: { id: string; to: string; message: string }): Promise<void>;
}): (deposit: Deposit, balance: FloatBalance) => Promise<void> {
  return async (deposit, balance) => {
    const agent = await options.registry.get(deposit.msisdn);
    const lang = agent?.language ?? 'en';
    const params = {
      amount: options.float.format(deposit.amountMinor),
      reference: deposit.bankReference,
    };
    const message =
      deposit.state === 'approved'
        ? options.locales.t(lang, 'sms.agent.depositApproved', {
            ...params,
            balance: options.float.format(balance.availableMinor),
          })
        : options.locales.t(lang, 'sms.agent.depositRejected', params);
    await options.send({
      id: `deposit:${deposit.id}:${deposit.state}`,
      to: deposit.msisdn,
      message: transliterate(message),
    });
  };
}
