import { randomUUID } from 'node:crypto';
import type { DialogueServices } from '../../machines/ussd-session.machine';
import type { Config } from '../config';
import { currentRequestId } from '../observability/logger';
import type { Account, CallContext, Catalogue, PurchaseService } from '../vas';
import type { MoneyPath } from './money-path';
import type { Agents } from '../agents';
import { localDate, localTime } from '../i18n/local-time';
import { saleRefusalOf } from '../agents/refusal';
import { SpendRefusedError, type SpendRefusal } from '../spend/rules';
import type { Money } from '../vas/money';

/** How long the debited account (id, currency) is reused before asking the service again. */
const ACCOUNT_CACHE_MS = 5 * 60 * 1000;

/** A call context tied to the hop or job running now (its log context), else a fresh id. */
function callContext(): CallContext {
  return { requestId: currentRequestId() ?? `gw-${randomUUID()}` };
}

/** The debited account read now: DEBIT_ACCOUNT_ID, else the first CURRENT account the service lists. */
export async function fetchDebitAccount(
  service: PurchaseService,
  configuredId: number | undefined,
  ctx: CallContext,
): Promise<Account> {
  let account: Account | undefined;
  if (configuredId !== undefined) account = await service.getAccount(configuredId, ctx);
  else {
    const accounts = await service.listAccounts(ctx);
    account = [...accounts].sort((a, b) => a.rank - b.rank).find((a) => a.category === 'CURRENT');
  }
  if (!account)
    throw new Error('the purchase service lists no CURRENT account to debit; set DEBIT_ACCOUNT_ID');
  return account;
}

/** The debited account: DEBIT_ACCOUNT_ID, else the first CURRENT account the service lists. */
export function debitAccountLookup(
  service: PurchaseService,
  configuredId: number | undefined,
): () => Promise<Account> {
  let cached: { account: Account; at: number } | null = null;
  // Single-flight: a burst of first hops (a cold start under load) asks the service once.
  let inFlight: Promise<Account> | null = null;
  const fetchAccount = async (): Promise<Account> => {
    const account = await fetchDebitAccount(service, configuredId, callContext());
    cached = { account, at: Date.now() };
    return account;
  };
  return () => {
    if (cached && Date.now() - cached.at < ACCOUNT_CACHE_MS) return Promise.resolve(cached.account);
    inFlight ??= fetchAccount().finally(() => (inFlight = null));
    return inFlight;
  };
}

/** An agent's sale of `minor` checked against the agent's float and limits (nothing held), or null. */
async function agentSaleRefusal(agents: Agents, msisdn: string, minor: number): Promise<SpendRefusal | null> {
  const agent = await agents.registry.get(msisdn);
  if (!agent || agent.status !== 'active') return { code: 'spend_blocked' };
  return saleRefusalOf(agents.float, await agents.float.checkSale(agent, minor));
}

/** Hold an agent sale's total on its float under the purchase key; throws SpendRefusedError when refused. */
async function holdForSale(agents: Agents, msisdn: string, key: string, total: Money): Promise<void> {
  const agent = await agents.registry.get(msisdn);
  // Disabled (BLOCK, an operator) or locked since the PIN was checked: nothing is sold.
  if (!agent || agent.status !== 'active') throw new SpendRefusedError({ code: 'spend_blocked' });
  const held = await agents.float.reserve(agent, key, total.minor);
  const refusal =
    held.status === 'insufficient' || held.status === 'over_limit' ? saleRefusalOf(agents.float, held) : null;
  if (refusal) throw new SpendRefusedError(refusal);
}

/** What the dialogue may call: reads, the quote, and idempotent hand-overs to the lifecycle. */
export function dialogueServices(
  config: Config,
  moneyPath: MoneyPath,
  catalogue: Catalogue,
): DialogueServices {
  const { service, desk, locales } = moneyPath;
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
    agentSaleCheck: (msisdn, minor) => agentSaleRefusal(moneyPath.agents, msisdn, minor),
    order: async (intent, key, total) => {
      // An agent's sale: the float holds the total first (refusing what the float or limits refuse).
      if (!intent.agent || !total) return desk.create(intent, key);
      await holdForSale(moneyPath.agents, intent.agent.msisdn, key, total);
      try {
        return await desk.create(intent, key);
      } catch (error) {
        // Refused by the spending rules: nothing was bought, the float gets its hold back.
        if (error instanceof SpendRefusedError)
          await moneyPath.agents.float.release(intent.agent.msisdn, key);
        throw error;
      }
    },
    agentOf: async (msisdn) => {
      const agent = await moneyPath.agents.registry.get(msisdn);
      if (!agent) return null;
      return {
        status: agent.status,
        lockedUntil: agent.lockedUntil ? localTime(new Date(agent.lockedUntil), config.timeZone) : null,
        accountId: agent.funding.kind === 'account' ? agent.funding.debitedAccountId : null,
        maxSaleMinor: moneyPath.agents.float.limitsOf(agent).maxSaleMinor,
      };
    },
    verifyPin: async (msisdn, pin) => {
      const check = await moneyPath.agents.registry.verifyPin(msisdn, pin);
      if (check.status === 'locked')
        return { status: 'locked', until: localTime(check.until, config.timeZone) };
      if (check.status === 'ok')
        return { status: 'ok', mustChangePin: check.mustChangePin, pinVersion: check.pinVersion };
      return check.status === 'wrong'
        ? { status: 'wrong', attemptsLeft: check.attemptsLeft }
        : { status: check.status };
    },
    newPinCandidate: async (msisdn, pin) => {
      const made = await moneyPath.agents.registry.newPinCandidate(msisdn, pin);
      return made.ok ? { ok: true, candidate: made.candidate } : { ok: false, problem: made.problem };
    },
    savePin: async (msisdn, candidate, repeated, pinVersion) => {
      if (!(await moneyPath.agents.registry.candidateMatches(candidate, repeated))) return 'mismatch';
      const saved = await moneyPath.agents.registry.setNewPin(msisdn, candidate, pinVersion);
      return saved.status === 'changed' ? 'changed' : 'stale';
    },
    agentSales: async (msisdn) =>
      (await desk.listByMsisdn(msisdn, { limit: 50 }))
        .filter((r) => r.intent.agent?.msisdn === msisdn)
        .slice(0, 5)
        .map((r) => ({
          purchaseId: r.id,
          date: localDate(r.createdAt, config.timeZone),
          identifier: r.intent.subscriberIdentifier,
          total: r.result?.total ?? r.intent.amount,
          state: r.state,
        })),
    resendReceipt: (purchaseId, requestKey) => moneyPath.resendReceipt(purchaseId, requestKey),
    agentFloat: async (msisdn) => {
      const agent = await moneyPath.agents.registry.get(msisdn);
      if (!agent || agent.funding.kind !== 'float') return null;
      const balance = await moneyPath.agents.float.balance(msisdn);
      return {
        available: moneyPath.agents.float.money(balance.availableMinor),
        held: moneyPath.agents.float.money(balance.heldMinor),
      };
    },
    recentPurchases: (msisdn) => desk.listByMsisdn(msisdn, { state: 'succeeded', limit: 10 }),
    resend: (purchaseId, requestKey) => desk.resendSms(purchaseId, requestKey),
    languages: () => languages,
    defaultRegion: config.defaultRegion,
    // Pure config: the machine names and checks the range itself, before any quote.
    amountRanges: config.spend.amounts,
    timeZone: config.timeZone,
  };
}
