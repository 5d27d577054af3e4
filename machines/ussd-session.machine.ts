/**
 * The USSD dialogue: main menu → provider → (airtime: whose number) → identifier → amount →
 * quote → buy, plus "My tokens" and "Language". The engine (src/session/) restores this
 * machine from a snapshot on every hop, sends one DialogueEvent, waits for the `settled`
 * tag and renders `context.screen`.
 *
 * This file is the list of states. The I/O is in `ussd/actors.ts` (promise actors over the
 * injected services, each safe to run twice because a restore restarts it), the questions in
 * `ussd/guards.ts`, the context updates in `ussd/actions.ts`, the screens in `ussd/screens.ts`.
 * Nothing here debits money: `order` hands the quoted intent to the purchase lifecycle.
 */
import { assign, not, setup } from 'xstate';
import { SETTLED_TAG, type DialogueEvent, type DialogueInput } from '../src/session/dialogue';
import { actions, NO_PURCHASE } from './ussd/actions';
import { dialogueActors, unprovidedActors, type DialogueServices } from './ussd/actors';
import type { UssdContext } from './ussd/context';
import { guards } from './ussd/guards';
import { dialogueKey, draftIntent } from './ussd/purchase';
import { OPT } from './ussd/screens';
import {
  again,
  end,
  quoteRoute,
  retryStalled,
  stalledOn,
  stayStalled,
  stallOn,
  stallOnError,
  toMenu,
  typedAnswer,
  waiting,
  withError,
} from './ussd/transitions';

export type { UssdContext } from './ussd/context';
export type { DialogueServices, OperatorProblemReport } from './ussd/actors';
export { dialogueActors } from './ussd/actors';
export { OPT } from './ussd/screens';

/**
 * Bump when the state or context shape changes: the engine discards snapshots of another
 * version and starts a fresh menu. 2: settings in the context, the quote keeps its intent,
 * errors without `operatorProblem`. 3: amount ranges in the settings, `backAsked`, the quote's
 * `deducted`, the closing state `refused` (was `spendRefused`).
 */
export const USSD_MACHINE_VERSION = '3';

