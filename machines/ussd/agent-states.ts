/**
 * The field agent's states of the USSD dialogue (machines/ussd-session.machine.ts spreads them
 * into its list): the PIN first, the agent menu, the sale's checks against the float and the
 * customer's number, the float, the last sales with their receipts, and the PIN change. The PIN
 * prompt and its check are written once (`pinEntry`) for the PIN at the start and the current PIN
 * of a change. A PIN goes to its check and nowhere else: never into the context.
 */
import type { DoneActorEvent } from 'xstate';
import { SETTLED_TAG, type DialogueEvent } from '../../src/ussd/engine/dialogue';
import type { PinOutcome, SaleItem, TopUpAnswer } from './actors';
import { amountMinor, typed } from './input';
import { formatMoney } from '../../src/vas/money';
import type { UssdContext } from './context';
import { isAgentStopped } from '../../src/sales/quote';
import {
  again,
  choosing,
  end,
  keep,
  toMenu,
  typedAnswer,
  waiting,
  withError,
  type Answered,
} from './transitions';

/** A check's input: the caller and the PIN typed (an option number counts as no PIN). */
const typedPin = ({ context, event }: { context: UssdContext; event: DialogueEvent }) => ({
  msisdn: context.msisdn,
  pin: event.type === 'TEXT' ? event.text.trim() : '',
});

const pinIs =
  (status: PinOutcome['status']) =>
  ({ event }: Answered<PinOutcome>) =>
    event.output.status === status;

/** Back to `state` with a notice above its prompt. */
const noticeAt = (state: string, key: string) =>
  ({ target: state, actions: { type: 'notice', params: { key } } }) as const;

/** A PIN prompt: whatever is typed or chosen goes to `check`; BACK and HOME go `away`. */
const pinPrompt = (
  prompt: 'agentPin' | 'agentOldPin' | 'agentNewPin' | 'agentRepeatPin',
  check: string,
  away: object = toMenu,
) => ({ ...waiting(prompt, false), on: { TEXT: check, CHOOSE: check, BACK: away, HOME: away } }) as const;

type PinPrompt = 'agentPin' | 'agentOldPin';

/**
 * A PIN prompt and its check: the typed PIN goes to `verifyPin`; `right` says where a right one
 * leads; a wrong one asks again, a locked agent is told until when, a disabled one is told so.
 * `away` is where BACK and HOME go from the prompt.
 */
function pinEntry<R extends readonly object[]>(prompt: PinPrompt, check: string, away: object, right: R) {
  return {
    prompt: pinPrompt(prompt, check, away),
    check: {
      invoke: {
        src: 'verifyPin',
        input: typedPin,
        onDone: [
          ...right,
          { guard: pinIs('wrong'), target: prompt, actions: 'wrongPin' },
          { guard: pinIs('locked'), target: 'agentLocked', actions: 'lockedUntil' },
          { target: 'agentDisabled' },
        ],
        onError: { target: 'unavailable', actions: withError('recordError') },
      },
      on: { TIMEOUT: noticeAt(prompt, 'error.timeout') },
    },
  } as const;
}

/** The PIN at the start: a right one opens the agent menu, or first asks for a PIN of the agent's own. */
const startPin = pinEntry('agentPin', 'agentPinCheck', { target: 'agentPin', reenter: true }, [
  {
    guard: ({ event }: Answered<PinOutcome>) => event.output.status === 'ok' && event.output.mustChangePin,
    target: 'agentNewPin',
    actions: ['pinVersion', { type: 'notice', params: { key: 'agent.pin.chooseOwn' } }],
  },
  { guard: pinIs('ok'), target: 'agentMenu', actions: 'agentVerified' },
] as const);

/** The current PIN of a PIN change. */
const oldPin = pinEntry('agentOldPin', 'agentOldPinCheck', toMenu, [
  { guard: pinIs('ok'), target: 'agentNewPin', actions: 'pinVersion' },
] as const);

