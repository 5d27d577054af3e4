/**
 * The subscriber's screens (pure builders: context → what the engine renders): the menu, the
 * purchase's prompts, the quote, language, the stall and the closing screens; and the list of
 * every prompt by name (`PROMPTS`, with the agent's, the look-back and the dealer's) that
 * `dialogueScreen` draws from. Keys are those of locales/*.json:
 * product names and identifier labels are the locale's (`product.<TYPE>`,
 * `identifier.label.<TYPE>`), never the catalogue's English display names; provider names and
 * language names are literal.
 */
import { languageOf } from '../../src/i18n/catalogue';
import type { LocalText, Screen, ScreenOption } from '../../src/ussd/engine/dialogue';
import { maskMsisdn } from '../../src/phone';
import { derivedHint } from '../../src/vas/catalogue';
import { formatMoney } from '../../src/vas/money';
import type { VasProduct } from '../../src/vas/port';
import type { PurchaseIntent } from '../../src/purchases/types';
import type { UssdContext } from './context';
import { amountRangeOf } from './input';
import { offeredMeters } from './meters';
import { AGENT_PROMPTS } from './agent-screens';
import { DEALER_PROMPTS } from './dealer-screens';
import { HISTORY_PROMPTS } from './history-screens';
import { aboutPurchase, key, meterLabel, OPT, productName, prompt, withNotice } from './screen-kit';

export { OPT, aboutPurchase, productName } from './screen-kit';

/**
 * The language the catalogue's free text (an admin-curated identifier hint) is written in:
 * shown as is in that language, replaced by the localised hint derived from min/max in others.
 */
export const CATALOGUE_LANGUAGE = 'en';

export function currentProduct(ctx: UssdContext): VasProduct | undefined {
  return ctx.products.find((p) => p.productType === ctx.purchase.productType);
}

export function menuScreen(ctx: UssdContext): Screen {
  const options: ScreenOption[] = [
    ...ctx.products.map((p) => ({ id: OPT.product(p.productType), label: productName(p.productType) })),
    { id: OPT.tokens, label: key('menu.myPurchases') },
    { id: OPT.meters, label: key('menu.myMeters') },
    { id: OPT.help, label: key('menu.help') },
    { id: OPT.language, label: key('menu.language') },
  ];
  // The operator's notice is the menu's first line while it lasts (read when the dialogue started).
  const operator = ctx.settings.operatorNotice?.[languageOf(ctx.language)];
  const title = operator ? [{ literal: operator }, key('menu.title')] : [key('menu.title')];
  // The main menu has nothing behind it: no back/home lines.
  return { body: withNotice(ctx, title), options };
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
  const saved = offeredMeters(ctx);
  if (saved.length === 0) return prompt(ctx, [line], { expectsText: true });
  // Saved meters first ("1 01234567890 KABELO M"), then "Another meter"; a number typed is a meter too.
  return prompt(ctx, [key('identifier.choose', { label })], {
    expectsText: true,
    options: [
      ...saved.map((m) => ({ id: OPT.meter(m.identifier), label: meterLabel(m) })),
      { id: OPT.otherMeter, label: key(`identifier.another.${ctx.purchase.productType ?? 'ELECTRICITY'}`) },
    ],
  });
}

/** Electricity and water: "Send the token to: 1 This phone 2 Another number". */
export function tokenForScreen(ctx: UssdContext): Screen {
  return prompt(ctx, [key('tokenFor.title')], {
    options: [
      { id: OPT.self, label: key('tokenFor.thisPhone') },
      { id: OPT.other, label: key('tokenFor.another') },
    ],
  });
}

export function beneficiaryScreen(ctx: UssdContext): Screen {
  return prompt(ctx, [key('tokenFor.prompt')], { expectsText: true });
}

/** "A purchase of BWP 100.00 for 01234567890 is still in progress (ref …). Buy again anyway?" */
export function inProgressScreen(ctx: UssdContext): Screen {
  const first = ctx.purchase.inProgress?.[0];
  return prompt(
    ctx,
    [
      key('inProgress.ask', {
        amount: first ? formatMoney(first.amount) : '',
        identifier: ctx.purchase.identifier ?? '',
        reference: first?.reference ?? '',
      }),
    ],
    {
      options: [
        { id: OPT.yes, label: key('inProgress.yes') },
        { id: OPT.no, label: key('inProgress.no') },
      ],
    },
  );
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
    // A gift: who gets the token, before anyone pays.
    ...(giftTo(q.intent) ? [key('quote.line.tokenTo', { msisdn: maskMsisdn(giftTo(q.intent)!) })] : []),
  ];
  return prompt(ctx, name ? [{ literal: name }] : [], {
    keep,
    options: [
      { id: OPT.buy, label: key(ctx.agent?.verified ? 'quote.sell' : 'quote.buy') },
      { id: OPT.cancel, label: key('quote.cancel') },
    ],
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
  // The SMS goes to whoever gets the token: the caller, an agent's customer, or a gift's beneficiary.
  const intent = ctx.purchase.quote?.intent;
  const to = intent && (intent.agent || giftTo(intent)) ? intent.beneficiaryMsisdn : ctx.msisdn;
  return finalScreen(key(airtime ? 'confirm.doneAirtime' : 'confirm.done', { msisdn: maskMsisdn(to) }));
}

/** Electricity or water bought for another number: that number (airtime names its number anyway). */
function giftTo(intent: PurchaseIntent): string | null {
  return !intent.agent &&
    intent.productType !== 'AIRTIME' &&
    intent.beneficiaryMsisdn !== intent.requesterMsisdn
    ? intent.beneficiaryMsisdn
    : null;
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
  language: languageScreen,
  stalled: stalledScreen,
  tokenFor: tokenForScreen,
  beneficiary: beneficiaryScreen,
  inProgress: inProgressScreen,
  ...AGENT_PROMPTS,
  ...HISTORY_PROMPTS,
  ...DEALER_PROMPTS,
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
  const screen = PROMPTS[shown.prompt](ctx.notice === notice ? ctx : { ...ctx, notice });
  return ctx.agent ? { ...screen, noResume: true } : screen;
}
