/**
 * The USSD dialogue: main menu → provider → (airtime: whose number) → identifier → amount →
 * quote → buy, plus "My tokens" and "Language". The engine (src/session/) restores this
 * machine from a snapshot on every hop, sends one DialogueEvent, waits for the `settled`
 * tag and renders `context.screen`.
 *
 * I/O happens only in the `fromPromise` actors below, which call the injected services.
 * Restoring a snapshot restarts running invocations, so every one of them is safe to run
 * twice: catalogue, account, quote and "my tokens" are reads; `order` is idempotent by the
 * dialogue's key (`<aggregator>:<sessionId>`); `resend` by a key derived from the session and
 * the purchase. Nothing here debits money: `order` hands the intent to the purchase lifecycle.
 */
import { assign, fromPromise, setup } from 'xstate';
import { normaliseMsisdn, regionFromLanguageTag, maskMsisdn, type CountryCode } from '../src/phone';
import type { PurchaseIntent, PurchaseRecord } from '../src/purchases/types';
import {
  RESUMABLE_TAG,
  SETTLED_TAG,
  type DialogueEvent,
  type DialogueInput,
  type LocalText,
} from '../src/session/dialogue';
import { validateIdentifier } from '../src/vas/catalogue';
import { parseDecimalAmount } from '../src/vas/money';
import type { Account, PurchaseRequest, Transaction, VasProduct } from '../src/vas/port';
import type { QuoteView, StallTarget, TokenItem, UssdContext } from './ussd/context';
import { reasonText, reduceError, routeQuoteError, type QuoteErrorRoute } from './ussd/errors';
import * as screens from './ussd/screens';

export type { UssdContext } from './ussd/context';
export { OPT } from './ussd/screens';

/** Bump when the state or context shape changes: the engine discards snapshots of another version. */
export const USSD_MACHINE_VERSION = '1';

/** What the dialogue may call. Every method must be safe to call twice with the same arguments. */
export interface DialogueServices {
  /** The (cached) catalogue, in catalogue order. */
  products(): Promise<VasProduct[]>;
  /** The debited account: DEBIT_ACCOUNT_ID, else the first CURRENT account. */
  debitAccount(): Promise<Account>;
  /** Validate (no state change on the server); throws PurchaseServiceError / TransportError. */
  quote(request: PurchaseRequest): Promise<Transaction>;
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
}

/** How many "My tokens" entries the dialogue lists (the engine paginates them). */
const MAX_TOKENS = 10;

type Choose = Extract<DialogueEvent, { type: 'CHOOSE' }>;
type Text = Extract<DialogueEvent, { type: 'TEXT' }>;

const chosen = (event: { type: string }): string | null =>
  event.type === 'CHOOSE' ? (event as Choose).optionId : null;
const typed = (event: { type: string }): string => (event.type === 'TEXT' ? (event as Text).text.trim() : '');
const suffix = (id: string | null, prefix: string): string | null =>
  id !== null && id.startsWith(prefix) ? id.slice(prefix.length) : null;
/** People type spaces inside meter numbers; the service wants the bare value. */
const compact = (text: string): string => text.replace(/\s+/g, '');

/** Fields the quote actor needs; checked inside the actor so a gap becomes an error, not a crash. */
interface QuoteInput {
  ctx: Pick<
    UssdContext,
    'language' | 'productType' | 'providerCode' | 'identifier' | 'amountMinor' | 'account' | 'msisdn'
  >;
}

function buildRequest({ ctx }: QuoteInput): PurchaseRequest {
  if (!ctx.productType || !ctx.providerCode || !ctx.identifier || !ctx.amountMinor || !ctx.account) {
    throw new Error('incomplete purchase in the dialogue');
  }
  return {
    sourceChannel: 'USSD',
    language: ctx.language,
    productType: ctx.productType,
    providerCode: ctx.providerCode,
    debitedAccountId: ctx.account.id,
    // Airtime goes to the number typed (or the caller's own); everything else to the caller.
    beneficiaryPhoneNumber: ctx.productType === 'AIRTIME' ? ctx.identifier : ctx.msisdn,
    subscriberIdentifier: ctx.identifier,
    amount: { currency: ctx.account.currency, minor: ctx.amountMinor },
  };
}

