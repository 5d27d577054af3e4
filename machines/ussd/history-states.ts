/**
 * The subscriber's look back at the USSD dialogue (machines/ussd-session.machine.ts spreads them
 * into its list): "My purchases" (one purchase's detail, its token sent again, "Report a problem")
 * and "My meters" (the saved meters, one removed). Each read or write is one actor, and a failed
 * or slow one stalls ("please try again" re-runs it: see `RETRY` in ussd/transitions.ts).
 */
import type { DoneActorEvent } from 'xstate';
import type { TokenItem } from './context';
import { dialogueKey } from './purchase';
import { OPT } from './screens';
import { choosing, keep, stallOn, stallOnError, toMenu, waiting, type InContext } from './transitions';

export const historyStates = {
  /** "My purchases": every state (delivered, in progress, not completed). */
  tokensLoading: {
    invoke: {
      src: 'purchaseHistory',
      input: ({ context }: InContext) => ({ msisdn: context.msisdn }),
      onDone: {
        target: 'tokens',
        actions: keep<DoneActorEvent<TokenItem[]>>(({ event }) => ({ tokens: event.output })),
      },
      onError: stallOnError('tokens'),
    },
    on: { TIMEOUT: stallOn('tokens') },
  },

  tokens: {
    ...waiting('purchases', false),
    on: choosing(
      'tokens',
      [{ guard: 'chosePurchase', target: 'purchaseDetail', actions: 'choosePurchase' }],
      toMenu,
    ),
  },

  /** One purchase: its token (sent again on 1), or its reference and since when, or why; "Report a problem". */
  purchaseDetail: {
    ...waiting('purchaseDetail', false),
    on: choosing(
      'purchaseDetail',
      [
        { guard: 'choseResendToken', target: 'resending' },
        { guard: { type: 'chose', params: { id: OPT.report } }, target: 'report' },
      ],
      { target: 'tokens' },
    ),
  },

  report: {
    ...waiting('report', false),
    on: choosing('report', [{ guard: 'choseReason', target: 'reporting', actions: 'chooseReason' }], {
      target: 'purchaseDetail',
    }),
  },

  /** The case opened (its number goes by SMS); the same report again answers the same case. */
  reporting: {
    invoke: {
      src: 'openCase',
      input: ({ context }: InContext) => ({
        msisdn: context.msisdn,
        purchaseId: context.resendId ?? '',
        reason: context.purchase.report ?? 'other',
      }),
      onDone: { target: 'reported', actions: 'takeCase' },
      onError: stallOnError('report'),
    },
    on: { TIMEOUT: stallOn('report') },
  },

  /**
   * "My meters" when the dial could not read them: every product's in one read. (Otherwise the
   * menu goes straight to `meters`, from the context.)
   */
  metersLoading: {
    invoke: {
      src: 'savedMeters',
      input: ({ context }: InContext) => ({ msisdn: context.msisdn }),
      onDone: { target: 'meters', actions: 'takeMeters' },
      onError: stallOnError('meters'),
    },
    on: { TIMEOUT: stallOn('meters') },
  },

  /** "My meters": every saved meter and account; one chosen can be removed. */
  meters: {
    ...waiting('meters', false),
    on: choosing('meters', [{ guard: 'choseSaved', target: 'meter', actions: 'chooseMeter' }], toMenu),
  },

  meter: {
    ...waiting('meter', false),
    on: choosing('meter', [{ guard: { type: 'chose', params: { id: OPT.remove } }, target: 'removing' }], {
      target: 'meters',
    }),
  },

  removing: {
    invoke: {
      src: 'removeMeter',
      input: ({ context }: InContext) => ({
        msisdn: context.msisdn,
        productType: context.purchase.productType,
        identifier: context.purchase.identifier,
      }),
      // The service answers the meters left: the list shown again, with no other read.
      onDone: {
        target: 'meters',
        actions: ['takeMeters', { type: 'notice', params: { key: 'meters.removed' } }],
      },
      onError: stallOnError('removeMeter'),
    },
    on: { TIMEOUT: stallOn('removeMeter') },
  },

  resending: {
    invoke: {
      src: 'resend',
      input: ({ context }: InContext) => ({
        purchaseId: context.resendId ?? '',
        key: `${dialogueKey(context)}:resend:${context.resendId ?? ''}`,
      }),
      onDone: { target: 'resent' },
      onError: stallOnError('resend'),
    },
    on: { TIMEOUT: stallOn('resend') },
  },
} as const;
