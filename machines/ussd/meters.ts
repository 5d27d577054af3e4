/**
 * The caller's saved meters as the dialogue keeps them: read once when the dialogue starts
 * and held in its context, by product, each as `[identifier, name]`. Compact because the context
 * is stored on every hop within a 2 KB record (test/session/stored-screens.test.ts): ten named
 * meters as objects took about 900 bytes, as pairs under their product about half.
 */
import type { ProductType } from '../../src/vas/port';
import type { SavedMeterItem, SavedMeters, UssdContext } from './context';

/** A name longer than this is cut where the dialogue shows it ("1 04123456789 KABELO M"). */
const NAME_CHARS = 20;

/** The service's list (by product, newest first) as the context keeps it. */
export function packMeters(items: readonly SavedMeterItem[]): SavedMeters {
  const packed: SavedMeters = {};
  for (const m of items)
    (packed[m.productType] ??= []).push([m.identifier, m.name ? m.name.slice(0, NAME_CHARS).trim() : null]);
  return packed;
}

/** Every saved meter ("My meters"), by product then newest first; none when not read. */
export function savedMeters(ctx: UssdContext): SavedMeterItem[] {
  return (Object.entries(ctx.meters ?? {}) as Array<[ProductType, Array<[string, string | null]>]>).flatMap(
    ([productType, pairs]) => pairs.map(([identifier, name]) => ({ productType, identifier, name })),
  );
}

/**
 * The saved meters the identifier screen offers: the caller's for the product being bought,
 * none once "Another meter" was chosen, nor to an agent selling (its customers' meters are not its own).
 */
export function offeredMeters(ctx: UssdContext): SavedMeterItem[] {
  if (ctx.purchase.typedMeter || ctx.agent?.verified) return [];
  return savedMeters(ctx).filter((m) => m.productType === ctx.purchase.productType);
}