function intentFrom(ctx: UssdContext): PurchaseIntent {
  if (!ctx.quote) throw new Error('no quote to buy');
  const r = ctx.quote.request;
  return {
    productType: r.productType,
    providerCode: r.providerCode,
    subscriberIdentifier: r.subscriberIdentifier,
    amount: { ...r.amount },
    debitedAccountId: r.debitedAccountId,
    beneficiaryMsisdn: r.beneficiaryPhoneNumber,
    requesterMsisdn: ctx.msisdn,
    language: r.language,
    channel: 'USSD',
    subscriberDetails: ctx.quote.subscriberDetails,
  };
}

/** The in-progress purchase, cleared on HOME. */
const NO_PURCHASE = {
  productType: null,
  providerCode: null,
  airtimeFor: null,
  identifier: null,
  identifierTries: 0,
  amountMinor: null,
  amountTries: 0,
  quote: null,
  stalled: null,
  lastError: null,
} satisfies Partial<UssdContext>;

/** Builds the dialogue machine over the given services. */
export function createUssdMachine(services: DialogueServices) {
  const maxTries = services.maxIdentifierTries ?? 3;
  const region = (language: string) => regionFromLanguageTag(language, services.defaultRegion as CountryCode);
  const product = (ctx: UssdContext, type: string | null) => ctx.products.find((p) => p.productType === type);

  /** Why a typed identifier is refused, or null when it passes the catalogue rule. */
  function identifierProblem(ctx: UssdContext, text: string): LocalText | null {
    const rule = product(ctx, ctx.productType)?.identifier;
    if (!rule) return null;
    const check = validateIdentifier(rule, compact(text));
    if (check.ok) return null;
    if (check.reason === 'tooShort')
      return { key: 'identifier.invalid.tooShort', params: { min: check.min ?? 0 } };
    if (check.reason === 'tooLong')
      return { key: 'identifier.invalid.tooLong', params: { max: check.max ?? 0 } };
    return { key: 'identifier.invalid.pattern' };
  }

  /** E.164 digits of a typed airtime number that also passes the catalogue rule, or null. */
  function airtimeNumber(ctx: UssdContext, text: string): string | null {
    const n = normaliseMsisdn(text, region(ctx.language));
    if (!n.ok) return null;
    const rule = product(ctx, ctx.productType)?.identifier;
    return !rule || validateIdentifier(rule, n.e164).ok ? n.e164 : null;
  }

  function amountProblem(text: string): LocalText | null {
    const parsed = parseDecimalAmount(text);
    return parsed.ok ? null : { key: `amount.invalid.${parsed.reason}` };
  }

  const quoteRoute = (ctx: UssdContext, error: unknown): QuoteErrorRoute =>
    routeQuoteError(reduceError(error), ctx.productType === 'AIRTIME');

  return setup({
    types: {
      context: {} as UssdContext,
      events: {} as DialogueEvent,
      input: {} as DialogueInput,
    },
    actors: {
      loadCatalogue: fromPromise(async () => {
        const [products, account] = await Promise.all([services.products(), services.debitAccount()]);
        return {
          // A copy: the context is persisted and must not alias the service's cache.
          products: structuredClone(products.filter((p) => p.providers.length > 0)),
          account: { id: account.id, currency: account.currency },
        };
      }),
      quote: fromPromise<QuoteView, QuoteInput>(async ({ input }) => {
        const request = buildRequest(input);
        const tx = await services.quote(request);
        return {
          request,
          subscriberDetails: tx.subscriberDetails ?? null,
          units: tx.units ?? null,
          amount: { ...request.amount },
          charge: { currency: tx.charge.currency, minor: tx.charge.minor },
          total: { currency: tx.total.currency, minor: tx.total.minor },
        };
      }),
      order: fromPromise<string, { intent: PurchaseIntent; key: string }>(
        async ({ input }) => (await services.order(input.intent, input.key)).id,
      ),
      recentPurchases: fromPromise<TokenItem[], { msisdn: string }>(async ({ input }) => {
        const records = await services.recentPurchases(input.msisdn);
        return records
          .filter((r) => r.state === 'succeeded')
          .slice(0, MAX_TOKENS)
          .map((r) => ({
            purchaseId: r.id,
            identifier: maskMsisdn(r.intent.subscriberIdentifier),
            amount: { currency: r.intent.amount.currency, minor: r.intent.amount.minor },
            date: r.createdAt.slice(0, 10),
          }));
      }),
      resend: fromPromise<void, { purchaseId: string; key: string }>(async ({ input }) => {
        await services.resend(input.purchaseId, input.key);
      }),
    },
    guards: {
      chose: ({ event }, params: { id: string }) => chosen(event) === params.id,
      choseProduct: ({ context, event }) => product(context, suffix(chosen(event), 'product:')) !== undefined,
      choseProvider: ({ context, event }) => {
        const code = suffix(chosen(event), 'provider:');
        return !!product(context, context.productType)?.providers.some((p) => p.code === code);
      },
      choseLanguage: ({ event }) => {
        const code = suffix(chosen(event), 'lang:');
        return services.languages().some((l) => l.code === code);
      },
      choseToken: ({ context, event }) => {
        const id = suffix(chosen(event), 'token:');
        return context.tokens.some((t) => t.purchaseId === id);
      },
      manyProviders: ({ context }) => (product(context, context.productType)?.providers.length ?? 0) > 1,
      isAirtime: ({ context }) => context.productType === 'AIRTIME',
      airtimeForOther: ({ context }) => context.airtimeFor === 'other',
      // The caller's MSISDN is E.164 digits already: parse it as international, whatever the region.
      ownNumberFits: ({ context }) => airtimeNumber(context, `+${context.msisdn}`) === context.msisdn,
      identifierOk: ({ context, event }) =>
        typed(event) !== '' && identifierProblem(context, typed(event)) === null,
      phoneOk: ({ context, event }) => airtimeNumber(context, typed(event)) !== null,
      amountOk: ({ event }) => amountProblem(typed(event)) === null,
      identifierTriesLeft: ({ context }) => context.identifierTries + 1 < maxTries,
      amountTriesLeft: ({ context }) => context.amountTries + 1 < maxTries,
      quoteRoute: ({ context, event }, params: { route: QuoteErrorRoute }) =>
        'error' in event && quoteRoute(context, (event as { error: unknown }).error) === params.route,
      stalledOn: ({ context }, params: { on: StallTarget[] }) =>
        context.stalled !== null && params.on.includes(context.stalled),
    },
    actions: {
      showMenu: assign(({ context }) => ({ screen: screens.menuScreen(context), notice: null })),
      showProvider: assign(({ context }) => ({ screen: screens.providerScreen(context), notice: null })),
      showAirtimeFor: assign(({ context }) => ({ screen: screens.airtimeForScreen(context), notice: null })),
      showPhone: assign(({ context }) => ({ screen: screens.phoneScreen(context), notice: null })),
      showIdentifier: assign(({ context }) => ({ screen: screens.identifierScreen(context), notice: null })),
      showAmount: assign(({ context }) => ({ screen: screens.amountScreen(context), notice: null })),
      showQuote: assign(({ context }) => ({ screen: screens.quoteScreen(context), notice: null })),
      showTokens: assign(({ context }) => ({ screen: screens.tokensScreen(context), notice: null })),
      showLanguages: assign(({ context }) => ({
        screen: screens.languageScreen(context, services.languages()),
        notice: null,
      })),
      showStalled: assign(({ context }) => ({ screen: screens.stalledScreen(context), notice: null })),
      showDone: assign(({ context }) => ({ screen: screens.doneScreen(context) })),
      showFinal: assign((_, params: { key: string }) => ({
        screen: screens.finalScreen({ key: params.key }),
      })),
      showTryLater: assign(({ context }) => ({
        screen: screens.finalScreen(reasonText(context.lastError?.code ?? '', 'error.tryAgainLater')),
      })),
      notice: assign((_, params: { key: string }) => ({ notice: { key: params.key } })),
      clearPurchase: assign(() => ({ ...NO_PURCHASE })),
      stall: assign((_, params: { on: StallTarget }) => ({ stalled: params.on })),
      selectProduct: assign(({ event }) => ({
        ...NO_PURCHASE,
        productType: suffix(chosen(event), 'product:') as UssdContext['productType'],
      })),
      selectProvider: assign(({ event }) => ({ providerCode: suffix(chosen(event), 'provider:') })),
      selectOnlyProvider: assign(({ context }) => ({
        providerCode: product(context, context.productType)?.providers[0]?.code ?? null,
      })),
      useOwnNumber: assign(({ context }) => ({ airtimeFor: 'self' as const, identifier: context.msisdn })),
      useOtherNumber: assign({ airtimeFor: 'other' as const }),
      takePhone: assign(({ context, event }) => ({ identifier: airtimeNumber(context, typed(event)) })),
      takeIdentifier: assign(({ event }) => ({ identifier: compact(typed(event)) })),
      takeAmount: assign(({ event }) => {
        const parsed = parseDecimalAmount(typed(event));
        return { amountMinor: parsed.ok ? parsed.minor : null };
      }),
      identifierTry: assign(({ context, event }) => ({
        identifierTries: context.identifierTries + 1,
        notice:
          event.type === 'TEXT'
            ? context.productType === 'AIRTIME'
              ? { key: 'identifier.invalid.invalidPhone' }
              : identifierProblem(context, typed(event))
            : context.notice,
      })),
      amountTry: assign(({ context, event }) => ({
        amountTries: context.amountTries + 1,
        notice: event.type === 'TEXT' ? amountProblem(typed(event)) : context.notice,
      })),
      /** A refused quote: the reason goes above the re-prompt, the error into context for the engine's log. */
      quoteRefused: assign(({ context, event }) => {
        const e = reduceError((event as unknown as { error: unknown }).error);
        const route = quoteRoute(context, (event as unknown as { error: unknown }).error);
        const fallback = route === 'amount' ? 'reason.invalid_amount' : 'identifier.invalid.pattern';
        return {
          notice: reasonText(e.code, fallback),
          lastError: {
            code: e.code,
            message: e.message,
            param: e.param,
            operatorProblem: route === 'unavailable',
          },
        };
      }),
      /** Any other failure: kept for the engine, flagged loudly when it is the operator's own problem. */
      recordError: assign(({ context, event }) => {
        const error = (event as unknown as { error: unknown }).error;
        const e = reduceError(error);
        const route = quoteRoute(context, error);
        return {
          lastError: {
            code: e.code,
            message: e.message,
            param: e.param,
            operatorProblem: route === 'unavailable',
          },
        };
      }),
      takeQuote: assign(({ event }) => ({ quote: (event as unknown as { output: QuoteView }).output })),
      setLanguage: assign(({ event }) => {
        const code = suffix(chosen(event), 'lang:');
        const lang = services.languages().find((l) => l.code === code);
        return lang ? { language: lang.tag } : {};
      }),
      chooseToken: assign(({ event }) => ({ resendId: suffix(chosen(event), 'token:') })),
    },
  }).createMachine({
    id: 'ussd',
    context: ({ input }) => ({
      sessionId: input.sessionId,
      aggregator: input.aggregator,
      startedAt: input.startedAt,
      msisdn: input.msisdn,
      language: input.language,
      serviceCode: input.serviceCode,
      screen: { body: [] },
      notice: null,
      products: [],
      account: null,
      ...NO_PURCHASE,
      purchaseId: null,
      tokens: [],
      resendId: null,
    }),
    initial: 'loading',
    states: {
      loading: {
        invoke: {
          src: 'loadCatalogue',
          onDone: {
            target: 'menu',
            actions: assign(({ event }) => ({
              products: event.output.products,
              account: event.output.account,
            })),
          },
          onError: { target: 'unavailable', actions: 'recordError' },
        },
        on: { TIMEOUT: { target: 'stalled', actions: { type: 'stall', params: { on: 'catalogue' } } } },
      },

      menu: {
        tags: SETTLED_TAG,
        entry: 'showMenu',
        on: {
          CHOOSE: [
            { guard: 'choseProduct', target: 'productChosen', actions: 'selectProduct' },
            { guard: { type: 'chose', params: { id: screens.OPT.tokens } }, target: 'tokensLoading' },
            { guard: { type: 'chose', params: { id: screens.OPT.language } }, target: 'language' },
            {
              target: 'menu',
              reenter: true,
              actions: { type: 'notice', params: { key: 'error.invalidChoice' } },
            },
          ],
          TEXT: {
            target: 'menu',
            reenter: true,
            actions: { type: 'notice', params: { key: 'error.invalidChoice' } },
          },
          BACK: { target: 'menu', reenter: true },
          HOME: { target: 'menu', reenter: true, actions: 'clearPurchase' },
        },
      },

      /** Transient: skip the provider menu when there is only one. */
      productChosen: {
        always: [
          { guard: 'manyProviders', target: 'provider' },
          { target: 'providerChosen', actions: 'selectOnlyProvider' },
        ],
      },

      provider: {
        tags: [SETTLED_TAG, RESUMABLE_TAG],
        entry: 'showProvider',
        on: {
          CHOOSE: [
            { guard: 'choseProvider', target: 'providerChosen', actions: 'selectProvider' },
            {
              target: 'provider',
              reenter: true,
              actions: { type: 'notice', params: { key: 'error.invalidChoice' } },
            },
          ],
          TEXT: {
            target: 'provider',
            reenter: true,
            actions: { type: 'notice', params: { key: 'error.invalidChoice' } },
          },
          BACK: { target: 'menu', actions: 'clearPurchase' },
          HOME: { target: 'menu', actions: 'clearPurchase' },
        },
      },

      /** Transient: airtime asks whose number first. */
      providerChosen: {
        always: [{ guard: 'isAirtime', target: 'airtimeFor' }, { target: 'identifier' }],
      },

      airtimeFor: {
        tags: [SETTLED_TAG, RESUMABLE_TAG],
        entry: 'showAirtimeFor',
        on: {
          CHOOSE: [
            {
              guard: { type: 'chose', params: { id: screens.OPT.self } },
              target: 'ownNumberChosen',
            },
            {
              guard: { type: 'chose', params: { id: screens.OPT.other } },
              target: 'phone',
              actions: 'useOtherNumber',
            },
            {
              target: 'airtimeFor',
              reenter: true,
              actions: { type: 'notice', params: { key: 'error.invalidChoice' } },
            },
          ],
          TEXT: {
            target: 'airtimeFor',
            reenter: true,
            actions: { type: 'notice', params: { key: 'error.invalidChoice' } },
          },
          BACK: [
            { guard: 'manyProviders', target: 'provider' },
            { target: 'menu', actions: 'clearPurchase' },
          ],
          HOME: { target: 'menu', actions: 'clearPurchase' },
        },
      },

      /** Transient: the caller's own number must fit the catalogue's rule too, else ask for one. */
      ownNumberChosen: {
        always: [
          { guard: 'ownNumberFits', target: 'amount', actions: 'useOwnNumber' },
          {
            target: 'phone',
            actions: [
              'useOtherNumber',
              { type: 'notice', params: { key: 'identifier.invalid.invalidPhone' } },
            ],
          },
        ],
      },

      phone: {
        tags: [SETTLED_TAG, RESUMABLE_TAG],
        entry: 'showPhone',
        on: {
          TEXT: [
            { guard: 'phoneOk', target: 'amount', actions: 'takePhone' },
            { guard: 'identifierTriesLeft', target: 'phone', reenter: true, actions: 'identifierTry' },
            { target: 'tooManyTries', actions: 'identifierTry' },
          ],
          CHOOSE: {
            target: 'phone',
            reenter: true,
            actions: { type: 'notice', params: { key: 'identifier.invalid.invalidPhone' } },
          },
          BACK: { target: 'airtimeFor' },
          HOME: { target: 'menu', actions: 'clearPurchase' },
        },
      },

      identifier: {
        tags: [SETTLED_TAG, RESUMABLE_TAG],
        entry: 'showIdentifier',
        on: {
          TEXT: [
            { guard: 'identifierOk', target: 'amount', actions: 'takeIdentifier' },
            { guard: 'identifierTriesLeft', target: 'identifier', reenter: true, actions: 'identifierTry' },
            { target: 'tooManyTries', actions: 'identifierTry' },
          ],
          CHOOSE: {
            target: 'identifier',
            reenter: true,
            actions: { type: 'notice', params: { key: 'identifier.invalid.pattern' } },
          },
          BACK: [
            { guard: 'manyProviders', target: 'provider' },
            { target: 'menu', actions: 'clearPurchase' },
          ],
          HOME: { target: 'menu', actions: 'clearPurchase' },
        },
      },

      amount: {
        tags: [SETTLED_TAG, RESUMABLE_TAG],
        entry: 'showAmount',
        on: {
          TEXT: [
            { guard: 'amountOk', target: 'quoting', actions: 'takeAmount' },
            { guard: 'amountTriesLeft', target: 'amount', reenter: true, actions: 'amountTry' },
            { target: 'tooManyTries', actions: 'amountTry' },
          ],
          CHOOSE: {
            target: 'amount',
            reenter: true,
            actions: { type: 'notice', params: { key: 'amount.invalid.notNumber' } },
          },
          BACK: [
            { guard: 'airtimeForOther', target: 'phone' },
            { guard: 'isAirtime', target: 'airtimeFor' },
            { target: 'identifier' },
          ],
          HOME: { target: 'menu', actions: 'clearPurchase' },
        },
      },

      quoting: {
        invoke: {
          src: 'quote',
          input: ({ context }) => ({ ctx: context }),
          onDone: { target: 'quote', actions: 'takeQuote' },
          onError: [
            {
              guard: { type: 'quoteRoute', params: { route: 'identifier' } },
              target: 'identifierRefused',
              actions: 'quoteRefused',
            },
            {
              guard: { type: 'quoteRoute', params: { route: 'amount' } },
              target: 'amountRefused',
              actions: 'quoteRefused',
            },
            {
              guard: { type: 'quoteRoute', params: { route: 'tryLater' } },
              target: 'tryLater',
              actions: 'recordError',
            },
            { target: 'unavailable', actions: 'recordError' },
          ],
        },
        on: { TIMEOUT: { target: 'stalled', actions: { type: 'stall', params: { on: 'quote' } } } },
      },

      /** Transient: the service refused the identifier; it counts as a wrong try. */
      identifierRefused: {
        always: [
          {
            guard: 'identifierTriesLeft',
            target: 'identifierAgain',
            actions: assign(({ context }) => ({ identifierTries: context.identifierTries + 1 })),
          },
          {
            target: 'tooManyTries',
            actions: assign(({ context }) => ({ identifierTries: context.identifierTries + 1 })),
          },
        ],
      },
      identifierAgain: {
        always: [{ guard: 'isAirtime', target: 'phone' }, { target: 'identifier' }],
      },
      /** Transient: the service refused the amount; it counts as a wrong try. */
      amountRefused: {
        always: [
          {
            guard: 'amountTriesLeft',
            target: 'amount',
            actions: assign(({ context }) => ({ amountTries: context.amountTries + 1 })),
          },
          {
            target: 'tooManyTries',
            actions: assign(({ context }) => ({ amountTries: context.amountTries + 1 })),
          },
        ],
      },

      quote: {
        tags: [SETTLED_TAG, RESUMABLE_TAG],
        entry: 'showQuote',
        on: {
          CHOOSE: [
            { guard: { type: 'chose', params: { id: screens.OPT.buy } }, target: 'ordering' },
            { guard: { type: 'chose', params: { id: screens.OPT.cancel } }, target: 'cancelled' },
            {
              target: 'quote',
              reenter: true,
              actions: { type: 'notice', params: { key: 'error.invalidChoice' } },
            },
          ],
          TEXT: {
            target: 'quote',
            reenter: true,
            actions: { type: 'notice', params: { key: 'error.invalidChoice' } },
          },
          BACK: { target: 'amount' },
          HOME: { target: 'menu', actions: 'clearPurchase' },
        },
      },

      ordering: {
        invoke: {
          src: 'order',
          input: ({ context }) => ({
            intent: intentFrom(context),
            // One purchase per dialogue; `startedAt` tells apart dialogues of a recycled session id.
            key: `${context.aggregator}:${context.sessionId}:${context.startedAt ?? 0}`,
          }),
          onDone: {
            target: 'done',
            actions: assign(({ event }) => ({ purchaseId: event.output })),
          },
          // The record may or may not exist: retry with the same key, never walk away to another purchase.
          onError: {
            target: 'stalled',
            actions: ['recordError', { type: 'stall', params: { on: 'order' } }],
          },
        },
        on: { TIMEOUT: { target: 'stalled', actions: { type: 'stall', params: { on: 'order' } } } },
      },

      tokensLoading: {
        invoke: {
          src: 'recentPurchases',
          input: ({ context }) => ({ msisdn: context.msisdn }),
          onDone: { target: 'tokens', actions: assign(({ event }) => ({ tokens: event.output })) },
          onError: {
            target: 'stalled',
            actions: ['recordError', { type: 'stall', params: { on: 'tokens' } }],
          },
        },
        on: { TIMEOUT: { target: 'stalled', actions: { type: 'stall', params: { on: 'tokens' } } } },
      },

      tokens: {
        tags: SETTLED_TAG,
        entry: 'showTokens',
        on: {
          CHOOSE: [
            { guard: 'choseToken', target: 'resending', actions: 'chooseToken' },
            {
              target: 'tokens',
              reenter: true,
              actions: { type: 'notice', params: { key: 'error.invalidChoice' } },
            },
          ],
          TEXT: {
            target: 'tokens',
            reenter: true,
            actions: { type: 'notice', params: { key: 'error.invalidChoice' } },
          },
          BACK: { target: 'menu', actions: 'clearPurchase' },
          HOME: { target: 'menu', actions: 'clearPurchase' },
        },
      },

      resending: {
        invoke: {
          src: 'resend',
          input: ({ context }) => ({
            purchaseId: context.resendId ?? '',
            key: `${context.aggregator}:${context.sessionId}:${context.startedAt ?? 0}:resend:${context.resendId ?? ''}`,
          }),
          onDone: { target: 'resent' },
          onError: {
            target: 'stalled',
            actions: ['recordError', { type: 'stall', params: { on: 'resend' } }],
          },
        },
        on: { TIMEOUT: { target: 'stalled', actions: { type: 'stall', params: { on: 'resend' } } } },
      },

      language: {
        tags: SETTLED_TAG,
        entry: 'showLanguages',
        on: {
          CHOOSE: [
            {
              guard: 'choseLanguage',
              target: 'menu',
              actions: [
                'setLanguage',
                'clearPurchase',
                { type: 'notice', params: { key: 'language.saved' } },
              ],
            },
            {
              target: 'language',
              reenter: true,
              actions: { type: 'notice', params: { key: 'error.invalidChoice' } },
            },
          ],
          TEXT: {
            target: 'language',
            reenter: true,
            actions: { type: 'notice', params: { key: 'error.invalidChoice' } },
          },
          BACK: { target: 'menu', actions: 'clearPurchase' },
          HOME: { target: 'menu', actions: 'clearPurchase' },
        },
      },

      /** "Please try again": option 1 re-runs the same safe invocation (an order with the same key). */
      stalled: {
        tags: [SETTLED_TAG, RESUMABLE_TAG],
        entry: 'showStalled',
        on: {
          CHOOSE: [
            { guard: { type: 'chose', params: { id: screens.OPT.retry } }, target: 'retrying' },
            {
              target: 'stalled',
              reenter: true,
              actions: { type: 'notice', params: { key: 'error.invalidChoice' } },
            },
          ],
          TEXT: {
            target: 'stalled',
            reenter: true,
            actions: { type: 'notice', params: { key: 'error.invalidChoice' } },
          },
          BACK: [
            {
              guard: { type: 'stalledOn', params: { on: ['order', 'catalogue'] } },
              target: 'stalled',
              reenter: true,
            },
            {
              guard: { type: 'stalledOn', params: { on: ['quote'] } },
              target: 'amount',
              actions: assign({ stalled: null }),
            },
            {
              guard: { type: 'stalledOn', params: { on: ['resend'] } },
              target: 'tokens',
              actions: assign({ stalled: null }),
            },
            { target: 'menu', actions: 'clearPurchase' },
          ],
          HOME: [
            {
              guard: { type: 'stalledOn', params: { on: ['order', 'catalogue'] } },
              target: 'stalled',
              reenter: true,
            },
            { target: 'menu', actions: 'clearPurchase' },
          ],
        },
      },
      retrying: {
        always: [
          { guard: { type: 'stalledOn', params: { on: ['catalogue'] } }, target: 'loading' },
          { guard: { type: 'stalledOn', params: { on: ['quote'] } }, target: 'quoting' },
          { guard: { type: 'stalledOn', params: { on: ['order'] } }, target: 'ordering' },
          { guard: { type: 'stalledOn', params: { on: ['tokens'] } }, target: 'tokensLoading' },
          { guard: { type: 'stalledOn', params: { on: ['resend'] } }, target: 'resending' },
          { target: 'menu', actions: 'clearPurchase' },
        ],
        exit: assign({ stalled: null }),
      },

      done: { type: 'final', tags: SETTLED_TAG, entry: 'showDone' },
      cancelled: {
        type: 'final',
        tags: SETTLED_TAG,
        entry: { type: 'showFinal', params: { key: 'cancelled' } },
      },
      resent: {
        type: 'final',
        tags: SETTLED_TAG,
        entry: { type: 'showFinal', params: { key: 'tokens.resent' } },
      },
      tooManyTries: {
        type: 'final',
        tags: SETTLED_TAG,
        entry: { type: 'showFinal', params: { key: 'error.tooManyTries' } },
      },
      tryLater: { type: 'final', tags: SETTLED_TAG, entry: 'showTryLater' },
      unavailable: {
        type: 'final',
        tags: SETTLED_TAG,
        entry: { type: 'showFinal', params: { key: 'error.serviceUnavailable' } },
      },
    },
  });
}

/** The machine type (for the engine's typing of snapshots and actors). */
export type UssdMachine = ReturnType<typeof createUssdMachine>;
