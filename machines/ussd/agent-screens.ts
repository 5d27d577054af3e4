/**
 * The field agent's screens (pure: context → screen): the PIN prompts (secret input, masked by
 * the engine in what it stores), the agent menu, the customer's number, the float, the last
 * sales and the float top-up.
 */
import type { Screen } from '../../src/ussd/engine/dialogue';
import { formatMoney } from '../../src/vas/money';
import type { UssdContext } from './context';
import { DEALER_OPT } from './dealer-screens';
import { key, OPT, prompt, withNotice } from './screen-kit';

/** The agent's PIN: a secret input (the engine masks it in what it stores). */
export function agentPinScreen(ctx: UssdContext): Screen {
  return { body: withNotice(ctx, [key('agent.pin.prompt')]), expectsText: true, secret: true };
}

export function agentMenuScreen(ctx: UssdContext): Screen {
  return {
    body: withNotice(ctx, [key('agent.menu.title')]),
    options: [
      ...ctx.products.map((p) => ({
        id: OPT.product(p.productType),
        label: key(`agent.sell.${p.productType}`),
      })),
      { id: 'float', label: key('agent.floatOption') },
      { id: 'sales', label: key('agent.salesOption') },
      { id: 'pin', label: key('agent.pinOption') },
      { id: OPT.language, label: key('menu.language') },
      // Last, so the options before keep their numbers; only a float's owner pays into it.
      ...(ctx.agent && ctx.agent.accountId === null && !ctx.agent.outlet
        ? [{ id: 'topup', label: key('agent.topupOption') }]
        : []),
      ...(ctx.agent?.dealer ? [{ id: DEALER_OPT.network, label: key('agent.dealerOption') }] : []),
    ],
  };
}

export function agentTopUpScreen(ctx: UssdContext): Screen {
  return prompt(ctx, [key('agent.topup.prompt')], { expectsText: true });
}

/** A PIN screen: secret input, masked by the engine in what it stores. */
const pinScreen = (ctx: UssdContext, k: string): Screen => ({
  body: withNotice(ctx, [key(k)]),
  expectsText: true,
  secret: true,
  home: ctx.agent?.verified === true,
});
export const agentOldPinScreen = (ctx: UssdContext) => pinScreen(ctx, 'agent.pin.current');
export const agentNewPinScreen = (ctx: UssdContext) => pinScreen(ctx, 'agent.pin.new');
export const agentRepeatPinScreen = (ctx: UssdContext) => pinScreen(ctx, 'agent.pin.repeat');

export function agentSalesScreen(ctx: UssdContext): Screen {
  const sales = ctx.sales ?? [];
  if (sales.length === 0) return prompt(ctx, [key('agent.sales.none')], {});
  return prompt(ctx, [key('agent.sales.title')], {
    options: sales.map((x) => ({
      id: `sale:${x.purchaseId}`,
      label: key('agent.sales.item', {
        date: x.date,
        identifier: x.identifier,
        total: formatMoney(x.total),
        state: x.state,
      }),
    })),
  });
}

export function customerScreen(ctx: UssdContext): Screen {
  return prompt(ctx, [key('agent.customer.prompt')], { expectsText: true });
}

export function agentFloatScreen(ctx: UssdContext): Screen {
  const f = ctx.agentFloat;
  return prompt(
    ctx,
    [
      f
        ? key('agent.float', { available: formatMoney(f.available), held: formatMoney(f.held) })
        : key('agent.floatAccount'),
      // As BAL says it: the commission earned today and this month, once there is some.
      ...(f?.commission && f.commission.month.minor > 0
        ? [
            key('agent.commission', {
              today: formatMoney(f.commission.today),
              month: formatMoney(f.commission.month),
            }),
          ]
        : []),
    ],
    { back: true, home: true },
  );
}

/** The agent's prompts, by the name the machine shows them with (in `screens.ts`'s list). */
export const AGENT_PROMPTS = {
  agentPin: agentPinScreen,
  agentMenu: agentMenuScreen,
  customer: customerScreen,
  agentFloat: agentFloatScreen,
  agentTopUp: agentTopUpScreen,
  agentOldPin: agentOldPinScreen,
  agentNewPin: agentNewPinScreen,
  agentRepeatPin: agentRepeatPinScreen,
  agentSales: agentSalesScreen,
} satisfies Record<string, (ctx: UssdContext) => Screen>;
