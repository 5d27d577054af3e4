/**
 * What every USSD screen is made of: the option ids the machine gives and receives back (`OPT`),
 * a locale text, the notice above a prompt, and a prompt with `0 Back` / `00 Home` and what the
 * purchase in progress is about (for the resume offer). The screen files build on these.
 */
import type { LocalText, Screen, TextParams } from '../../src/ussd/engine/dialogue';
import type { ProductType } from '../../src/vas/port';
import type { UssdContext } from './context';

/** Option ids the machine gives and receives back. */
export const OPT = {
  product: (type: string) => `product:${type}`,
  provider: (code: string) => `provider:${code}`,
  lang: (code: string) => `lang:${code}`,
  tokens: 'tokens',
  language: 'language',
  self: 'self',
  other: 'other',
  buy: 'buy',
  cancel: 'cancel',
  retry: 'retry',
  purchase: (purchaseId: string) => `purchase:${purchaseId}`,
  meter: (identifier: string) => `meter:${identifier}`,
  otherMeter: 'otherMeter',
  saved: (type: string, identifier: string) => `saved:${type}:${identifier}`,
  reason: (code: string) => `reason:${code}`,
  meters: 'meters',
  help: 'help',
  yes: 'yes',
  no: 'no',
  resendToken: 'resend',
  report: 'report',
  remove: 'remove',
} as const;

export const key = (k: string, params?: TextParams): LocalText => (params ? { key: k, params } : { key: k });

export function withNotice(ctx: UssdContext, lines: LocalText[]): LocalText[] {
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
export function prompt(ctx: UssdContext, body: LocalText[], rest: Partial<Screen>): Screen {
  const about = aboutPurchase(ctx);
  return { body: withNotice(ctx, body), back: true, home: true, ...(about ? { about } : {}), ...rest };
}

/** "01234567890 KABELO M". */
export const meterLabel = (m: { identifier: string; name: string | null }): LocalText => ({
  literal: m.name ? `${m.identifier} ${m.name}` : m.identifier,
});
