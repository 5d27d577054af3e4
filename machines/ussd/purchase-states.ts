/**
 * The subscriber's purchase states of the USSD dialogue (machines/ussd-session.machine.ts spreads
 * them into its list): product → provider → (airtime: whose number) → identifier (saved meters
 * offered) → (electricity, water: who gets the token) → amount → (a purchase in progress: buy
 * again?) → quote → buy, and where a one-dial shortcut lands. An agent's sale runs through the same
 * states, with the agent's checks (ussd/agent-states.ts) after the amount.
 */
import { and, not, or, type DoneActorEvent } from 'xstate';
import type { QuoteView } from './context';
import { dialogueKey, draftIntent } from './purchase';
import { OPT } from './screens';
import {
  again,
  choosing,
  keep,
  quoteRoute,
  stallOn,
  stallOnError,
  toMenu,
  typedAnswer,
  waiting,
  withError,
  type InContext,
} from './transitions';

export const purchaseStates = {
  /**
   * Transient: a one-dial shortcut was read into the draft (ussd/shortcut.ts, the action on the
   * way in): on to the first screen it leaves open — at most the quote, never the Buy.
   */
  shortcut: {
    always: [
      { guard: 'shortcutHasNoProduct', target: 'menu' },
      { guard: 'noProvider', target: 'provider' },
      { guard: and(['isAirtime', 'noIdentifier']), target: 'airtimeFor' },
      { guard: 'noIdentifier', target: 'identifierOffer' },
      { guard: 'noAmount', target: 'amount' },
      { target: 'afterAmount' },
    ],
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
    on: choosing(
      'provider',
      [{ guard: 'choseProvider', target: 'providerChosen', actions: 'selectProvider' }],
      toMenu,
    ),
  },

  /** Transient: airtime asks whose number first. */
  providerChosen: {
    always: [
      // An agent sells airtime to the customer's number: no "whose number" question.
      { guard: 'agentAirtime', target: 'phone', actions: 'useOtherNumber' },
      { guard: 'isAirtime', target: 'airtimeFor' },
      { target: 'identifierOffer' },
    ],
  },

  /**
   * Transient: the identifier screen offers the caller's saved meters for the product, from the
   * context (read when the dialogue started): no read on a product chosen or a Back. Only when
   * they are not there (let go at the quote, or the first read failed) are they read again.
   */
  identifierOffer: {
    always: [
      // An agent sells to customers: the agent's own saved meters are not theirs.
      { guard: or(['verifiedAgent', 'metersKnown']), target: 'identifier', actions: 'offerSaved' },
      { target: 'identifierLoading' },
    ],
  },
  identifierLoading: {
    invoke: {
      src: 'savedMeters',
      input: ({ context }: InContext) => ({ msisdn: context.msisdn }),
      onDone: { target: 'identifier', actions: ['takeMeters', 'offerSaved'] },
      // A list not read is no reason to stop a purchase: the meter can be typed.
      onError: { target: 'identifier' },
    },
    on: { TIMEOUT: { target: 'identifier' } },
  },

  airtimeFor: {
    ...waiting('airtimeFor'),
    on: choosing(
      'airtimeFor',
      [
        { guard: { type: 'chose', params: { id: OPT.self } }, target: 'ownNumberChosen' },
        { guard: { type: 'chose', params: { id: OPT.other } }, target: 'phone', actions: 'useOtherNumber' },
      ],
      [{ guard: 'manyProviders', target: 'provider' }, toMenu],
    ),
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

  /** The caller's saved meters for the product offered (read when the dialogue started), or one typed. */
  identifier: {
    ...waiting('identifier'),
    on: {
      TEXT: typedAnswer('identifier', 'identifierOk', 'takeIdentifier', 'identifierChosen', 'identifier'),
      CHOOSE: [
        { guard: 'choseSavedMeter', target: 'identifierChosen', actions: 'takeSavedMeter' },
        {
          guard: { type: 'chose', params: { id: OPT.otherMeter } },
          target: 'identifier',
          reenter: true,
          actions: 'typeMeter',
        },
        again('identifier', 'identifier.invalid.pattern'),
      ],
      BACK: [{ guard: 'manyProviders', target: 'provider' }, toMenu],
      HOME: toMenu,
    },
  },

  /** Transient: electricity and water ask who gets the token (a setting turns it off). */
  identifierChosen: {
    always: [{ guard: 'asksTokenRecipient', target: 'tokenFor' }, { target: 'amount' }],
  },

  tokenFor: {
    ...waiting('tokenFor'),
    on: choosing(
      'tokenFor',
      [
        { guard: { type: 'chose', params: { id: OPT.self } }, target: 'amount', actions: 'tokenToSelf' },
        {
          guard: { type: 'chose', params: { id: OPT.other } },
          target: 'beneficiary',
          actions: 'tokenToOther',
        },
      ],
      { target: 'identifierOffer' },
    ),
  },

  beneficiary: {
    ...waiting('beneficiary'),
    on: {
      TEXT: typedAnswer('beneficiary', 'phoneOk', 'takeBeneficiary', 'amount', 'identifier', 'customerTry'),
      CHOOSE: again('beneficiary', 'identifier.invalid.invalidPhone'),
      BACK: { target: 'tokenFor' },
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
        { guard: 'tokenForOther', target: 'beneficiary' },
        { guard: 'askedTokenFor', target: 'tokenFor' },
        { target: 'identifierOffer' },
      ],
      HOME: toMenu,
    },
  },

  /**
   * Transient: an agent's amount is checked against its float and limits first; a subscriber's
   * Buy first looks for a purchase of the same identifier still in progress.
   */
  afterAmount: {
    always: [{ guard: 'verifiedAgent', target: 'agentSaleCheck' }, { target: 'inProgressCheck' }],
  },

  inProgressCheck: {
    invoke: {
      src: 'inProgress',
      input: ({ context }: InContext) => ({
        msisdn: context.msisdn,
        identifier: context.purchase.identifier,
      }),
      onDone: [
        { guard: 'foundInProgress', target: 'inProgressAsk', actions: 'takeInProgress' },
        { target: 'quoting' },
      ],
      // The check only warns: a failed read does not hold a purchase back.
      onError: { target: 'quoting' },
    },
    on: { TIMEOUT: stallOn('inProgress') },
  },

  /** "A purchase of BWP 100.00 for … is still in progress (ref …). Buy again anyway? 1 Yes 2 No". */
  inProgressAsk: {
    ...waiting('inProgress'),
    on: choosing(
      'inProgressAsk',
      [
        { guard: { type: 'chose', params: { id: OPT.yes } }, target: 'quoting' },
        { guard: { type: 'chose', params: { id: OPT.no } }, target: 'notAgain' },
      ],
      { target: 'amount' },
    ),
  },

  quoting: {
    invoke: {
      src: 'quote',
      input: ({ context }: InContext) => ({ intent: draftIntent(context) }),
      onDone: {
        target: 'quote',
        // The quote makes the largest record: the saved meters are let go to stay within 2 KB
        // (a Back to the identifier reads them again).
        actions: keep<DoneActorEvent<QuoteView>>(({ context, event }) => ({
          purchase: { ...context.purchase, quote: event.output },
          ...(context.meters && { meters: undefined }),
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
    on: choosing(
      'quote',
      [
        { guard: { type: 'chose', params: { id: OPT.buy } }, target: 'ordering' },
        { guard: { type: 'chose', params: { id: OPT.cancel } }, target: 'cancelled' },
      ],
      { target: 'amount' },
    ),
  },

  ordering: {
    invoke: {
      src: 'order',
      input: ({ context }: InContext) => {
        if (!context.purchase.quote) throw new Error('no quote to buy');
        return {
          intent: context.purchase.quote.intent,
          key: dialogueKey(context),
          total: context.purchase.quote.total,
        };
      },
      onDone: {
        target: 'done',
        actions: keep<DoneActorEvent<string>>(({ event }) => ({ purchaseId: event.output })),
      },
      onError: [
        // The spending rules refused it: nothing was written, say why.
        {
          guard: {
            type: 'spendRefused',
            params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }),
          },
          target: 'refused',
          actions: withError('quoteRefused'),
        },
        // The record may or may not exist: retry with the same key, never walk away to another purchase.
        stallOnError('order'),
      ],
    },
    on: { TIMEOUT: stallOn('order') },
  },
} as const;
