/**
 * The dialogue's only I/O: promise actors over the injected {@link DialogueServices}. Restoring
 * a snapshot restarts a running invocation, so each one is safe to run twice: catalogue,
 * account, quote and "my tokens" are reads; `order` is idempotent by the dialogue's key;
 * `resend` by a key derived from the session and the purchase.
 */
import { fromService } from '../../src/ussd/engine/dialogue';
import { agentsServedOn } from '../../src/agents/service-codes';
import { componentLogger } from '../../src/observability/logger';
import { deepFreeze } from '../../src/ussd/engine/deep-freeze';
import type { PurchaseIntent, PurchaseRecord } from '../../src/purchases/types';
import { errorInfo, type ServiceErrorInfo } from '../../src/vas/error-info';
import type { Account, PurchaseRequest, Transaction, VasProduct } from '../../src/vas/port';
import type {
  AgentView,
  DialogueSettings,
  InProgressItem,
  QuoteView,
  SavedMeterItem,
  SavedMeters,
  TokenItem,
  UssdContext,
} from './context';
import { packMeters } from './meters';
import { agentActors, agentUnprovided, type AgentServices } from './agent-actors';
import { dealerActors, dealerUnprovided, type DealerServices } from './dealer-actors';

export type { PinHash, PinOutcome, SaleItem, TopUpAnswer } from './agent-actors';
import { isOperatorProblem, quoteSale, type QuotePorts } from '../../src/sales/quote';
import { SpendRefusedError, type AmountRange, type SpendRefusal } from '../../src/spend/rules';
import { localDate, localTime } from '../../src/i18n/local-time';
import { parseOptionalMoney, type Money } from '../../src/vas/money';
import type { ProductType } from '../../src/vas/port';
import type { PurchaseView } from '../../src/purchases/history';

