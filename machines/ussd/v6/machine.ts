/**
 * FROZEN: version 6 of the USSD dialogue, kept as it shipped so that dialogues started on it
 * finish on it during a deploy (machines/README.md, _Versions_). Delete this folder once the
 * build starting on version 7 has run everywhere (the "remove" step). Do not edit.
 *
 * The USSD dialogue: main menu → provider → (airtime: whose number) → identifier → amount →
 * quote → buy, plus "My tokens" and "Language". The engine (src/session/) restores this
 * machine from a snapshot on every hop, sends one DialogueEvent, waits for the `settled`
 * tag and renders the screen `dialogueScreen` derives from the context (`context.shown`).
 *
 * A registered agent's number gets the agent states (`agent*`, `customer`: ussd/agent-states.ts):
 * the PIN first, then the agent menu; a sale reuses the purchase states with the customer's
 * number added.
 *
 * This file is the list of states. The I/O is in `ussd/actors.ts` (promise actors over the
 * injected services, each safe to run twice: a retry after a timeout calls it again), the questions in
 * `ussd/guards.ts`, the context updates in `ussd/actions.ts`, the screens in `ussd/screens.ts`.
 * Nothing here debits money: `order` hands the quoted intent to the purchase lifecycle.
 */
import { and, assign, not, setup } from 'xstate';
import { SETTLED_TAG, type DialogueEvent, type DialogueInput } from '../../../src/session/dialogue';
import { actions, NO_PURCHASE } from '../actions';
import { agentStates } from './agent-states';
import { dialogueActors, unprovidedActors, type DialogueServices } from '../actors';
import type { UssdContext } from '../context';
import { guards } from '../guards';
import { dialogueKey, draftIntent } from '../purchase';
import { OPT } from './screens';
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
} from './transitions';

export type { UssdContext } from '../context';
export type { DialogueServices, OperatorProblemReport } from '../actors';
export { dialogueActors } from '../actors';
export { OPT, dialogueScreen } from './screens';

/**
 * Bump when the state or context shape changes, and ship it as machines/README.md says
 * (_Versions_: the previous machine stays served until its dialogues are over); a build
 * discards a snapshot of a version it does not know and starts a fresh menu. 2: settings in
 * the context, the quote keeps its intent, errors without `operatorProblem`. 3: field agents (PIN, agent menu, customer, float), amount
 * ranges in the settings, `backAsked`, the quote's `deducted`, the closing state `refused`.
 * 4: the snapshot is stored without its catalogue and settings (USSD_SHARED_CONTEXT), which a
 * version 3 process would miss. 5: the purchase being put together is one field (`purchase`).
 * 6: the screen is shown by name (`shown`) and derived when rendered, not stored.
 */
export const USSD_V6_VERSION = '6';

/** The dialogue, its actors unprovided: use {@link createUssdMachine}, or `.provide()` in tests. */
export const ussdMachineV6 = setup({
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
    shown: null,
    notice: null,
    products: [],
    account: null,
    settings: { languages: [], defaultRegion: '', maxTries: 0, amounts: {} },
    purchase: NO_PURCHASE,
    purchaseId: null,
    tokens: [],
    resendId: null,
  }),
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        src: 'loadCatalogue',
        input: ({ context }) => ({ msisdn: context.msisdn, serviceCode: context.serviceCode }),
        // A registered agent's number gets "Enter your PIN" first; anyone else the menu.
        onDone: [
          {
            guard: ({ event }) => event.output.agent !== null,
            target: 'agentGate',
            actions: assign(({ event }) => ({ ...event.output })),
          },
          { target: 'menu', actions: assign(({ event }) => ({ ...event.output })) },
        ],
        onError: { target: 'unavailable', actions: withError('recordError') },
      },
      on: { TIMEOUT: stallOn('catalogue') },
    },

    menu: {
      ...waiting('menu', false),
      // A verified agent's home is the agent menu (HOME, BACK and the end of a flow land here).
      // An agent who has not passed the PIN never reaches the subscriber menu.
      always: [
        { guard: 'verifiedAgent', target: 'agentMenu' },
        { guard: 'isAgentCaller', target: 'agentPin' },
      ],
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
      always: [
        // An agent sells airtime to the customer's number: no "whose number" question.
        { guard: 'agentAirtime', target: 'phone', actions: 'useOtherNumber' },
        { guard: 'isAirtime', target: 'airtimeFor' },
        { target: 'identifier' },
      ],
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
        TEXT: typedAnswer('amount', 'amountOk', 'takeAmount', 'afterAmount', 'amount'),
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

    /** Transient: an agent's amount is checked against its float and limits first. */
    afterAmount: {
      always: [{ guard: 'verifiedAgent', target: 'agentSaleCheck' }, { target: 'quoting' }],
    },

    // Field agents: the PIN first, then the agent menu (ussd/agent-states.ts).
    ...agentStates,

    quoting: {
      invoke: {
        src: 'quote',
        input: ({ context }) => ({ intent: draftIntent(context) }),
        onDone: {
          target: 'quote',
          actions: assign(({ context, event }) => ({
            purchase: { ...context.purchase, quote: event.output },
          })),
        },
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
          if (!context.purchase.quote) throw new Error('no quote to buy');
          return {
            intent: context.purchase.quote.intent,
            key: dialogueKey(context),
            total: context.purchase.quote.total,
          };
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
          // A verified agent goes straight home (through `menu` the notice would be spent there).
          {
            guard: and(['choseLanguage', 'verifiedAgent']),
            target: 'agentMenu',
            actions: ['setLanguage', 'clearPurchase', { type: 'notice', params: { key: 'language.saved' } }],
          },
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
export function createUssdMachineV6(services: DialogueServices) {
  return ussdMachineV6.provide({ actors: dialogueActors(services) });
}

/** The machine type (for the engine's typing of snapshots and actors). */
export type UssdMachineV6 = typeof ussdMachineV6;
