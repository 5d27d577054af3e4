import type { DialogueServices } from '../../machines/ussd-session.machine';
import type { Config } from '../config';
import { localDate, localTime } from '../i18n/local-time';
import { buySale } from '../sales/buy';
import { callContext, debitAccountLookup } from '../sales/debit-account';
import { agentLastSales } from '../sales/recent';
import { METERED_PRODUCTS, type SavedMeter } from '../subscribers';
import type { Catalogue } from '../vas';
import type { MoneyPath } from './money-path';
import { dealerServices } from './dealer-services';

const meterItem = (m: SavedMeter) => ({ productType: m.productType, identifier: m.identifier, name: m.name });

/**
 * What the dialogue may call, wired: reads, the quote's ports (src/sales/quote.ts runs them), the
 * Buy (src/sales/buy.ts), the agent's side of a sale and its PIN, and the desk's list and resend.
 */
export function dialogueServices(
  config: Config,
  moneyPath: MoneyPath,
  catalogue: Catalogue,
): DialogueServices {
  const { service, desk, locales, agentSide } = moneyPath;
  const languages = locales.languages().map((code) => {
    const meta = locales.meta(code);
    return { code, tag: meta.tag, name: meta.name };
  });
  return {
    products: () => catalogue.products(callContext()),
    debitAccount: debitAccountLookup(service, config.debitAccountId),
    quote: (request) => service.validate(request, callContext()),
    checkSpend: (intent) => moneyPath.spend.check(intent),
    agentServiceCodes: config.agents.serviceCodes,
    agentSaleCheck: (msisdn, minor) => agentSide.check(msisdn, minor),
    order: (intent, key, total) =>
      buySale({ desk, agentSide, payments: moneyPath.payments ?? undefined }, intent, key, total),
    buyerPays: moneyPath.payments !== null,
    // The dial asks agentOf and savedMeters together: one statement answers both (caller-on-dial.ts).
    agentOf: async (msisdn) => {
      const { agent } = await moneyPath.subscribers.callers.read(msisdn);
      if (!agent) return null;
      return {
        status: agent.status,
        lockedUntil: agent.lockedUntil ? localTime(new Date(agent.lockedUntil), config.timeZone) : null,
        accountId: agent.funding.kind === 'account' ? agent.funding.debitedAccountId : null,
        maxSaleMinor: moneyPath.agents.float.limitsOf(agent).maxSaleMinor,
        ...(agent.outletMsisdn && { outlet: true }),
        // A dealer (a column of the agent's row, even with no retailer yet) gets "My retailers" on its menu.
        ...(!agent.outletMsisdn && agent.dealer && { dealer: true }),
      };
    },
    verifyPin: async (msisdn, pin) => {
      const check = await moneyPath.agents.pins.verifyPin(msisdn, pin);
      if (check.status === 'locked')
        return { status: 'locked', until: localTime(check.until, config.timeZone) };
      if (check.status === 'ok')
        return { status: 'ok', mustChangePin: check.mustChangePin, pinVersion: check.pinVersion };
      return check.status === 'wrong'
        ? { status: 'wrong', attemptsLeft: check.attemptsLeft }
        : { status: check.status };
    },
    newPinCandidate: async (msisdn, pin) => {
      const made = await moneyPath.agents.pins.newPinCandidate(msisdn, pin);
      return made.ok ? { ok: true, candidate: made.candidate } : { ok: false, problem: made.problem };
    },
    savePin: async (msisdn, candidate, repeated, pinVersion) => {
      if (!(await moneyPath.agents.pins.candidateMatches(candidate, repeated))) return 'mismatch';
      const saved = await moneyPath.agents.pins.setNewPin(msisdn, candidate, pinVersion);
      return saved.status === 'changed' ? 'changed' : 'stale';
    },
    agentSales: async (msisdn) =>
      (await agentLastSales(desk, msisdn)).map((r) => ({
        purchaseId: r.id,
        date: localDate(r.createdAt, config.timeZone),
        identifier: r.intent.subscriberIdentifier,
        total: r.result?.total ?? r.intent.amount,
        state: r.state,
      })),
    resendReceipt: (purchaseId, requestKey) => moneyPath.resendReceipt(purchaseId, requestKey),
    agentFloat: (msisdn) => agentSide.floatOf(msisdn),
    async agentTopUp(msisdn, minor, requestKey) {
      const agent = await moneyPath.agents.registry.get(msisdn);
      // Only a float's owner pays into it (an assistant's is its outlet's), and only with a provider.
      if (!agent || agent.outletMsisdn || agent.funding.kind !== 'float' || !moneyPath.agentTopUps)
        return { status: 'unavailable' };
      const amount = moneyPath.agents.float.money(minor);
      const asked = await moneyPath.agentTopUps.request(agent, amount, `ussd:${requestKey}`);
      return asked === 'requested' ? { status: 'requested', amount } : { status: 'unavailable' };
    },
    resend: (purchaseId, requestKey) => desk.resendSms(purchaseId, requestKey),
    // Issue 31: saved meters, "My purchases", "Buy again anyway?", cases, the notice, Help.
    // Every metered product's, read with agentOf on the dial; a removal answers what is left.
    savedMeters: async (msisdn) => (await moneyPath.subscribers.callers.read(msisdn)).meters.map(meterItem),
    removeMeter: async (msisdn, productType, identifier) =>
      (
        await moneyPath.subscribers.savedMeters.removeAndList(
          msisdn,
          productType,
          identifier,
          METERED_PRODUCTS,
        )
      ).map(meterItem),
    purchaseHistory: (msisdn) => moneyPath.subscribers.history.recentPurchases(msisdn, 10),
    purchasesInProgress: (msisdn, identifier) =>
      moneyPath.subscribers.history.purchasesInProgress(msisdn, identifier),
    openCase: async (msisdn, purchaseId, reason) => {
      const opened = await moneyPath.subscribers.cases.open({
        msisdn,
        purchaseId,
        reason,
        actor: 'subscriber:USSD',
      });
      return { caseId: String(opened.case.id) };
    },
    operatorNotice: (language) => moneyPath.subscribers.notices.currentNotice(language),
    care: config.care.contact,
    askTokenRecipient: config.ussd.askTokenRecipient ?? true,
    // Issue 32: a dealer's retailers and transfers, the commission on the float screen.
    ...dealerServices(moneyPath),
    languages: () => languages,
    defaultRegion: config.defaultRegion,
    // Pure config: the machine names and checks the range itself, before any quote.
    amountRanges: config.spend.amounts,
    timeZone: config.timeZone,
  };
}
