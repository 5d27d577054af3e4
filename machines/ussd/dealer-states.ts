/**
 * A dealer's states of the USSD dialogue (machines/ussd-session.machine.ts spreads them into its
 * list), reached from the agent menu's "My retailers" once the PIN passed: Transfer float (a
 * retailer chosen from the list or its number typed, the amount, a confirmation, then the same
 * transfer SMS `TRANSFER` makes) and the retailers with their floats and today's sales, one of
 * which the dealer may disable (or enable again, when the dealer disabled it). As for a sale, the
 * PIN checked at the start of the dialogue covers the transfer: no second PIN.
 */
import type { DoneActorEvent } from 'xstate';
import { SETTLED_TAG, type DialogueEvent } from '../../src/ussd/engine/dialogue';
import { formatMoney } from '../../src/vas/money';
import type { DealerDraft, RetailerItem, UssdContext } from './context';
import type { AddAnswer, AddCheckAnswer, SuperviseAnswer, TransferAnswer } from './dealer-actors';
import { DEALER_OPT } from './dealer-screens';
import { amountMinor, customerNumber, typed } from './input';
import { again, choosing, keep, toMenu, waiting, withError, type Answered } from './transitions';

interface Args {
  context: UssdContext;
  event: DialogueEvent;
}

const draftOf = (context: UssdContext): DealerDraft => context.dealer ?? { mode: 'list', retailers: [] };
const withDraft = (context: UssdContext, changes: Partial<DealerDraft>) => ({
  dealer: { ...draftOf(context), ...changes },
});
/** A new draft in `mode`, keeping the count of transfers started (their request keys stay apart). */
const newDraft = (context: UssdContext, mode: DealerDraft['mode'], started = 0) => ({
  dealer: { mode, retailers: [], transfers: (context.dealer?.transfers ?? 0) + started },
});

/** The retailer an event names: an option chosen, or its number typed; null when none of the list. */
function retailerOf({ context, event }: Args): string | null {
  const retailers = context.dealer?.retailers ?? [];
  const number =
    event.type === 'CHOOSE'
      ? event.optionId.startsWith('retailer:')
        ? event.optionId.slice('retailer:'.length)
        : null
      : customerNumber(context, typed(event));
  return retailers.some((r) => r.msisdn === number) ? number : null;
}

const chose =
  (id: string) =>
  ({ event }: Args) =>
    event.type === 'CHOOSE' && event.optionId === id;

/** The retailers read again (after a change), then the list with `notice` above it. */
const listWith = (notice: string, guard?: (a: Answered<SuperviseAnswer>) => boolean) => ({
  ...(guard && { guard }),
  target: 'dealerRetailersLoading',
  actions: keep(({ context }) => ({ notice: { key: notice }, ...withDraft(context, { mode: 'list' }) })),
});

const takeRetailer = keep<DialogueEvent>(({ context, event }) =>
  withDraft(context, { to: retailerOf({ context, event }) }),
);

const toNetwork = { target: 'dealerMenu' } as const;

/**
 * A request that ran out of time may have been applied: the confirmation again (whose Send or Add
 * asks with the same key), and the draft remembers it so that Cancel does not say nothing happened.
 */
const timedOutTo = (confirm: 'transferConfirm' | 'addRetailerConfirm') => ({
  target: confirm,
  actions: keep(({ context }) => ({
    notice: { key: 'error.timeout' },
    ...withDraft(context, { timedOut: true }),
  })),
});

/** Cancel at a confirmation: "nothing was done", or, after a timeout of this draft, that it may have been. */
const cancelTo = (cancelled: string, maybeDone: string) => [
  {
    guard: (a: Args) => chose(DEALER_OPT.cancel)(a) && a.context.dealer?.timedOut === true,
    ...again('dealerMenu', maybeDone),
  },
  { guard: chose(DEALER_OPT.cancel), ...again('dealerMenu', cancelled) },
];

const positive = (minor: number | null) => (minor !== null && minor > 0 ? minor : null);

/**
 * A draft's `field` typed at `state`: what `read` makes of the text (null: refused) is kept and
 * the dialogue goes on to `next`; refused text, or a choice, shows the prompt again with `invalid`.
 */