export const agentStates = {
  /**
   * The agent's float and limits (day value, day count, float) for the amount typed: a refusal
   * goes back to the amount prompt naming the limit, before the customer's number is asked.
   * Electricity and water then ask for the customer's number.
   */
  agentSaleCheck: {
    invoke: {
      src: 'agentSaleCheck',
      input: ({ context }: { context: UssdContext }) => ({
        msisdn: context.msisdn,
        minor: context.purchase.amountMinor ?? 0,
      }),
      onDone: [
        // Disabled (BLOCK, an operator) or locked since the PIN was checked: ends saying which.
        {
          guard: ({ event }: Answered<{ code?: string } | null>) => isAgentStopped(event.output?.code),
          target: 'refused',
          actions: 'saleRefused',
        },
        {
          guard: ({ event }: Answered<unknown>) => event.output !== null,
          target: 'amount',
          actions: 'saleRefused',
        },
        { guard: 'needsCustomer', target: 'customer' },
        { target: 'quoting' },
      ],
      onError: { target: 'unavailable', actions: withError('recordError') },
    },
    on: { TIMEOUT: noticeAt('amount', 'error.timeout') },
  },

  /**
   * Transient: a locked or disabled agent is told so; an active one asked for the PIN. A shortcut
   * waits for the PIN without a group the PIN could be (a lost dialogue's PIN: shortcut.ts).
   */
  agentGate: {
    entry: 'shortcutWithoutPin',
    always: [
      { guard: 'agentDisabled', target: 'agentDisabled' },
      { guard: 'agentLocked', target: 'agentLocked', actions: 'lockedNotice' },
      { target: 'agentPin' },
    ],
  },

  agentPin: startPin.prompt,
  agentPinCheck: startPin.check,

  agentMenu: {
    ...waiting('agentMenu', false),
    // A one-dial shortcut goes on once the PIN has passed (a shortcut never carries the PIN).
    always: { guard: 'hasShortcut', target: 'shortcut', actions: 'applyShortcut' },
    on: {
      CHOOSE: [
        { guard: 'choseProduct', target: 'productChosen', actions: 'selectProduct' },
        { guard: { type: 'chose', params: { id: 'float' } }, target: 'agentFloatLoading' },
        { guard: { type: 'chose', params: { id: 'sales' } }, target: 'agentSalesLoading' },
        { guard: { type: 'chose', params: { id: 'pin' } }, target: 'agentOldPin' },
        { guard: { type: 'chose', params: { id: 'topup' } }, target: 'agentTopUp' },
        { guard: { type: 'chose', params: { id: 'dealer' } }, target: 'dealerMenu' },
        { guard: { type: 'chose', params: { id: 'language' } }, target: 'language' },
        again('agentMenu', 'error.invalidChoice'),
      ],
      TEXT: again('agentMenu', 'error.invalidChoice'),
      BACK: { target: 'agentMenu', reenter: true },
      HOME: { target: 'agentMenu', reenter: true, actions: 'clearPurchase' },
    },
  },

  customer: {
    ...waiting('customer'),
    on: {
      // A wrong number counts as a wrong identifier, and says it is the phone number.
      TEXT: typedAnswer('customer', 'customerOk', 'takeCustomer', 'quoting', 'identifier', 'customerTry'),
      CHOOSE: again('customer', 'identifier.invalid.invalidPhone'),
      BACK: { target: 'amount' },
      HOME: toMenu,
    },
  },

  agentFloatLoading: {
    invoke: {
      src: 'agentFloat',
      input: ({ context }: { context: UssdContext }) => ({ msisdn: context.msisdn }),
      onDone: {
        target: 'agentFloat',
        actions: keep<DoneActorEvent<UssdContext['agentFloat']>>(({ event }) => ({
          agentFloat: event.output,
        })),
      },
      onError: { target: 'unavailable', actions: withError('recordError') },
    },
  },

  agentFloat: {
    ...waiting('agentFloat', false),
    on: { BACK: toMenu, HOME: toMenu, CHOOSE: toMenu, TEXT: toMenu },
  },

  /** Change PIN: the current one, the new one (hashed at once), the new one again. */
  agentOldPin: oldPin.prompt,
  agentOldPinCheck: oldPin.check,
  agentNewPin: pinPrompt('agentNewPin', 'agentNewPinCheck'),
  agentNewPinCheck: {
    invoke: {
      src: 'newPinCandidate',
      input: typedPin,
      onDone: [
        {
          guard: ({ event }: Answered<{ ok: boolean }>) => event.output.ok,
          target: 'agentRepeatPin',
          actions: 'pinCandidate',
        },
        { target: 'agentNewPin', actions: 'pinProblem' },
      ],
      onError: { target: 'unavailable', actions: withError('recordError') },
    },
    on: { TIMEOUT: noticeAt('agentNewPin', 'error.timeout') },
  },
  agentRepeatPin: pinPrompt('agentRepeatPin', 'agentPinSave'),
  agentPinSave: {
    invoke: {
      src: 'savePin',
      input: ({ context, event }: { context: UssdContext; event: DialogueEvent }) => ({
        msisdn: context.msisdn,
        candidate: context.agent?.candidate ?? null,
        repeated: event.type === 'TEXT' ? event.text.trim() : '',
        pinVersion: context.agent?.pinVersion ?? -1,
      }),
      onDone: [
        {
          guard: ({ event }: Answered<string>) => event.output === 'changed',
          target: 'agentMenu',
          actions: 'pinChanged',
        },
        {
          guard: ({ event }: Answered<string>) => event.output === 'mismatch',
          ...noticeAt('agentNewPin', 'agent.pin.mismatch'),
        },
        { target: 'agentPinStale' },
      ],
      onError: { target: 'unavailable', actions: withError('recordError') },
    },
  },
  agentPinStale: end('agent.pin.stale'),

  /** Last sales: the agent's last five, each can send its receipt again. */
  agentSalesLoading: {
    invoke: {
      src: 'agentSales',
      input: ({ context }: { context: UssdContext }) => ({ msisdn: context.msisdn }),
      onDone: {
        target: 'agentSales',
        actions: keep<DoneActorEvent<SaleItem[]>>(({ event }) => ({ sales: event.output })),
      },
      onError: { target: 'unavailable', actions: withError('recordError') },
    },
  },
  agentSales: {
    ...waiting('agentSales', false),
    on: choosing(
      'agentSales',
      [
        {
          guard: ({ context, event }: { context: UssdContext; event: { optionId: string } }) =>
            (context.sales ?? []).some((x) => `sale:${x.purchaseId}` === event.optionId),
          target: 'agentReceiptResend',
          actions: keep<{ type: 'CHOOSE'; optionId: string }>(({ event }) => ({
            resendId: event.optionId.slice('sale:'.length),
          })),
        },
      ],
      toMenu,
    ),
  },
  agentReceiptResend: {
    invoke: {
      src: 'resendReceipt',
      input: ({ context }: { context: UssdContext }) => ({
        purchaseId: context.resendId ?? '',
        key: `${context.aggregator}:${context.sessionId}:${context.startedAt}:${context.resendId}`,
      }),
      onDone: noticeAt('agentMenu', 'agent.receiptSent'),
      onError: { target: 'unavailable', actions: withError('recordError') },
    },
  },
  /**
   * Top up float: the amount, then a payment request to the agent's own phone (the provider's PIN
   * prompt), once per dialogue; the float is credited when it is paid and an SMS says so.
   */
  agentTopUp: {
    ...waiting('agentTopUp', false),
    on: {
      TEXT: [
        {
          guard: ({ event }: { event: DialogueEvent }) => (amountMinor(typed(event)) ?? 0) > 0,
          target: 'agentTopUpRequest',
          actions: keep<DialogueEvent>(({ event }) => ({ topUpMinor: amountMinor(typed(event)) })),
        },
        again('agentTopUp', 'agent.topup.invalidAmount'),
      ],
      CHOOSE: again('agentTopUp', 'agent.topup.invalidAmount'),
      BACK: toMenu,
      HOME: toMenu,
    },
  },
  agentTopUpRequest: {
    invoke: {
      src: 'agentTopUp',
      input: ({ context }: { context: UssdContext }) => ({
        msisdn: context.msisdn,
        minor: context.topUpMinor ?? 0,
        key: `${context.aggregator}:${context.sessionId}:${context.startedAt}:topup`,
      }),
      onDone: {
        target: 'agentTopUpAsked',
        actions: keep<DoneActorEvent<TopUpAnswer>>(({ event }) => ({
          notice:
            event.output.status === 'requested'
              ? { key: 'agent.topup.requested', params: { amount: formatMoney(event.output.amount) } }
              : { key: 'agent.topup.unavailable' },
        })),
      },
      onError: { target: 'unavailable', actions: withError('recordError') },
    },
  },
  agentTopUpAsked: { type: 'final', tags: SETTLED_TAG, entry: 'showNoticeFinal' },
  agentDisabled: end('agent.disabled'),
  agentLocked: { type: 'final', tags: SETTLED_TAG, entry: 'showNoticeFinal' },
} as const;
