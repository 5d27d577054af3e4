/**
 * A one-dial shortcut (`*384*1*01234567890*100#` → `1*01234567890*100`): the menu's product by
 * its number, then the identifier, then the amount, each read as if typed on its own screen.
 * What is missing or wrong is asked for on its screen; the quote is never skipped (Buy is its own
 * keypress) and a shortcut never carries a PIN (an agent's dialogue asks for it first).
 */
import type { LocalText } from '../../src/ussd/engine/dialogue';
import { mayBePin } from '../../src/ussd/engine/input';
import type { PurchaseDraft, UssdContext } from './context';
import { airtimeNumber, amountMinor, amountProblem, compact, identifierProblem } from './input';

/** The draft a shortcut makes, and the notice when a part of it was refused. */
export function applyShortcut(ctx: UssdContext): { purchase: PurchaseDraft; notice: LocalText | null } {
  const [productNo, identifierText, amountText] = (ctx.purchase.shortcut ?? '').split('*');
  const cleared: PurchaseDraft = { ...ctx.purchase, shortcut: null };
  // Menu and agent menu number the products first, in catalogue order.
  const product = ctx.products[Number(productNo) - 1];
  if (!product) return { purchase: cleared, notice: { key: 'shortcut.unknown' } };
  let purchase: PurchaseDraft = {
    ...cleared,
    productType: product.productType,
    providerCode: product.providers.length === 1 ? product.providers[0].code : null,
  };
  // With several providers the provider is asked first; the rest of the shortcut is not guessed.
  if (!purchase.providerCode || identifierText === undefined) return { purchase, notice: null };
  const at: UssdContext = { ...ctx, purchase };
  if (product.productType === 'AIRTIME') {
    const number = airtimeNumber(at, identifierText);
    if (!number) return { purchase, notice: { key: 'identifier.invalid.invalidPhone' } };
    purchase = { ...purchase, identifier: number, airtimeFor: number === ctx.msisdn ? 'self' : 'other' };
  } else {
    const problem =
      identifierText === '' ? { key: 'identifier.invalid.pattern' } : identifierProblem(at, identifierText);
    if (problem) return { purchase, notice: problem };
    // A shortcut buys for the caller's own phone (a gift goes through the menu).
    purchase = { ...purchase, identifier: compact(identifierText), tokenTo: 'self' };
  }
  if (amountText === undefined) return { purchase, notice: null };
  const problem = amountProblem({ ...ctx, purchase }, amountText);
  if (problem) return { purchase, notice: problem };
  return { purchase: { ...purchase, amountMinor: amountMinor(amountText) }, notice: null };
}

/**
 * A shortcut without what an agent's PIN could be: cut before its first group of 4 to 6 digits
 * (null when nothing is left). Kept this way once the caller is an agent, or before the caller is
 * known (a stalled first hop), so no snapshot holds it: an agent's dialogue dialled
 * `*384*1*<meter>#` and lost at the PIN prompt comes back as `1*<meter>*<PIN>`, which nothing
 * tells from `1*<meter>*<amount>` (src/ussd/engine/input.ts `pinShapedRanges`). A real amount (or
 * identifier) of that shape is asked for on its screen.
 */
export function withoutPinShaped(shortcut: string): string | null {
  const groups = shortcut.split('*');
  const cut = groups.findIndex(mayBePin);
  if (cut === -1) return shortcut;
  return cut === 0 ? null : groups.slice(0, cut).join('*');
}
