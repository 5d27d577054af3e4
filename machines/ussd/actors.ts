/**
 * The dialogue's only I/O: promise actors over the injected {@link DialogueServices}. Restoring
 * a snapshot restarts a running invocation, so each one is safe to run twice: catalogue,
 * account, quote and "my tokens" are reads; `order` is idempotent by the dialogue's key;
 * `resend` by a key derived from the session and the purchase.
 */
import { fromPromise } from 'xstate';
import { componentLogger } from '../../src/observability/logger';
import { maskMsisdn } from '../../src/phone';
import { purchaseRequest } from '../../src/purchases/request';
import type { PurchaseIntent, PurchaseRecord } from '../../src/purchases/types';
import { errorInfo, type ServiceErrorInfo } from '../../src/vas/error-info';
import type { Account, PurchaseRequest, Transaction, VasProduct } from '../../src/vas/port';
import type { DialogueSettings, QuoteView, TokenItem, UssdContext } from './context';
import { isOperatorProblem } from './errors';
import { SpendRefusedError, type AmountRange, type SpendRefusal } from '../../src/spend/rules';
import { localDate } from '../../src/i18n/dates';
import { parseOptionalMoney, type Money } from '../../src/vas/money';
import type { ProductType } from '../../src/vas/port';

/** What the dialogue may call. Every method must be safe to call twice with the same arguments. */
export interface DialogueServices {
  /** The (cached) catalogue, in catalogue order. */
  products(): Promise<VasProduct[]>;
  /** The debited account: DEBIT_ACCOUNT_ID, else the first CURRENT account. */
  debitAccount(): Promise<Account>;
  /** Validate (no state change on the server); throws PurchaseServiceError / TransportError. */
  quote(request: PurchaseRequest): Promise<Transaction>;
  /** The operator's spending rules for this intent (nothing counted): why it is refused, or null. */
  checkSpend?(intent: PurchaseIntent): Promise<SpendRefusal | null>;
  /** Hand the intent to the purchase lifecycle; the same key returns the same record. */
  order(intent: PurchaseIntent, idempotencyKey: string): Promise<PurchaseRecord>;
  /** The caller's succeeded purchases, newest first. */
  recentPurchases(msisdn: string): Promise<PurchaseRecord[]>;
  /** Queue the purchase's SMS again; the same request key sends it once. */
  resend(purchaseId: string, requestKey: string): Promise<void>;
  /** Every locale: file code (`tn`), tag (`tn-BW`), display name (`Setswana`). */
  languages(): Array<{ code: string; tag: string; name: string }>;
  /** Region for phone numbers when the language tag has none (`BW`). */
  defaultRegion: string;
  /** Wrong identifiers (or amounts) accepted before a polite end; 3 by default. */
  maxIdentifierTries?: number;
  /** The operator's amount range per product (SPEND_LIMITS), named and checked on the amount screen. */
  amountRanges?: Partial<Record<ProductType, AmountRange>>;
  /** IANA zone of the dates shown ("My tokens"); Africa/Gaborone by default. */
  timeZone?: string;
}

/**
 * The provider's own deduction (metadata `charge`: fixed charge, debt recovery) when it takes
 * more than half of the amount bought, else null.
 */
export function largeDeduction(metadata: Record<string, string>, amount: Money): Money | null {
  let charge: Money | undefined;
  try {
    charge = parseOptionalMoney(metadata.charge);
  } catch {
    return null; // a malformed breakdown is no reason to refuse a quote
  }
  if (!charge || charge.currency !== amount.currency) return null;
  return charge.minor * 2 > amount.minor ? charge : null;
}

/** Where the operator's own problems are reported (the gateway's log unless a test listens). */
export type OperatorProblemReport = (call: string, error: ServiceErrorInfo) => void;

/** What the dialogue starts from: the catalogue, the debited account and the settings. */
export interface DialogueStart {
  products: VasProduct[];
  account: NonNullable<UssdContext['account']>;
  settings: DialogueSettings;
}

/** How many "My tokens" entries the dialogue lists (the engine paginates them). */
const MAX_TOKENS = 10;