/** What the dialogue may call. Every method must be safe to call twice with the same arguments. */
export interface DialogueServices extends AgentServices, DealerServices {
  /** The (cached) catalogue, in catalogue order. */
  products(): Promise<VasProduct[]>;
  /** The debited account: DEBIT_ACCOUNT_ID, else the first CURRENT account. */
  debitAccount(): Promise<Account>;
  /** Validate (no state change on the server); throws PurchaseServiceError / TransportError. */
  quote(request: PurchaseRequest): Promise<Transaction>;
  /** The operator's spending rules for this intent (nothing counted): why it is refused, or null. */
  checkSpend?(intent: PurchaseIntent): Promise<SpendRefusal | null>;
  /**
   * Hand the intent to the purchase lifecycle; the same key returns the same record. An agent's
   * sale holds `total` on the agent's float first (a refusal throws SpendRefusedError).
   */
  order(intent: PurchaseIntent, idempotencyKey: string, total?: Money): Promise<PurchaseRecord>;
  /** A subscriber pays the total by mobile money before the confirm (the quote's intent says so). */
  buyerPays?: boolean;
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
  // Repeat buyers. Absent: the feature shows nothing (no meters, no notice).
  /**
   * The number's saved meters, every product bought for a meter or account number (electricity,
   * water): by product, newest first, at most five each. Read once, when a dialogue starts.
   */
  savedMeters?(msisdn: string): Promise<SavedMeterItem[]>;
  /** "My meters": forget one; the number's saved meters left (as `savedMeters` answers them). */
  removeMeter?(msisdn: string, productType: ProductType, identifier: string): Promise<SavedMeterItem[]>;
  /** "My purchases": the last purchases in every state (src/purchases/history.ts). */
  purchaseHistory?(msisdn: string): Promise<PurchaseView[]>;
  /** The purchases of `identifier` from `msisdn` still without an outcome. */
  purchasesInProgress?(msisdn: string, identifier: string): Promise<PurchaseView[]>;
  /** "Report a problem": a case opened (its number goes by SMS); the same report again answers the same case. */
  openCase?(msisdn: string, purchaseId: string, reason: string): Promise<{ caseId: string }>;
  /** The operator's notice in a language (`en`, `tn`), from memory: never a database read. */
  operatorNotice?(language: string): string | null;
  /** `CARE_PHONE`/`CARE_HOURS` (Help). */
  care?: { phone: string; hours: string | null } | null;
  /** `USSD_ASK_TOKEN_RECIPIENT` (default true: asked unless turned off). */
  askTokenRecipient?: boolean;
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
  agent: AgentView | null;
  /** the caller's saved meters (a subscriber's, when read). */
  meters?: SavedMeters;
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
  loadCatalogue: fromService<DialogueStart, { msisdn: string; serviceCode: string; meters?: boolean }>(
    notProvided('loadCatalogue'),
  ),
  quote: fromService<QuoteView, { intent: PurchaseIntent | null }>(notProvided('quote')),
  order: fromService<string, { intent: PurchaseIntent; key: string; total: Money }>(notProvided('order')),
  resend: fromService<void, { purchaseId: string; key: string }>(notProvided('resend')),
  savedMeters: fromService<SavedMeters, { msisdn: string }>(notProvided('savedMeters')),
  removeMeter: fromService<
    SavedMeters,
    { msisdn: string; productType: ProductType | null; identifier: string | null }
  >(notProvided('removeMeter')),
  purchaseHistory: fromService<TokenItem[], { msisdn: string }>(notProvided('purchaseHistory')),
  inProgress: fromService<InProgressItem[], { msisdn: string; identifier: string | null }>(
    notProvided('inProgress'),
  ),
  openCase: fromService<string, { msisdn: string; purchaseId: string; reason: string }>(
    notProvided('openCase'),
  ),
  ...agentUnprovided,
  ...dealerUnprovided,
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
      // The operator's own spending rules and agents' floats are answers, not operator problems.
      if (error instanceof SpendRefusedError) throw error;
      const info = errorInfo(error);
      if (isOperatorProblem(info, airtime)) report(name, info);
      throw error;
    }
  }

  /**
   * The caller's saved meters when the dialogue starts; a failed read is no reason to refuse the
   * menu (undefined: the identifier screen asks for a meter typed, "My meters" reads them).
   */
  async function callerMeters(msisdn: string): Promise<SavedMeters | undefined> {
    if (!services.savedMeters) return {};
    try {
      return packMeters(await services.savedMeters(msisdn));
    } catch (error) {
      log.warn('dialogue: saved meters not read (none offered)', { error: errorInfo(error).message });
      return undefined;
    }
  }

  // Read at each call: a test may swap a service after the actors are built.
  const quotePorts: QuotePorts = {
    checkSpend: (intent) => services.checkSpend?.(intent) ?? Promise.resolve(null),
    validate: (request) => services.quote(request),
    agentSaleCheck: (msisdn, minor) => services.agentSaleCheck?.(msisdn, minor) ?? Promise.resolve(null),
  };

  /**
   * What every dialogue starts from while the catalogue stays the same: one frozen copy, not a
   * copy per dialogue. The context is persisted and must not alias the service's cache, and the
   * dialogues that share the copy cannot change it. (The engine also stores it once by identity,
   * src/ussd/engine/shared-context.ts.)
   */
  let shared:
    { source: VasProduct[]; notice: string; start: Pick<DialogueStart, 'products' | 'settings'> } | undefined;
  function sharedStart(products: VasProduct[]): Pick<DialogueStart, 'products' | 'settings'> {
    // The operator's notice, per language, from memory (no database read): a new one makes a new copy.
    const operatorNotice: Record<string, string> = {};
    for (const { code } of services.languages()) {
      const text = services.operatorNotice?.(code);
      if (text) operatorNotice[code] = text;
    }
    const notice = JSON.stringify(operatorNotice);
    if (shared?.source !== products || shared.notice !== notice) {
      const start = {
        products: structuredClone(products.filter((p) => p.providers.length > 0)),
        settings: {
          languages: structuredClone(services.languages()),
          defaultRegion: services.defaultRegion,
          maxTries: services.maxIdentifierTries ?? 3,
          amounts: structuredClone(services.amountRanges ?? {}),
          operatorNotice,
          care: services.care ? { phone: services.care.phone, hours: services.care.hours } : null,
          askTokenRecipient: services.askTokenRecipient ?? true,
        },
      };
      shared = { source: products, notice, start: deepFreeze(start) };
    }
    return shared.start;
  }

  return {
    loadCatalogue: fromService(({ input }) =>
      call('loadCatalogue', async () => {
        const [products, account, agent, meters] = await Promise.all([
          services.products(),
          services.debitAccount(),
          // On a code that does not serve agents, an agent's number is a subscriber like any other.
          services.agentOf && agentsServedOn(services.agentServiceCodes ?? [], input.serviceCode)
            ? services.agentOf(input.msisdn)
            : Promise.resolve(null),
          // read alongside, once per dialogue, so that no later hop (a product, Back) queries them.
          input.meters ? callerMeters(input.msisdn) : Promise.resolve(undefined),
        ]);
        const { products: offered, settings } = sharedStart(products);
        return {
          agent: agent ? { ...agent, verified: false } : null,
          products: offered,
          account: { id: account.id, currency: account.currency },
          settings,
          // An agent's own meters are not its customers'.
          ...(meters && !agent && { meters }),
        };
      }),
    ),
    quote: fromService(({ input: { intent } }) =>
      call(
        'quote',
        async () => {
          if (!intent) throw new Error('incomplete purchase in the dialogue');
          // Spending rules → validate → the agent's total: as every channel quotes a sale.
          const tx = await quoteSale(quotePorts, intent);
          const subscriberDetails = tx.subscriberDetails ?? null;
          const float =
            intent.agent && services.agentFloat ? await services.agentFloat(intent.agent.msisdn) : null;
          return {
            floatAfter: float
              ? { currency: float.available.currency, minor: float.available.minor - tx.total.minor }
              : null,
            intent: {
              ...intent,
              subscriberDetails,
              ...(services.buyerPays && !intent.agent && { paymentRequired: true }),
            },
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
    order: fromService(({ input }) =>
      call('order', async () => (await services.order(input.intent, input.key, input.total)).id),
    ),
    resend: fromService(({ input }) => call('resend', () => services.resend(input.purchaseId, input.key))),
    savedMeters: fromService(({ input }) =>
      call('savedMeters', async () =>
        services.savedMeters ? packMeters(await services.savedMeters(input.msisdn)) : {},
      ),
    ),
    removeMeter: fromService(({ input }) =>
      call('removeMeter', async () => {
        if (!services.removeMeter || !input.productType || !input.identifier)
          throw new Error('no meter to remove');
        return packMeters(await services.removeMeter(input.msisdn, input.productType, input.identifier));
      }),
    ),
    purchaseHistory: fromService(({ input }) =>
      call('purchaseHistory', async () => {
        const zone = services.timeZone ?? 'Africa/Gaborone';
        const views = services.purchaseHistory ? await services.purchaseHistory(input.msisdn) : [];
        return views.slice(0, MAX_TOKENS).map((v) => ({
          purchaseId: v.purchaseId,
          identifier: v.identifier,
          amount: { currency: v.amount.currency, minor: v.amount.minor },
          date: localDate(v.createdAt, zone),
          status: v.status,
          reference: v.reference,
          since: `${localDate(v.createdAt, zone)} ${localTime(new Date(v.createdAt), zone)}`,
          why: v.why,
          tokens: v.tokens.map((t) => (t.description ? `${t.description}: ${t.value}` : t.value)),
        }));
      }),
    ),
    inProgress: fromService(({ input }) =>
      call('inProgress', async () => {
        if (!services.purchasesInProgress || !input.identifier) return [];
        const views = await services.purchasesInProgress(input.msisdn, input.identifier);
        return views.map((v) => ({
          amount: { currency: v.amount.currency, minor: v.amount.minor },
          reference: v.reference,
        }));
      }),
    ),
    openCase: fromService(({ input }) =>
      call('openCase', async () => {
        if (!services.openCase) throw new Error('complaint cases are not wired');
        return (await services.openCase(input.msisdn, input.purchaseId, input.reason)).caseId;
      }),
    ),
    ...agentActors(services, call),
    ...dealerActors(services, call),
  };
}