/** The dialogue, its actors unprovided: use {@link createUssdMachine}, or `.provide()` in tests. */
export const ussdMachine = setup({
  types: {
    context: {} as UssdContext,
    events: {} as DialogueEvent,
    input: {} as DialogueInput,
  },
  actors: unprovidedActors,
  guards,
  actions,
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
    settings: { languages: [], defaultRegion: '', maxTries: 0, amounts: {} },
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
        onDone: { target: 'menu', actions: assign(({ event }) => ({ ...event.output })) },
        onError: { target: 'unavailable', actions: withError('recordError') },
      },
      on: { TIMEOUT: stallOn('catalogue') },
    },

    menu: {
      ...waiting('menu', false),
      on: {
        CHOOSE: [
          { guard: 'choseProduct', target: 'productChosen', actions: 'selectProduct' },
          { guard: { type: 'chose', params: { id: OPT.tokens } }, target: 'tokensLoading' },
          { guard: { type: 'chose', params: { id: OPT.language } }, target: 'language' },
          again('menu'),
        ],
        TEXT: again('menu'),
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
      ...waiting('provider'),
      on: {
        CHOOSE: [
          { guard: 'choseProvider', target: 'providerChosen', actions: 'selectProvider' },
          again('provider'),
        ],
        TEXT: again('provider'),
        BACK: toMenu,
        HOME: toMenu,
      },
    },

    /** Transient: airtime asks whose number first. */
    providerChosen: {
      always: [{ guard: 'isAirtime', target: 'airtimeFor' }, { target: 'identifier' }],
    },

    airtimeFor: {
      ...waiting('airtimeFor'),
      on: {
        CHOOSE: [
          { guard: { type: 'chose', params: { id: OPT.self } }, target: 'ownNumberChosen' },
          { guard: { type: 'chose', params: { id: OPT.other } }, target: 'phone', actions: 'useOtherNumber' },
          again('airtimeFor'),
        ],
        TEXT: again('airtimeFor'),
        BACK: [{ guard: 'manyProviders', target: 'provider' }, toMenu],
        HOME: toMenu,
      },
    },

    /** Transient: the caller's own number must fit the catalogue's rule too, else ask for one. */
    ownNumberChosen: {
      always: [
        { guard: 'ownNumberFits', target: 'amount', actions: 'useOwnNumber' },
        {
          target: 'phone',
          actions: ['useOtherNumber', { type: 'notice', params: { key: 'identifier.invalid.invalidPhone' } }],
        },
      ],
    },

    phone: {
      ...waiting('phone'),
      on: {
        TEXT: typedAnswer('phone', 'phoneOk', 'takePhone', 'amount', 'identifier'),
        CHOOSE: again('phone', 'identifier.invalid.invalidPhone'),
        BACK: { target: 'airtimeFor' },
        HOME: toMenu,
      },
    },

    identifier: {
      ...waiting('identifier'),
      on: {
        TEXT: typedAnswer('identifier', 'identifierOk', 'takeIdentifier', 'amount', 'identifier'),
        CHOOSE: again('identifier', 'identifier.invalid.pattern'),
        BACK: [{ guard: 'manyProviders', target: 'provider' }, toMenu],
        HOME: toMenu,
      },
    },

    amount: {
      ...waiting('amount'),
      exit: 'forgetBack',
      on: {
        TEXT: typedAnswer('amount', 'amountOk', 'takeAmount', 'quoting', 'amount'),
        CHOOSE: again('amount', 'amount.invalid.notNumber'),
        BACK: [
          // `0` is Back, but on this screen it may have been meant as an amount: ask once.
          { guard: not('backAsked'), target: 'amount', reenter: true, actions: 'askBack' },
          { guard: 'airtimeForOther', target: 'phone' },
          { guard: 'isAirtime', target: 'airtimeFor' },
          { target: 'identifier' },
        ],
        HOME: toMenu,
      },
    },

    quoting: {
      invoke: {
        src: 'quote',
        input: ({ context }) => ({ intent: draftIntent(context) }),
        onDone: { target: 'quote', actions: assign(({ event }) => ({ quote: event.output })) },
        onError: [
          {
            guard: quoteRoute('identifier'),
            target: 'identifierRefused',
            actions: withError('quoteRefused'),
          },
          { guard: quoteRoute('amount'), target: 'amountRefused', actions: withError('quoteRefused') },
          { guard: quoteRoute('refused'), target: 'refused', actions: withError('quoteRefused') },
          { guard: quoteRoute('tryLater'), target: 'tryLater', actions: withError('recordError') },
          { target: 'unavailable', actions: withError('recordError') },
        ],
      },
      on: { TIMEOUT: stallOn('quote') },
    },

    /** Transient: the service refused the identifier; it counts as a wrong try. */
    identifierRefused: {
      always: [
        { guard: 'identifierTriesLeft', target: 'identifierAgain', actions: 'identifierTry' },
        { target: 'tooManyTries', actions: 'identifierTry' },
      ],
    },
    identifierAgain: {
      always: [{ guard: 'isAirtime', target: 'phone' }, { target: 'identifier' }],
    },
    /** Transient: the service refused the amount; it counts as a wrong try. */
    amountRefused: {
      always: [
        { guard: 'amountTriesLeft', target: 'amount', actions: 'amountTry' },
        { target: 'tooManyTries', actions: 'amountTry' },
      ],
    },

    quote: {
      ...waiting('quote'),
      on: {
        CHOOSE: [
          { guard: { type: 'chose', params: { id: OPT.buy } }, target: 'ordering' },
          { guard: { type: 'chose', params: { id: OPT.cancel } }, target: 'cancelled' },
          again('quote'),
        ],
        TEXT: again('quote'),
        BACK: { target: 'amount' },
        HOME: toMenu,
      },
    },

    ordering: {
      invoke: {
        src: 'order',
        input: ({ context }) => {
          if (!context.quote) throw new Error('no quote to buy');
          return { intent: context.quote.intent, key: dialogueKey(context) };
        },
        onDone: { target: 'done', actions: assign(({ event }) => ({ purchaseId: event.output })) },
        onError: [
          // The spending rules refused it: nothing was written, say why.
          {
            guard: { type: 'spendRefused', params: ({ event }) => ({ error: event.error }) },
            target: 'refused',
            actions: withError('quoteRefused'),
          },
          // The record may or may not exist: retry with the same key, never walk away to another purchase.
          stallOnError('order'),
        ],
      },
      on: { TIMEOUT: stallOn('order') },
    },

    tokensLoading: {
      invoke: {
        src: 'recentPurchases',
        input: ({ context }) => ({ msisdn: context.msisdn }),
        onDone: { target: 'tokens', actions: assign(({ event }) => ({ tokens: event.output })) },
        onError: stallOnError('tokens'),
      },
      on: { TIMEOUT: stallOn('tokens') },
    },

    tokens: {
      ...waiting('tokens', false),
      on: {
        CHOOSE: [{ guard: 'choseToken', target: 'resending', actions: 'chooseToken' }, again('tokens')],
        TEXT: again('tokens'),
        BACK: toMenu,
        HOME: toMenu,
      },
    },

    resending: {
      invoke: {
        src: 'resend',
        input: ({ context }) => ({
          purchaseId: context.resendId ?? '',
          key: `${dialogueKey(context)}:resend:${context.resendId ?? ''}`,
        }),
        onDone: { target: 'resent' },
        onError: stallOnError('resend'),
      },
      on: { TIMEOUT: stallOn('resend') },
    },

    language: {
      ...waiting('language', false),
      on: {
        CHOOSE: [
          {
            guard: 'choseLanguage',
            target: 'menu',
            actions: ['setLanguage', 'clearPurchase', { type: 'notice', params: { key: 'language.saved' } }],
          },
          again('language'),
        ],
        TEXT: again('language'),
        BACK: toMenu,
        HOME: toMenu,
      },
    },

    /**
     * "Please try again": option 1 re-runs the same safe invocation (an order with the same
     * key). Once an order may exist (or nothing is loaded yet) there is no way back or home.
     */
    stalled: {
      ...waiting('stalled'),
      on: {
        CHOOSE: [
          { guard: { type: 'chose', params: { id: OPT.retry } }, target: 'retrying' },
          again('stalled'),
        ],
        TEXT: again('stalled'),
        BACK: [
          stayStalled,
          { guard: stalledOn('quote'), target: 'amount', actions: 'unstall' },
          { guard: stalledOn('resend'), target: 'tokens', actions: 'unstall' },
          toMenu,
        ],
        HOME: [stayStalled, toMenu],
      },
    },
    /** Transient: back to the invocation that stalled. */
    retrying: { always: retryStalled, exit: 'unstall' },

    done: { type: 'final', tags: SETTLED_TAG, entry: 'showDone' },
    cancelled: end('cancelled'),
    resent: end('tokens.resent'),
    tooManyTries: end('error.tooManyTries'),
    tryLater: { type: 'final', tags: SETTLED_TAG, entry: 'showTryLater' },
    unavailable: end('error.serviceUnavailable'),
    /**
     * Refused for good — by the operator's spending rules (daily limit, blocked number) or by the
     * provider (a debt to pay first): the reason, then END.
     */
    refused: { type: 'final', tags: SETTLED_TAG, entry: 'showNoticeFinal' },
  },
});

/** The gateway's dialogue: the machine with its actors over `services`. */
export function createUssdMachine(services: DialogueServices) {
  return ussdMachine.provide({ actors: dialogueActors(services) });
}

/** The machine type (for the engine's typing of snapshots and actors). */
export type UssdMachine = typeof ussdMachine;
