import { randomUUID } from 'node:crypto';
import { currentRequestId } from '../observability/logger';
import type { Account, CallContext, PurchaseService } from '../vas';

/** How long the debited account (id, currency) is reused before asking the service again. */
const ACCOUNT_CACHE_MS = 5 * 60 * 1000;

/** A call context tied to the hop or job running now (its log context), else a fresh id. */
export function callContext(): CallContext {
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
