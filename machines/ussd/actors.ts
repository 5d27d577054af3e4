/**
 * The dialogue's only I/O: promise actors over the injected {@link DialogueServices}. Restoring
 * a snapshot restarts a running invocation, so each one is safe to run twice: catalogue,
 * account, quote and "my tokens" are reads; `order` is idempotent by the dialogue's key;
 * `resend` by a key derived from the session and the purchase.
 */
import { fromService } from '../../src/session/dialogue';
import { agentsServedOn } from '../../src/agents/service-codes';
import { componentLogger } from '../../src/observability/logger';
import { deepFreeze } from '../../src/session/deep-freeze';
import { maskMsisdn } from '../../src/phone';
import { purchaseRequest } from '../../src/purchases/request';
import type { PurchaseIntent, PurchaseRecord } from '../../src/purchases/types';
import { errorInfo, type ServiceErrorInfo } from '../../src/vas/error-info';
import type { Account, PurchaseRequest, Transaction, VasProduct } from '../../src/vas/port';
import type { AgentView, DialogueSettings, QuoteView, TokenItem, UssdContext } from './context';
import { isOperatorProblem } from './errors';
import { SpendRefusedError, type AmountRange, type SpendRefusal } from '../../src/spend/rules';
import { localDate } from '../../src/i18n/local-time';
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
  /**
   * Hand the intent to the purchase lifecycle; the same key returns the same record. An agent's
   * sale holds `total` on the agent's float first (a refusal throws SpendRefusedError).
   */
  order(intent: PurchaseIntent, idempotencyKey: string, total?: Money): Promise<PurchaseRecord>;
  /**
   * An agent's sale of `minor` checked against its float and limits (nothing held): the amount
   * screen asks with the amount typed, the quote again with the total the float would pay.
   */
  agentSaleCheck?(msisdn: string, minor: number): Promise<SpendRefusal | null>;
  /** AGENT_SERVICE_CODES, keyed (src/agents/service-codes.ts): the codes serving agents; empty: every code. */
  agentServiceCodes?: string[];
  /** The caller as a field agent, or null for a subscriber. */
  agentOf?(msisdn: string): Promise<Omit<AgentView, 'verified'> | null>;
  /** An agent's PIN checked (counting towards the lockout); the PIN is never kept. */
  verifyPin?(msisdn: string, pin: string): Promise<PinOutcome>;
  /** A float agent's float (null: funded by an account). */
  agentFloat?(msisdn: string): Promise<{ available: Money; held: Money } | null>;
  /** A new PIN checked and hashed (the hash may be kept between the PIN and its repetition). */
  newPinCandidate?(
    msisdn: string,
    pin: string,
  ): Promise<{ ok: true; candidate: PinHash } | { ok: false; problem: string }>;
  /** The repeated PIN against the candidate, then the change (only if the PIN checked is still the current one). */
  savePin?(
    msisdn: string,
    candidate: PinHash,
    repeated: string,
    pinVersion: number,
  ): Promise<'changed' | 'mismatch' | 'stale'>;
  /** The agent's last sales, newest first. */
  agentSales?(msisdn: string): Promise<SaleItem[]>;
  /** The agent's receipt of a sale again, by SMS; the same request key sends it once. */
  resendReceipt?(purchaseId: string, requestKey: string): Promise<void>;
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

/** What a PIN check found. */
export type PinOutcome =
  | { status: 'ok'; mustChangePin: boolean; pinVersion: number }
  | { status: 'wrong'; attemptsLeft: number }
  | { status: 'locked'; until: string }
  | { status: 'disabled' }
  | { status: 'not_agent' };

/** A hashed PIN candidate: salt, hash and scrypt parameters — never the PIN. */
export interface PinHash {
  hash: string;
  salt: string;
  params: { N: number; r: number; p: number; keyLen: number };
}

/** One of an agent's last sales as the "Last sales" screen shows it. */
export interface SaleItem {
  purchaseId: string;
  date: string;
  identifier: string;
  total: Money;
  state: string;
}

/** Where the operator's own problems are reported (the gateway's log unless a test listens). */
export type OperatorProblemReport = (call: string, error: ServiceErrorInfo) => void;