const log = componentLogger('dialogue');

const logOperatorProblem: OperatorProblemReport = (call, error) =>
  log.error(`dialogue: ${call} failed on the operator's side (the subscriber sees "unavailable")`, {
    code: error.code,
    type: error.type,
    status: error.status,
    message: error.message,
  });

/** The actors' shapes, none of them provided: the machine definition reads nothing global. */
export const unprovidedActors = {
  loadCatalogue: fromPromise<DialogueStart>(notProvided('loadCatalogue')),
  quote: fromPromise<QuoteView, { intent: PurchaseIntent | null }>(notProvided('quote')),
  order: fromPromise<string, { intent: PurchaseIntent; key: string }>(notProvided('order')),
  recentPurchases: fromPromise<TokenItem[], { msisdn: string }>(notProvided('recentPurchases')),
  resend: fromPromise<void, { purchaseId: string; key: string }>(notProvided('resend')),
};

function notProvided(name: string): () => Promise<never> {
  return () => Promise.reject(new Error(`the dialogue's "${name}" actor was not provided`));
}

/** The actors over real services; `report` hears of every operator problem before it is rethrown. */
export function dialogueActors(
  services: DialogueServices,
  report: OperatorProblemReport = logOperatorProblem,
): typeof unprovidedActors {
  /** Calls a service, reporting the operator's problems loudly; the machine still sees the error. */
  async function call<T>(name: string, run: () => Promise<T>, airtime = false): Promise<T> {
    try {
      return await run();
    } catch (error) {
      // The operator's own spending rules refusing a subscriber is no operator problem.
      if (error instanceof SpendRefusedError) throw error;
      const info = errorInfo(error);
      if (isOperatorProblem(info, airtime)) report(name, info);
      throw error;
    }
  }

  return {
    loadCatalogue: fromPromise(() =>
      call('loadCatalogue', async () => {
        const [products, account] = await Promise.all([services.products(), services.debitAccount()]);
        return {
          // A copy: the context is persisted and must not alias the service's cache.
          products: structuredClone(products.filter((p) => p.providers.length > 0)),
          account: { id: account.id, currency: account.currency },
          settings: {
            languages: structuredClone(services.languages()),
            defaultRegion: services.defaultRegion,
            maxTries: services.maxIdentifierTries ?? 3,
            amounts: structuredClone(services.amountRanges ?? {}),
          },
        };
      }),
    ),
    quote: fromPromise(({ input: { intent } }) =>
      call(
        'quote',
        async () => {
          if (!intent) throw new Error('incomplete purchase in the dialogue');
          const refusal = await services.checkSpend?.(intent);
          if (refusal) throw new SpendRefusedError(refusal);
          const tx = await services.quote(purchaseRequest(intent));
          const subscriberDetails = tx.subscriberDetails ?? null;
          return {
            intent: { ...intent, subscriberDetails },
            subscriberDetails,
            units: tx.units ?? null,
            amount: { ...intent.amount },
            charge: { currency: tx.charge.currency, minor: tx.charge.minor },
            total: { currency: tx.total.currency, minor: tx.total.minor },
            deducted: largeDeduction(tx.metadata ?? {}, intent.amount),
          };
        },
        intent?.productType === 'AIRTIME',
      ),
    ),
    order: fromPromise(({ input }) =>
      call('order', async () => (await services.order(input.intent, input.key)).id),
    ),
    recentPurchases: fromPromise(({ input }) =>
      call('recentPurchases', async () => {
        const records = await services.recentPurchases(input.msisdn);
        return records
          .filter((r) => r.state === 'succeeded')
          .slice(0, MAX_TOKENS)
          .map((r) => ({
            purchaseId: r.id,
            identifier: maskMsisdn(r.intent.subscriberIdentifier),
            amount: { currency: r.intent.amount.currency, minor: r.intent.amount.minor },
            date: localDate(r.createdAt, services.timeZone ?? 'Africa/Gaborone'),
          }));
      }),
    ),
    resend: fromPromise(({ input }) => call('resend', () => services.resend(input.purchaseId, input.key))),
  };
}
