/**
 * Reading what the subscriber sent: the chosen option, the typed text, and whether a typed
 * identifier, phone number or amount passes. Pure: guards and actions share these.
 */
import { normaliseMsisdn, regionFromLanguageTag, type CountryCode } from '../../src/phone';
import type { DialogueEvent, LocalText } from '../../src/ussd/engine/dialogue';
import { validateIdentifier } from '../../src/vas/catalogue';
import { checkRange, refusalText, type AmountRange } from '../../src/spend/rules';
import { parseDecimalAmount } from '../../src/vas/money';
import { saleRefusalOf } from '../../src/agents/refusal';
import type { VasProduct } from '../../src/vas/port';
import type { UssdContext } from './context';

/** The option id of a CHOOSE, else null. */
export const chosen = (event: DialogueEvent): string | null =>
  event.type === 'CHOOSE' ? event.optionId : null;

/** The trimmed text of a TEXT, else ''. */
export const typed = (event: DialogueEvent): string => (event.type === 'TEXT' ? event.text.trim() : '');

/** The rest of the chosen option id after `prefix` (`product:AIRTIME` → `AIRTIME`), else null. */
export const chosenAfter = (event: DialogueEvent, prefix: string): string | null => {
  const id = chosen(event);
  return id !== null && id.startsWith(prefix) ? id.slice(prefix.length) : null;
};

/** People type spaces inside meter numbers; the service wants the bare value. */
export const compact = (text: string): string => text.replace(/\s+/g, '');

/** The catalogue product of that type (the one being bought when `type` is the context's). */
export const productOf = (ctx: UssdContext, type: string | null): VasProduct | undefined =>
  ctx.products.find((p) => p.productType === type);

/** Why a typed identifier is refused, or null when it passes the catalogue rule. */
export function identifierProblem(ctx: UssdContext, text: string): LocalText | null {
  const rule = productOf(ctx, ctx.purchase.productType)?.identifier;
  if (!rule) return null;
  const check = validateIdentifier(rule, compact(text));
  if (check.ok) return null;
  if (check.reason === 'tooShort')
    return { key: 'identifier.invalid.tooShort', params: { min: check.min ?? 0 } };
  if (check.reason === 'tooLong')
    return { key: 'identifier.invalid.tooLong', params: { max: check.max ?? 0 } };
  return { key: 'identifier.invalid.pattern' };
}

/** E.164 digits of a typed airtime number that also passes the catalogue rule, or null. */
export function airtimeNumber(ctx: UssdContext, text: string): string | null {
  const region = regionFromLanguageTag(ctx.language, ctx.settings.defaultRegion as CountryCode);
  const n = normaliseMsisdn(text, region);
  if (!n.ok) return null;
  const rule = productOf(ctx, ctx.purchase.productType)?.identifier;
  return !rule || validateIdentifier(rule, n.e164).ok ? n.e164 : null;
}

/**
 * The range the amount screen names and checks: the operator's range for the product, its top
 * lowered to a field agent's most per sale.
 */
export function amountRangeOf(ctx: UssdContext): AmountRange | undefined {
  const range = ctx.purchase.productType ? ctx.settings.amounts?.[ctx.purchase.productType] : undefined;
  const maxSale = ctx.agent?.maxSaleMinor;
  if (maxSale === undefined || (range && range.maxMinor <= maxSale)) return range;
  return { minMinor: range?.minMinor ?? 0, maxMinor: maxSale };
}

/**
 * Why a typed amount is refused, or null: not a number, or outside the range (the notice names
 * the limit: the agent's own when it is the one that bites), before any quote is asked for.
 */
export function amountProblem(ctx: UssdContext, text: string): LocalText | null {
  const parsed = parseDecimalAmount(text);
  if (!parsed.ok) return { key: `amount.invalid.${parsed.reason}` };
  const range = amountRangeOf(ctx);
  if (!range || !ctx.account) return null;
  const amount = { currency: ctx.account.currency, minor: parsed.minor };
  const refusal = checkRange(range, amount);
  // The agent's own limit, worded as the float's refusal at the quote is (one wording).
  const agentRefusal =
    refusal?.code === 'spend_above_maximum' && range.maxMinor === ctx.agent?.maxSaleMinor
      ? saleRefusalOf(
          { money: (minor) => ({ currency: amount.currency, minor }) },
          { reason: 'over_limit', limit: 'max_sale', limitValue: range.maxMinor },
        )
      : null;
  const shown = agentRefusal ?? refusal;
  return shown ? refusalText(shown) : null;
}

/** The typed amount in minor units, or null. */
export function amountMinor(text: string): number | null {
  const parsed = parseDecimalAmount(text);
  return parsed.ok ? parsed.minor : null;
}

/** E.164 digits of an agent's customer's number as typed, or null. */
export function customerNumber(ctx: UssdContext, text: string): string | null {
  const region = regionFromLanguageTag(ctx.language, ctx.settings.defaultRegion as CountryCode);
  const n = normaliseMsisdn(text, region);
  return n.ok ? n.e164 : null;
}