function draftField<F extends 'to' | 'name' | 'amountMinor'>(
  state: 'addRetailerNumber' | 'addRetailerName' | 'transferAmount',
  field: F,
  read: (args: Args) => DealerDraft[F],
  next: string,
  invalid: string,
  back: { target: string },
) {
  return {
    ...waiting(state, false),
    on: {
      TEXT: [
        {
          guard: (args: Args) => read(args) !== null,
          target: next,
          actions: keep<DialogueEvent>((args) => withDraft(args.context, { [field]: read(args) })),
        },
        again(state, invalid),
      ],
      CHOOSE: again(state, invalid),
      BACK: back,
      HOME: toMenu,
    },
  } as const;
}

/** A refusal's notice: the number's own problems re-prompt for the number, a name's for the name. */
const refusedKey = (reason: string) =>
  reason === 'invalid_number'
    ? 'dealer.add.invalidNumber'
    : reason === 'invalid_name'
      ? 'dealer.add.invalidName'
      : `dealer.add.refused.${reason}`;

const MAX_NAME = 30;
const nameOf = (event: DialogueEvent): string | null => {
  const name = typed(event).replace(/\s+/g, ' ');
  return name.length >= 1 && name.length <= MAX_NAME ? name : null;
};

/**
 * Add retailer: the number (checked as any phone number typed, then by the dealer's rules: not
 * itself, not an agent, not blocked, not waiting already), the name, a confirmation, then the
 * request, once per dialogue key and number (a hop sent again asks nothing twice).
 */
const addRetailerStates = {
  addRetailerNumber: draftField(
    'addRetailerNumber',
    'to',
    ({ context, event }) => customerNumber(context, typed(event)),
    'addRetailerChecking',
    'dealer.add.invalidNumber',
    toNetwork,
  ),
  addRetailerChecking: {
    invoke: {
      src: 'dealerCheckRetailer',
      input: ({ context }: { context: UssdContext }) => ({
        msisdn: context.msisdn,
        number: context.dealer?.to ?? '',
      }),
      onDone: [
        {
          guard: ({ event }: Answered<AddCheckAnswer>) => event.output.status === 'ok',
          target: 'addRetailerName',
          actions: keep<DoneActorEvent<AddCheckAnswer>>(({ context, event }) =>
            withDraft(context, { to: (event.output as { msisdn: string }).msisdn }),
          ),
        },
        {
          target: 'addRetailerNumber',
          reenter: true,
          actions: keep<DoneActorEvent<AddCheckAnswer>>(({ event }) => ({
            notice: { key: refusedKey(event.output.status) },
          })),
        },
      ],
      onError: { target: 'unavailable', actions: withError('recordError') },
    },
    on: { TIMEOUT: again('addRetailerNumber', 'error.timeout') },
  },
  addRetailerName: draftField(
    'addRetailerName',
    'name',
    ({ event }) => nameOf(event),
    'addRetailerConfirm',
    'dealer.add.invalidName',
    { target: 'addRetailerNumber' },
  ),
  addRetailerConfirm: {
    ...waiting('addRetailerConfirm', false),
    on: choosing(
      'addRetailerConfirm',
      [
        { guard: chose(DEALER_OPT.add), target: 'addRetailerSending' },
        ...cancelTo('dealer.add.cancelled', 'dealer.add.cancelledMaybeAdded'),
      ],
      { target: 'addRetailerName' },
    ),
  },
  /** The request, once per key: the dialogue's key with the number, so Add sent again finds it. */
  addRetailerSending: {
    invoke: {
      src: 'dealerAddRetailer',
      input: ({ context }: { context: UssdContext }) => ({
        msisdn: context.msisdn,
        number: context.dealer?.to ?? '',
        name: context.dealer?.name ?? '',
        key: `${context.aggregator}:${context.sessionId}:${context.startedAt}:add:${context.dealer?.to}`,
      }),
      onDone: [
        {
          guard: ({ event }: Answered<AddAnswer>) => event.output.status !== 'refused',
          target: 'addRetailerDone',
          actions: keep<DoneActorEvent<AddAnswer>>(({ event }) => {
            const out = event.output as Extract<AddAnswer, { name: string }>;
            const done = out.status === 'registered' ? 'dealer.add.registered' : 'dealer.add.pending';
            return { notice: { key: done, params: { name: out.name } } };
          }),
        },
        {
          guard: ({ event }: Answered<AddAnswer>) =>
            event.output.status === 'refused' && event.output.reason === 'invalid_name',
          target: 'addRetailerName',
          actions: keep(() => ({ notice: { key: 'dealer.add.invalidName' } })),
        },
        {
          target: 'addRetailerNumber',
          actions: keep<DoneActorEvent<AddAnswer>>(({ event }) => ({
            notice: { key: refusedKey((event.output as { reason: string }).reason) },
          })),
        },
      ],
      onError: { target: 'unavailable', actions: withError('recordError') },
    },
    on: { TIMEOUT: timedOutTo('addRetailerConfirm') },
  },
  addRetailerDone: { type: 'final', tags: SETTLED_TAG, entry: 'showNoticeFinal' },
} as const;