/** What the dialogue starts from: the catalogue, the debited account and the settings. */
export interface DialogueStart {
  products: VasProduct[];
  account: NonNullable<UssdContext['account']>;
  settings: DialogueSettings;
  agent: AgentView | null;
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
  loadCatalogue: fromService<DialogueStart, { msisdn: string; serviceCode: string }>(
    notProvided('loadCatalogue'),
  ),
  quote: fromService<QuoteView, { intent: PurchaseIntent | null }>(notProvided('quote')),
  order: fromService<string, { intent: PurchaseIntent; key: string; total: Money }>(notProvided('order')),
  verifyPin: fromService<PinOutcome, { msisdn: string; pin: string }>(notProvided('verifyPin')),
  agentSaleCheck: fromService<SpendRefusal | null, { msisdn: string; minor: number }>(
    notProvided('agentSaleCheck'),
  ),
  agentFloat: fromService<{ available: Money; held: Money } | null, { msisdn: string }>(
    notProvided('agentFloat'),
  ),
  newPinCandidate: fromService<
    { ok: true; candidate: PinHash } | { ok: false; problem: string },
    { msisdn: string; pin: string }
  >(notProvided('newPinCandidate')),
  savePin: fromService<
    'changed' | 'mismatch' | 'stale',
    { msisdn: string; candidate: PinHash | null; repeated: string; pinVersion: number }
  >(notProvided('savePin')),
  agentSales: fromService<SaleItem[], { msisdn: string }>(notProvided('agentSales')),
  resendReceipt: fromService<void, { purchaseId: string; key: string }>(notProvided('resendReceipt')),
  recentPurchases: fromService<TokenItem[], { msisdn: string }>(notProvided('recentPurchases')),
  resend: fromService<void, { purchaseId: string; key: string }>(notProvided('resend')),
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
   * What every dialogue starts from while the catalogue stays the same: one frozen copy, not a
   * copy per dialogue. The context is persisted and must not alias the service's cache, and the
   * dialogues that share the copy cannot change it. (The engine also stores it once by identity,
   * src/session/shared-context.ts.)
   */
  let shared: { source: VasProduct[]; start: Pick<DialogueStart, 'products' | 'settings'> } | undefined;
  function sharedStart(products: VasProduct[]): Pick<DialogueStart, 'products' | 'settings'> {
    if (shared?.source !== products) {
      const start = {
        products: structuredClone(products.filter((p) => p.providers.length > 0)),
        settings: {
          languages: structuredClone(services.languages()),
          defaultRegion: services.defaultRegion,
          maxTries: services.maxIdentifierTries ?? 3,
          amounts: structuredClone(services.amountRanges ?? {}),
        },
      };
      shared = { source: products, start: deepFreeze(start) };
    }
    return shared.start;
  }

  return {
    loadCatalogue: fromService(({ input }) =>
      call('loadCatalogue', async () => {
        const [products, account, agent] = await Promise.all([
          services.products(),
          services.debitAccount(),
          // On a code that does not serve agents, an agent's number is a subscriber like any other.
          services.agentOf && agentsServedOn(services.agentServiceCodes ?? [], input.serviceCode)
            ? services.agentOf(input.msisdn)
            : Promise.resolve(null),
        ]);
        const { products: offered, settings } = sharedStart(products);
        return {
          agent: agent ? { ...agent, verified: false } : null,
          products: offered,
          account: { id: account.id, currency: account.currency },
          settings,
        };
      }),
    ),
    quote: fromService(({ input: { intent } }) =>
      call(
        'quote',
        async () => {
          if (!intent) throw new Error('incomplete purchase in the dialogue');
          const refusal = await services.checkSpend?.(intent);
          if (refusal) throw new SpendRefusedError(refusal);
          const tx = await services.quote(purchaseRequest(intent));
          // The float pays the total (charges included): a quote it cannot pay is not shown.
          const overTotal =
            intent.agent && services.agentSaleCheck
              ? await services.agentSaleCheck(intent.agent.msisdn, tx.total.minor)
              : null;
          if (overTotal) throw new SpendRefusedError(overTotal);
          const subscriberDetails = tx.subscriberDetails ?? null;
          const float =
            intent.agent && services.agentFloat ? await services.agentFloat(intent.agent.msisdn) : null;
          return {
            floatAfter: float
              ? { currency: float.available.currency, minor: float.available.minor - tx.total.minor }
              : null,
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
    order: fromService(({ input }) =>
      call('order', async () => (await services.order(input.intent, input.key, input.total)).id),
    ),
    verifyPin: fromService(({ input }) =>
      call('verifyPin', async () => {
        if (!services.verifyPin) return { status: 'not_agent' } as const;
        return services.verifyPin(input.msisdn, input.pin);
      }),
    ),
    agentSaleCheck: fromService(({ input }) =>
      call('agentSaleCheck', async () =>
        services.agentSaleCheck ? services.agentSaleCheck(input.msisdn, input.minor) : null,
      ),
    ),
    agentFloat: fromService(({ input }) =>
      call('agentFloat', async () => (services.agentFloat ? services.agentFloat(input.msisdn) : null)),
    ),
    newPinCandidate: fromService(({ input }) =>
      call('newPinCandidate', async () =>
        services.newPinCandidate
          ? services.newPinCandidate(input.msisdn, input.pin)
          : ({ ok: false, problem: 'format' } as const),
      ),
    ),
    savePin: fromService(({ input }) =>
      call('savePin', async () =>
        services.savePin && input.candidate
          ? services.savePin(input.msisdn, input.candidate, input.repeated, input.pinVersion)
          : ('stale' as const),
      ),
    ),
    agentSales: fromService(({ input }) =>
      call('agentSales', async () => (services.agentSales ? services.agentSales(input.msisdn) : [])),
    ),
    resendReceipt: fromService(({ input }) =>
      call('resendReceipt', async () => services.resendReceipt?.(input.purchaseId, input.key)),
    ),
    recentPurchases: fromService(({ input }) =>
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
    resend: fromService(({ input }) => call('resend', () => services.resend(input.purchaseId, input.key))),
  };
}
