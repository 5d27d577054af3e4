/**
 * The dealer's screens (pure: context → screen): its network menu, the retailers to send float
 * to, the amount and the confirmation, the retailers with their floats and today's sales, and one
 * retailer with what the dealer may do to it. Keys are those of locales/*.json.
 */
import type { LocalText, Screen, TextParams } from '../../src/ussd/engine/dialogue';
import { maskMsisdn } from '../../src/phone';
import { formatMoney } from '../../src/vas/money';
import type { RetailerItem, UssdContext } from './context';

/** Option ids of the dealer's screens. */
export const DEALER_OPT = {
  network: 'dealer',
  transfer: 'transfer',
  retailers: 'retailers',
  add: 'add',
  retailer: (msisdn: string) => `retailer:${msisdn}`,
  send: 'send',
  cancel: 'cancel',
  disable: 'disable',
  enable: 'enable',
} as const;

const key = (k: string, params?: TextParams): LocalText => (params ? { key: k, params } : { key: k });

/** A screen waiting for the dealer, with `0 Back` / `00 Home` and the pending notice on top. */
function prompt(ctx: UssdContext, body: LocalText[], rest: Partial<Screen> = {}): Screen {
  return { body: ctx.notice ? [ctx.notice, ...body] : body, back: true, home: true, ...rest };
}

/** The retailer the dealer chose, from the list read. */
export const chosenRetailer = (ctx: UssdContext): RetailerItem | undefined =>
  ctx.dealer?.retailers.find((r) => r.msisdn === ctx.dealer?.to);

/** "Kgosi Shop 267****0002". */
const retailerName = (r: RetailerItem): string => `${r.name} ${maskMsisdn(r.msisdn)}`;

export function dealerMenuScreen(ctx: UssdContext): Screen {
  return prompt(ctx, [key('dealer.menu.title')], {
    options: [
      { id: DEALER_OPT.transfer, label: key('dealer.transferOption') },
      { id: DEALER_OPT.retailers, label: key('dealer.retailersOption') },
      { id: DEALER_OPT.add, label: key('dealer.addOption') },
    ],
  });
}

/** A dealer with no retailer yet (made one by an operator): says so and offers to add one. */
const noRetailers = (ctx: UssdContext): Screen =>
  prompt(ctx, [key('dealer.retailers.none')], {
    options: [{ id: DEALER_OPT.add, label: key('dealer.addOption') }],
  });

/** Send float to: the retailers by number (paged by the engine), or a retailer's number typed. */
export function transferToScreen(ctx: UssdContext): Screen {
  const retailers = ctx.dealer?.retailers ?? [];
  if (retailers.length === 0) return noRetailers(ctx);
  return prompt(ctx, [key('dealer.transfer.to')], {
    expectsText: true,
    options: retailers.map((r) => ({
      id: DEALER_OPT.retailer(r.msisdn),
      label: { literal: retailerName(r) },
    })),
  });
}

export function transferAmountScreen(ctx: UssdContext): Screen {
  const r = chosenRetailer(ctx);
  return prompt(ctx, [key('dealer.transfer.amount', { to: r ? retailerName(r) : '' })], {
    expectsText: true,
  });
}

/** "Send BWP 300.00 to Kgosi Shop 267****0002? 1 Send 2 Cancel". */
export function transferConfirmScreen(ctx: UssdContext): Screen {
  const r = chosenRetailer(ctx);
  const currency = ctx.account?.currency ?? '';
  return prompt(ctx, [], {
    keep: [
      key('dealer.transfer.confirm', {
        amount: formatMoney({ currency, minor: ctx.dealer?.amountMinor ?? 0 }),
        to: r ? retailerName(r) : '',
      }),
    ],
    options: [
      { id: DEALER_OPT.send, label: key('dealer.transfer.send') },
      { id: DEALER_OPT.cancel, label: key('quote.cancel') },
    ],
  });
}

/** My retailers: each with its float and today's sales (and its status when not active). */
export function retailersScreen(ctx: UssdContext): Screen {
  const retailers = ctx.dealer?.retailers ?? [];
  if (retailers.length === 0) return noRetailers(ctx);
  return prompt(ctx, [key('dealer.retailers.title')], {
    options: retailers.map((r) => ({ id: DEALER_OPT.retailer(r.msisdn), label: retailerLine(r) })),
  });
}

function retailerLine(r: RetailerItem): LocalText {
  const params = {
    name: r.name,
    float: r.float ? formatMoney(r.float) : '-',
    count: r.todayCount,
    value: formatMoney(r.todayValue),
  };
  return r.status === 'active'
    ? key('dealer.retailers.item', params)
    : key('dealer.retailers.itemStatus', { ...params, status: key(`dealer.status.${r.status}`) });
}

/** One retailer: number, float, today's sales; Disable (Enable only what its dealer disabled). */
export function retailerScreen(ctx: UssdContext): Screen {
  const r = chosenRetailer(ctx);
  if (!r) return prompt(ctx, [key('dealer.retailers.none')]);
  const action =
    r.status !== 'disabled'
      ? [{ id: DEALER_OPT.disable, label: key('dealer.retailer.disable') }]
      : r.byDealer
        ? [{ id: DEALER_OPT.enable, label: key('dealer.retailer.enable') }]
        : [];
  return prompt(ctx, [{ literal: `${r.name} ${r.msisdn}` }], { keep: [retailerLine(r)], options: action });
}

/** Add retailer: its number (validated and normalised as any phone number typed). */
export function addRetailerNumberScreen(ctx: UssdContext): Screen {
  return prompt(ctx, [key('dealer.add.number')], { expectsText: true });
}

export function addRetailerNameScreen(ctx: UssdContext): Screen {
  return prompt(ctx, [key('dealer.add.name')], { expectsText: true });
}

/** "Add Kgosi Shop 267****0002 as your retailer? 1 Add 2 Cancel". */
export function addRetailerConfirmScreen(ctx: UssdContext): Screen {
  return prompt(ctx, [], {
    keep: [
      key('dealer.add.confirm', {
        name: ctx.dealer?.name ?? '',
        number: maskMsisdn(ctx.dealer?.to ?? ''),
      }),
    ],
    options: [
      { id: DEALER_OPT.add, label: key('dealer.add.add') },
      { id: DEALER_OPT.cancel, label: key('quote.cancel') },
    ],
  });
}

/** The dealer's prompts, by the name the machine shows them with (screens.ts adds them to its own). */
export const DEALER_PROMPTS = {
  dealerMenu: dealerMenuScreen,
  transferTo: transferToScreen,
  transferAmount: transferAmountScreen,
  transferConfirm: transferConfirmScreen,
  retailers: retailersScreen,
  retailer: retailerScreen,
  addRetailerNumber: addRetailerNumberScreen,
  addRetailerName: addRetailerNameScreen,
  addRetailerConfirm: addRetailerConfirmScreen,
} satisfies Record<string, (ctx: UssdContext) => Screen>;
