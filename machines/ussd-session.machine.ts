/**
 * The USSD dialogue: main menu → provider → (airtime: whose number) → identifier (saved meters
 * offered) → (electricity, water: who gets the token) → amount → (a purchase in progress: buy
 * again?) → quote → buy, plus "My purchases" (resend, report a problem), "My meters", "Help" and
 * "Language"; a one-dial shortcut jumps as far as the quote. The engine (src/ussd/engine/) restores this
 * machine from a snapshot on every hop, sends one DialogueEvent, waits for the `settled`
 * tag and renders the screen `dialogueScreen` derives from the context (`context.shown`).
 *
 * A registered agent's number gets the agent states (`agent*`, `customer`: ussd/agent-states.ts):
 * the PIN first, then the agent menu; a sale reuses the purchase states with the customer's
 * number added.
 *
 * This file is the list of states: the start, the menus, language, the stall and the closing
 * screens here; the purchase in ussd/purchase-states.ts, "My purchases" and "My meters" in
 * ussd/history-states.ts. The I/O is in `ussd/actors.ts` (promise actors over the
 * injected services, each safe to run twice: a retry after a timeout calls it again), the questions in
 * `ussd/guards.ts`, the context updates in `ussd/actions.ts`, the screens in `ussd/screens.ts`.
 * Nothing here debits money: `order` hands the quoted intent to the purchase lifecycle.
 */
import { and, assign, setup } from 'xstate';
import { SETTLED_TAG, type DialogueEvent, type DialogueInput } from '../src/ussd/engine/dialogue';
import { actions, NO_PURCHASE } from './ussd/actions';
import { agentStates } from './ussd/agent-states';
import { dealerStates } from './ussd/dealer-states';
import { historyStates } from './ussd/history-states';
import { purchaseStates } from './ussd/purchase-states';
import { dialogueActors, unprovidedActors, type DialogueServices } from './ussd/actors';
import type { UssdContext } from './ussd/context';
import { guards } from './ussd/guards';
import { OPT } from './ussd/screens';
import {
  again,
  end,
  retryStalled,
  stalledOn,
  stayStalled,
  toMenu,
  waiting,
  withError,
} from './ussd/transitions';

export type { UssdContext } from './ussd/context';
export type { DialogueServices, OperatorProblemReport } from './ussd/actors';
export { dialogueActors } from './ussd/actors';
export { OPT, dialogueScreen } from './ussd/screens';

/**
 * Bump when the state or context shape changes, and ship it as machines/README.md says
 * (_Versions_: the previous machine stays served until its dialogues are over); a build
 * discards a snapshot of a version it does not know and starts a fresh menu. 2: settings in
 * the context, the quote keeps its intent, errors without `operatorProblem`. 3: field agents (PIN, agent menu, customer, float), amount
 * ranges in the settings, `backAsked`, the quote's `deducted`, the closing state `refused`.
 * 4: the snapshot is stored without its catalogue and settings (USSD_SHARED_CONTEXT), which a
 * version 3 process would miss. 5: the purchase being put together is one field (`purchase`).
 * 6: the screen is shown by name (`shown`) and derived when rendered, not stored.
 * 7: repeat buyers — saved meters on the identifier screen and "My meters", the
 * token sent to another number, one-dial shortcuts, "My purchases" with a report, "Buy again
 * anyway?" for a purchase in progress, Help, the operator's notice on the menu; a dealer's
 * retailers and float transfers (`dealer` in the context).
 */
export const USSD_MACHINE_VERSION = '7';

/**
 * Context fields every dialogue started on the same catalogue holds alike: the engine stores
 * them once per content rather than in each snapshot (about 1.2 KB of a 2.5 KB record).
 */
export const USSD_SHARED_CONTEXT = ['products', 'settings'] as const;

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
    shown: null,
    notice: null,
    products: [],
    account: null,
    settings: { languages: [], defaultRegion: '', maxTries: 0, amounts: {} },
    // A one-dial shortcut is applied once the menu is known (the agent's: after the PIN).
    purchase: input.dialled ? { ...NO_PURCHASE, shortcut: input.dialled } : NO_PURCHASE,
    purchaseId: null,
    tokens: [],
    resendId: null,
  }),
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        src: 'loadCatalogue',
        // The caller's saved meters too: read on this hop, never again on a menu or a Back.
        input: ({ context }) => ({ msisdn: context.msisdn, serviceCode: context.serviceCode, meters: true }),
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
      // Stalled before the caller is known: the shortcut is kept as an agent's would be.
      on: {
        TIMEOUT: {
          target: 'stalled',
          actions: ['shortcutWithoutPin', { type: 'stall', params: { on: 'catalogue' } }],
        },
      },
    },

    menu: {
      ...waiting('menu', false),
      // A verified agent's home is the agent menu (HOME, BACK and the end of a flow land here).
      // An agent who has not passed the PIN never reaches the subscriber menu.
      always: [
        { guard: 'verifiedAgent', target: 'agentMenu' },
        { guard: 'isAgentCaller', target: 'agentPin' },
        { guard: 'hasShortcut', target: 'shortcut', actions: 'applyShortcut' },
      ],
      on: {
        CHOOSE: [
          { guard: 'choseProduct', target: 'productChosen', actions: 'selectProduct' },
          { guard: { type: 'chose', params: { id: OPT.tokens } }, target: 'tokensLoading' },
          {
            guard: and([{ type: 'chose', params: { id: OPT.meters } }, 'metersKnown']),
            target: 'meters',
          },
          { guard: { type: 'chose', params: { id: OPT.meters } }, target: 'metersLoading' },
          { guard: { type: 'chose', params: { id: OPT.help } }, target: 'help' },
          { guard: { type: 'chose', params: { id: OPT.language } }, target: 'language' },
          again('menu'),
        ],
        TEXT: again('menu'),
        BACK: { target: 'menu', reenter: true },
        HOME: { target: 'menu', reenter: true, actions: 'clearPurchase' },
      },
    },

    // The purchase: product → identifier → recipient → amount → quote → buy (ussd/purchase-states.ts).
    ...purchaseStates,
    // Field agents: the PIN first, then the agent menu (ussd/agent-states.ts).
    ...agentStates,
    // A dealer's retailers and float transfers (ussd/dealer-states.ts).
    ...dealerStates,
    // "My purchases" (resend, report a problem) and "My meters" (ussd/history-states.ts).
    ...historyStates,

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
          { guard: stalledOn('resend', 'report'), target: 'tokens', actions: 'unstall' },
          toMenu,
        ],
        HOME: [stayStalled, toMenu],
      },
    },
    /** Transient: back to the invocation that stalled. */
    retrying: { always: retryStalled, exit: 'unstall' },

    done: { type: 'final', tags: SETTLED_TAG, entry: 'showDone' },
    help: { type: 'final', tags: SETTLED_TAG, entry: 'showHelp' },
    reported: { type: 'final', tags: SETTLED_TAG, entry: 'showReported' },
    notAgain: end('inProgress.left'),
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
