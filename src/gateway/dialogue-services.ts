import { randomUUID } from 'node:crypto';
import type { DialogueServices } from '../../machines/ussd-session.machine';
import type { Config } from '../config';
import { currentRequestId } from '../observability/logger';
import type { Account, CallContext, Catalogue, PurchaseService } from '../vas';
import type { MoneyPath } from './money-path';

/** How long the debited account (id, currency) is reused before asking the service again. */
const ACCOUNT_CACHE_MS = 5 * 60 * 1000;

/** A call context tied to the hop or job running now (its log context), else a fresh id. */
function callContext(): CallContext {
  return { requestId: currentRequestId() ?? `gw-${randomUUID()}` };
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
    let account: Account | undefined;
    if (configuredId !== undefined) account = await service.getAccount(configuredId, callContext());
    else {
      const accounts = await service.listAccounts(callContext());
      account = [...accounts].sort((a, b) => a.rank - b.rank).find((a) => a.category === 'CURRENT');
    }
    if (!account)
      throw new Error('the purchase service lists no CURRENT account to debit; set DEBIT_ACCOUNT_ID');
    cached = { account, at: Date.now() };
    return account;
  };
  return () => {
    if (cached && Date.now() - cached.at < ACCOUNT_CACHE_MS) return Promise.resolve(cached.account);
    inFlight ??= fetchAccount().finally(() => (inFlight = null));
    return inFlight;
  };
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
    order: (intent, key) => desk.create(intent, key),
    recentPurchases: (msisdn) => desk.listByMsisdn(msisdn, { state: 'succeeded', limit: 10 }),
    resend: (purchaseId, requestKey) => desk.resendSms(purchaseId, requestKey),
    languages: () => languages,
    defaultRegion: config.defaultRegion,
    // Pure config: the machine names and checks the range itself, before any quote.
    amountRanges: config.spend.amounts,
    timeZone: config.timeZone,
  };
}