/** "Add retailer": on the dealer's menu, and on an empty list (a dealer with no retailer yet). */
const toAddRetailer = {
  guard: chose(DEALER_OPT.add),
  target: 'addRetailerNumber',
  actions: keep(({ context }) => newDraft(context, 'add')),
};

export const dealerStates = {
  dealerMenu: {
    ...waiting('dealerMenu', false),
    on: choosing(
      'dealerMenu',
      [
        {
          // A new transfer: counted, so its request key differs from any earlier one's.
          guard: chose(DEALER_OPT.transfer),
          target: 'dealerRetailersLoading',
          actions: keep(({ context }) => newDraft(context, 'transfer', 1)),
        },
        {
          guard: chose(DEALER_OPT.retailers),
          target: 'dealerRetailersLoading',
          actions: keep(({ context }) => newDraft(context, 'list')),
        },
        toAddRetailer,
      ],
      toMenu,
    ),
  },

  /** The dealer's retailers, read on each visit (their floats change with every sale). */
  dealerRetailersLoading: {
    invoke: {
      src: 'dealerRetailers',
      input: ({ context }: { context: UssdContext }) => ({ msisdn: context.msisdn }),
      onDone: [
        {
          guard: ({ context }: { context: UssdContext }) => context.dealer?.mode === 'transfer',
          target: 'transferTo',
          actions: keep<DoneActorEvent<RetailerItem[]>>(({ context, event }) =>
            withDraft(context, { retailers: event.output }),
          ),
        },
        {
          target: 'retailers',
          actions: keep<DoneActorEvent<RetailerItem[]>>(({ context, event }) =>
            withDraft(context, { retailers: event.output }),
          ),
        },
      ],
      onError: { target: 'unavailable', actions: withError('recordError') },
    },
    on: { TIMEOUT: again('dealerMenu', 'error.timeout') },
  },

  transferTo: {
    ...waiting('transferTo', false),
    on: {
      CHOOSE: [
        { guard: (a: Args) => retailerOf(a) !== null, target: 'transferAmount', actions: takeRetailer },
        toAddRetailer,
        again('transferTo', 'error.invalidChoice'),
      ],
      TEXT: [
        { guard: (a: Args) => retailerOf(a) !== null, target: 'transferAmount', actions: takeRetailer },
        again('transferTo', 'dealer.notYourRetailer'),
      ],
      BACK: toNetwork,
      HOME: toMenu,
    },
  },

  transferAmount: draftField(
    'transferAmount',
    'amountMinor',
    ({ event }) => positive(amountMinor(typed(event))),
    'transferConfirm',
    'agent.topup.invalidAmount',
    { target: 'transferTo' },
  ),

  transferConfirm: {
    ...waiting('transferConfirm', false),
    on: choosing(
      'transferConfirm',
      [
        { guard: chose(DEALER_OPT.send), target: 'transferring' },
        ...cancelTo('dealer.transfer.cancelled', 'dealer.transfer.cancelledMaybeSent'),
      ],
      { target: 'transferAmount' },
    ),
  },

  /**
   * The transfer, once per request key: the dialogue's key with the transfer's number in the
   * dialogue (counted on each "Transfer float"), the retailer and the amount, so a hop sent again
   * (or Send after a timeout, or the same retailer and amount chosen again before it) finds it
   * applied and answers the same, while a transfer started anew is a new one.
   */
  transferring: {
    invoke: {
      src: 'dealerTransfer',
      input: ({ context }: { context: UssdContext }) => ({
        msisdn: context.msisdn,
        to: context.dealer?.to ?? '',
        minor: context.dealer?.amountMinor ?? 0,
        key: `${context.aggregator}:${context.sessionId}:${context.startedAt}:transfer:${context.dealer?.transfers ?? 0}:${context.dealer?.to}:${context.dealer?.amountMinor}`,
      }),
      onDone: [
        {
          guard: ({ event }: Answered<TransferAnswer>) => event.output.status === 'transferred',
          target: 'transferDone',
          actions: keep<DoneActorEvent<TransferAnswer>>(({ event }) => {
            const out = event.output as Extract<TransferAnswer, { status: 'transferred' }>;
            return {
              notice: {
                key: 'dealer.transfer.sent',
                params: {
                  amount: formatMoney(out.amount),
                  to: out.retailerName,
                  balance: formatMoney(out.dealerBalance),
                },
              },
            };
          }),
        },
        {
          guard: ({ event }: Answered<TransferAnswer>) => event.output.status === 'insufficient',
          target: 'transferAmount',
          actions: keep<DoneActorEvent<TransferAnswer>>(({ event }) => {
            const out = event.output as Extract<TransferAnswer, { status: 'insufficient' }>;
            return {
              notice: {
                key: 'dealer.transfer.insufficient',
                params: { available: formatMoney(out.available) },
              },
            };
          }),
        },
        {
          // The reference names another transfer (the service logged it): nothing moved; a
          // transfer started again from the menu has a new one.
          guard: ({ event }: Answered<TransferAnswer>) => event.output.status === 'conflict',
          ...again('dealerMenu', 'dealer.transfer.conflict'),
        },
        again('transferTo', 'dealer.notYourRetailer'),
      ],
      onError: { target: 'unavailable', actions: withError('recordError') },
    },
    on: { TIMEOUT: timedOutTo('transferConfirm') },
  },
  transferDone: { type: 'final', tags: SETTLED_TAG, entry: 'showNoticeFinal' },

  /** My retailers: floats and today's sales; one chosen shows what the dealer may do to it. */
  retailers: {
    ...waiting('retailers', false),
    on: choosing(
      'retailers',
      [
        { guard: (a: Args) => retailerOf(a) !== null, target: 'retailer', actions: takeRetailer },
        toAddRetailer,
      ],
      toNetwork,
    ),
  },
  retailer: {
    ...waiting('retailer', false),
    on: choosing(
      'retailer',
      [
        { guard: chose(DEALER_OPT.disable), target: 'retailerDisabling' },
        { guard: chose(DEALER_OPT.enable), target: 'retailerEnabling' },
      ],
      { target: 'retailers' },
    ),
  },
  ...addRetailerStates,
  retailerDisabling: supervising('disabled'),
  retailerEnabling: supervising('active'),
} as const;

/** A dealer's change of its retailer's status, then the list read again saying what came of it. */
function supervising(status: 'active' | 'disabled') {
  const is = (answer: SuperviseAnswer) => (a: Answered<SuperviseAnswer>) => a.event.output === answer;
  return {
    invoke: {
      src: 'superviseRetailer',
      input: ({ context }: { context: UssdContext }) => ({
        msisdn: context.msisdn,
        retailer: context.dealer?.to ?? '',
        status,
      }),
      onDone: [
        listWith(status === 'disabled' ? 'dealer.retailer.disabled' : 'dealer.retailer.enabled', is('done')),
        listWith('dealer.retailer.notAllowed', is('not_allowed')),
        listWith('dealer.notYourRetailer'),
      ],
      onError: { target: 'unavailable', actions: withError('recordError') },
    },
    on: { TIMEOUT: again('retailer', 'error.timeout') },
  } as const;
}
