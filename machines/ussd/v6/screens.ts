/** FROZEN copy for the version 6 machine (./machine.ts): do not edit. */
/**
 * Pure screen builders: context → what the engine renders. Keys are those of locales/*.json:
 * product names and identifier labels are the locale's (`product.<TYPE>`,
 * `identifier.label.<TYPE>`), never the catalogue's English display names; provider names and
 * language names are literal.
 */
import { languageOf } from '../../../src/i18n/catalogue';
import type { LocalText, Screen, ScreenOption, TextParams } from '../../../src/session/dialogue';
import { maskMsisdn } from '../../../src/phone';
import { derivedHint } from '../../../src/vas/catalogue';
import { formatMoney } from '../../../src/vas/money';
import type { ProductType, VasProduct } from '../../../src/vas/port';
import type { UssdContext } from '../context';
import { amountRangeOf } from '../input';

/**
 * The language the catalogue's free text (an admin-curated identifier hint) is written in:
 * shown as is in that language, replaced by the localised hint derived from min/max in others.
 */
export const CATALOGUE_LANGUAGE = 'en';

/** Option ids the machine gives and receives back. */
export const OPT = {
  product: (type: string) => `product:${type}`,
  provider: (code: string) => `provider:${code}`,
  lang: (code: string) => `lang:${code}`,
  token: (purchaseId: string) => `token:${purchaseId}`,
  tokens: 'tokens',
  language: 'language',
  self: 'self',
  other: 'other',
  buy: 'buy',
  cancel: 'cancel',
  retry: 'retry',
} as const;

const key = (k: string, params?: TextParams): LocalText => (params ? { key: k, params } : { key: k });

function withNotice(ctx: UssdContext, lines: LocalText[]): LocalText[] {
  return ctx.notice ? [ctx.notice, ...lines] : lines;
}

/** A product's name in the dialogue's language. */
export const productName = (type: ProductType): LocalText => key(`product.${type}`);

/** What a purchase in progress is about (product, and identifier once typed), for the resume offer. */
export function aboutPurchase(ctx: UssdContext): LocalText | undefined {
  if (!ctx.purchase.productType) return undefined;
  const product = productName(ctx.purchase.productType);
  return ctx.purchase.identifier
    ? key('resume.about', { product, identifier: ctx.purchase.identifier })
    : product;
}

/** A screen waiting for the subscriber, with `0 Back` / `00 Home`. */
function prompt(ctx: UssdContext, body: LocalText[], rest: Partial<Screen>): Screen {
  const about = aboutPurchase(ctx);
  return { body: withNotice(ctx, body), back: true, home: true, ...(about ? { about } : {}), ...rest };
}

export function currentProduct(ctx: UssdContext): VasProduct | undefined {
  return ctx.products.find((p) => p.productType === ctx.purchase.productType);
}

export function menuScreen(ctx: UssdContext): Screen {
  const options: ScreenOption[] = [
    ...ctx.products.map((p) => ({ id: OPT.product(p.productType), label: productName(p.productType) })),
    { id: OPT.tokens, label: key('menu.myTokens') },
    { id: OPT.language, label: key('menu.language') },
  ];
  // The main menu has nothing behind it: no back/home lines.
  return { body: withNotice(ctx, [key('menu.title')]), options };
}

export function providerScreen(ctx: UssdContext): Screen {
  const product = currentProduct(ctx);
  return prompt(
    ctx,
    [key('provider.prompt', { product: productName(ctx.purchase.productType ?? 'ELECTRICITY') })],
    {
      options: (product?.providers ?? []).map((p) => ({
        id: OPT.provider(p.code),
        label: { literal: p.name },
      })),
    },
  );
}

export function airtimeForScreen(ctx: UssdContext): Screen {
  return prompt(ctx, [key('airtime.whoFor')], {
    options: [
      { id: OPT.self, label: key('airtime.myNumber') },
      { id: OPT.other, label: key('airtime.otherNumber') },
    ],
  });
}

export function phoneScreen(ctx: UssdContext): Screen {
  return prompt(ctx, [key('airtime.otherNumber.prompt')], { expectsText: true });
}

/**
 * "Enter <label> (<hint>):" with the locale's label; the hint is the admin's (catalogue) text in
 * the catalogue's language, else the localised one derived from min/max, else none.
 */
export function identifierScreen(ctx: UssdContext): Screen {
  const rule = currentProduct(ctx)?.identifier;
  const label = key(`identifier.label.${ctx.purchase.productType ?? 'ELECTRICITY'}`);
  const hint: LocalText | null =
    rule?.hint && languageOf(ctx.language) === CATALOGUE_LANGUAGE
      ? { literal: rule.hint }
      : rule
        ? derivedHint(rule.minLength, rule.maxLength)
        : null;
  const line = hint ? key('identifier.prompt', { label, hint }) : key('identifier.promptNoHint', { label });
  return prompt(ctx, [line], { expectsText: true });
}

/** The amount prompt, naming the operator's range for the product when there is one. */
export function amountScreen(ctx: UssdContext): Screen {
  const currency = ctx.account?.currency ?? '';
  const range = amountRangeOf(ctx);
  const line = range
    ? key('amount.promptRange', {
        min: formatMoney({ currency, minor: range.minMinor }),
        max: formatMoney({ currency, minor: range.maxMinor }),
      })
    : key('amount.prompt', { currency });
  return prompt(ctx, [line], { expectsText: true });
}

/**
 * The quote: the consumer's name (the only line that may be cut), then the identifier, units,
 * amount (before charges), charges and total (what is paid), and a warning when the provider's
 * own deduction takes most of the amount — those lines are never cut; the renderer pages them
 * (and Buy) rather than cut them.
 */
