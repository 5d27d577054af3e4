import type { DealerServices } from '../../machines/ussd/dealer-actors';
import type { Agent } from '../agents';
import { retailerOf, transferToRetailer, type AgentText } from '../agents/dealers';
import { transliterate } from '../i18n';
import { componentLogger } from '../observability/logger';
import { registrationTeller } from '../agents/registration-teller';
import type { MoneyPath } from './money-path';

const log = componentLogger('agents');

/**
 * The dealer's USSD services (machines/ussd/dealer-actors.ts) over the agents: its retailers with
 * their floats and today's sales (as `AGENTS <PIN>` gives them), the transfer `TRANSFER` makes
 * (`AgentFloat.transfer`: both entries in one transaction, only to the dealer's own retailer,
 * never beyond its float, once per reference) with each side's SMS, a dealer's disable or enable
 * (`AgentRegistry.supervise`, the SMS and CLI rule), Add retailer (`DealerRegistrations`: checked,
 * once per request, registered at once or waiting for an operator), and the commission `BAL` names.
 */
export function dealerServices(moneyPath: MoneyPath): DealerServices {
  const { registry, float } = moneyPath.agents;
  const { locales } = moneyPath;
  /** The float's owner: an assistant's outlet, else the agent itself. */
  const ownerOf = async (msisdn: string): Promise<Agent | null> => {
    const agent = await registry.get(msisdn);
    return agent?.outletMsisdn ? registry.get(agent.outletMsisdn) : agent;
  };
  /** A dealer: a float owner of its own (an assistant's network is its outlet's). */
  const dealerOf = async (msisdn: string): Promise<Agent | null> => {
    const agent = await registry.get(msisdn);
    return agent && !agent.outletMsisdn && agent.status === 'active' ? agent : null;
  };
  const tell = (id: string, to: Agent, text: AgentText) =>
    moneyPath.tellAgent({
      id,
      to: to.msisdn,
      message: transliterate(locales.t(to.language, text.key, text.params)),
    });

  /** The operator's blocklist (src/spend): a blocked number is not registered either. */
  const blocked = (msisdn: string) => moneyPath.spend.isBlocked({ msisdns: [msisdn] });
  const told = registrationTeller({ registry, locales, send: (sms) => moneyPath.tellAgent(sms) });

  return {
    async agentCommission(msisdn) {
      const owner = await ownerOf(msisdn);
      if (!owner || owner.funding.kind !== 'float') return null;
      const earned = await float.commissionEarned(owner.msisdn);
      return { today: float.money(earned.todayMinor), month: float.money(earned.monthMinor) };
    },
    async dealerRetailers(msisdn) {
      const retailers = await registry.linked('dealer', msisdn);
      return Promise.all(
        retailers.map(async (r) => {
          const [balance, today] = await Promise.all([
            r.funding.kind === 'float' ? float.balance(r.msisdn) : Promise.resolve(null),
            float.salesOn(r.msisdn),
          ]);
          return {
            msisdn: r.msisdn,
            name: r.name,
            float: balance ? float.money(balance.availableMinor) : null,
            todayCount: today.count,
            todayValue: float.money(today.valueMinor),
            status: r.status,
            ...(r.disabledReason === 'dealer' && { byDealer: true }),
          };
        }),
      );
    },
    async dealerTransfer(msisdn, to, minor, requestKey) {
      const dealer = await dealerOf(msisdn);
      if (!dealer) return { status: 'not_retailer' };
      // One request, one transfer: a hop sent again finds the reference applied (duplicate).
      const moved = await transferToRetailer(moneyPath.agents, dealer, to, minor, `ussd:${requestKey}`);
      if (moved.status === 'insufficient')
        return { status: 'insufficient', available: float.money(moved.availableMinor) };
      if (moved.status === 'conflict') {
        // Another transfer holds the reference: the dialogue's key reused, the operator's problem.
        log.error('transfer reference used for another transfer', { reference: moved.reference });
        return { status: 'conflict' };
      }
      if (moved.status !== 'transferred') return { status: 'not_retailer' };
      // Each side told its new balance, once per transfer (the ids name it), as TRANSFER does.
      await tell(`${moved.reference}:in`, moved.retailer, moved.received);
      await tell(`${moved.reference}:out`, dealer, moved.sent);
      return {
        status: 'transferred',
        amount: float.money(minor),
        dealerBalance: float.money(moved.dealerMinor),
        retailerName: moved.retailer.name,
      };
    },
    dealerCheckRetailer: (msisdn, number) => moneyPath.agents.registrations.check(msisdn, number, blocked),
    async dealerAddRetailer(msisdn, number, name, requestKey) {
      const asked = await moneyPath.agents.registrations.request(
        msisdn,
        { msisdn: number, name },
        `ussd:${requestKey}`,
        blocked,
      );
      if (asked.status === 'refused') return asked;
      // Registered at once (direct): dealer and retailer told, once per registration.
      if (asked.status === 'registered') await told(asked.registration);
      return { status: asked.status, name: asked.registration.name };
    },
    async superviseRetailer(msisdn, retailer, status) {
      // Only a retailer here: an outlet's assistants are the owner's business (SMS DISABLE).
      if (!(await retailerOf(registry, { msisdn }, retailer))) return 'not_yours';
      const changed = await registry.supervise(msisdn, retailer, status);
      return changed.status;
    },
  };
}