export function quoteScreen(ctx: UssdContext): Screen {
  const q = ctx.purchase.quote;
  if (!q) return prompt(ctx, [key('error.serviceUnavailable')], {});
  const identifier = q.intent.subscriberIdentifier;
  const name = q.subscriberDetails?.trim();
  const keep: LocalText[] = [
    q.intent.productType === 'AIRTIME'
      ? key('quote.line.airtimeFor', { identifier })
      : { literal: identifier },
    ...(q.units ? [key('quote.line.units', { units: q.units })] : []),
    key('quote.line.amount', { amount: formatMoney(q.amount) }),
    key('quote.line.charges', { charges: formatMoney(q.charge) }),
    key('quote.line.total', { total: formatMoney(q.total) }),
    ...(q.deducted ? [key('quote.deducted', { deducted: formatMoney(q.deducted) })] : []),
    ...(q.floatAfter ? [key('quote.floatAfter', { float: formatMoney(q.floatAfter) })] : []),
  ];
  return prompt(ctx, name ? [{ literal: name }] : [], {
    keep,
    options: [
      { id: OPT.buy, label: key(ctx.agent?.verified ? 'quote.sell' : 'quote.buy') },
      { id: OPT.cancel, label: key('quote.cancel') },
    ],
  });
}

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
    ],
  };
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
    ],
    { back: true, home: true },
  );
}

export function tokensScreen(ctx: UssdContext): Screen {
  if (ctx.tokens.length === 0) return prompt(ctx, [key('tokens.none')], {});
  return prompt(ctx, [key('tokens.title')], {
    options: ctx.tokens.map((t) => ({
      id: OPT.token(t.purchaseId),
      label: key('tokens.item', { identifier: t.identifier, amount: formatMoney(t.amount), date: t.date }),
    })),
  });
}

export function languageScreen(ctx: UssdContext): Screen {
  return prompt(ctx, [key('language.title')], {
    options: ctx.settings.languages.map((l) => ({ id: OPT.lang(l.code), label: { literal: l.name } })),
  });
}

/**
 * "This is taking longer than expected": 1 retries the same (safe) invocation. Once an order
 * may exist, there is no way back to a screen that could start a different purchase.
 */
export function stalledScreen(ctx: UssdContext): Screen {
  const locked = ctx.purchase.stalled === 'order' || ctx.purchase.stalled === 'catalogue';
  // A slow Buy may already have bought: never word it as an invitation to buy again.
  const ordering = ctx.purchase.stalled === 'order';
  const about = aboutPurchase(ctx);
  return {
    body: withNotice(ctx, [key(ordering ? 'error.orderStalled' : 'error.timeout')]),
    options: [{ id: OPT.retry, label: key(ordering ? 'retry.check' : 'retry.again') }],
    back: !locked,
    home: !locked,
    ...(about ? { about } : {}),
  };
}

/** A final screen: one message, END. */
export function finalScreen(message: LocalText): Screen {
  return { body: [message], final: true };
}

export function doneScreen(ctx: UssdContext): Screen {
  const quote = ctx.purchase.quote;
  // The buyer pays first: the PIN prompt comes next, the token after it.
  if (quote?.intent.paymentRequired)
    return finalScreen(key('payment.approve', { amount: formatMoney(quote.total) }));
  const airtime = ctx.purchase.quote?.intent.productType === 'AIRTIME';
  // The SMS goes to whoever gets the token: the caller, or an agent's customer.
  const to = ctx.purchase.quote?.intent.agent ? ctx.purchase.quote.intent.beneficiaryMsisdn : ctx.msisdn;
  return finalScreen(key(airtime ? 'confirm.doneAirtime' : 'confirm.done', { msisdn: maskMsisdn(to) }));
}

/** The screens that wait for the subscriber, by the name the machine shows them with. */
const PROMPTS = {
  menu: menuScreen,
  provider: providerScreen,
  airtimeFor: airtimeForScreen,
  phone: phoneScreen,
  identifier: identifierScreen,
  amount: amountScreen,
  quote: quoteScreen,
  tokens: tokensScreen,
  language: languageScreen,
  stalled: stalledScreen,
  agentPin: agentPinScreen,
  agentMenu: agentMenuScreen,
  customer: customerScreen,
  agentFloat: agentFloatScreen,
  agentOldPin: agentOldPinScreen,
  agentNewPin: agentNewPinScreen,
  agentRepeatPin: agentRepeatPinScreen,
  agentSales: agentSalesScreen,
} satisfies Record<string, (ctx: UssdContext) => Screen>;

/** A prompt the machine can show. */
export type PromptName = keyof typeof PROMPTS;

/**
 * The screen a settled dialogue shows, derived from `ctx.shown` and the rest of the context (the
 * engine's `screenOf`): snapshots store the name, not the screen. A prompt is drawn with the
 * notice it was shown with; an agent's dialogue is never resumed by a new session (that one asks
 * for the PIN again). Undefined before the first screen.
 */
export function dialogueScreen(ctx: UssdContext): Screen | undefined {
  const shown = ctx.shown;
  if (!shown) return undefined;
  if ('end' in shown) return finalScreen(shown.end);
  if ('done' in shown) return doneScreen(ctx);
  const notice = shown.notice ?? null;
  const screen = PROMPTS[shown.prompt as keyof typeof PROMPTS](
    ctx.notice === notice ? ctx : { ...ctx, notice },
  );
  return ctx.agent ? { ...screen, noResume: true } : screen;
}
