/**
 * The subscriber's look-back screens (pure: context → screen): "My purchases", one purchase
 * with its token or why, "Report a problem", "My meters" and one meter.
 */
import type { LocalText, Screen, ScreenOption } from '../../src/ussd/engine/dialogue';
import { formatMoney } from '../../src/vas/money';
import type { UssdContext } from './context';
import { savedMeters } from './meters';
import { key, meterLabel, OPT, prompt } from './screen-kit';

/** "Report a problem": the reasons, in the order shown (the codes of src/purchases/care/cases.ts). */
const REASONS = ['token_not_received', 'meter_rejects', 'wrong_meter', 'other'] as const;

/** "My purchases": the last purchases in every state, newest first. */
export function purchasesScreen(ctx: UssdContext): Screen {
  if (ctx.tokens.length === 0) return prompt(ctx, [key('purchases.none')], {});
  return prompt(ctx, [key('purchases.title')], {
    options: ctx.tokens.map((t) => ({
      id: OPT.purchase(t.purchaseId),
      label: key(`purchases.item.${t.status ?? 'delivered'}`, {
        identifier: t.identifier,
        amount: formatMoney(t.amount),
        date: t.date,
      }),
    })),
  });
}

/** One purchase: the token, or its reference and since when, or why it was not completed. */
export function purchaseDetailScreen(ctx: UssdContext): Screen {
  const t = ctx.tokens.find((x) => x.purchaseId === ctx.resendId);
  if (!t) return prompt(ctx, [key('purchases.none')], {});
  const head = key('purchase.head', {
    identifier: t.identifier,
    amount: formatMoney(t.amount),
    date: t.date,
  });
  const keep: LocalText[] =
    t.status === 'in_progress'
      ? [key('purchase.inProgress', { reference: t.reference ?? '', since: t.since ?? t.date })]
      : t.status === 'not_completed'
        ? [key(`purchase.why.${WHY.includes(t.why ?? '') ? t.why : 'failed'}`)]
        : (t.tokens ?? []).map((token) => key('purchase.token', { token }));
  const options: ScreenOption[] = [
    ...(t.status === 'delivered' ? [{ id: OPT.resendToken, label: key('purchase.resend') }] : []),
    { id: OPT.report, label: key('purchase.report') },
  ];
  return prompt(ctx, [head], { keep, options });
}

/** The reasons "My purchases" names itself; any other failure says "failed". */
const WHY = ['payment_failed', 'resolved', 'manual_check'];

/** "Report a problem": 1 Token not received 2 Meter rejects the token 3 Wrong meter 4 Other. */
export function reportScreen(ctx: UssdContext): Screen {
  return prompt(ctx, [key('report.title')], {
    options: REASONS.map((code) => ({ id: OPT.reason(code), label: key(`report.reason.${code}`) })),
  });
}

/** "My meters": every saved meter and account; one chosen can be removed. */
export function metersScreen(ctx: UssdContext): Screen {
  const saved = savedMeters(ctx);
  if (saved.length === 0) return prompt(ctx, [key('meters.none')], {});
  return prompt(ctx, [key('meters.title')], {
    options: saved.map((m) => ({ id: OPT.saved(m.productType, m.identifier), label: meterLabel(m) })),
  });
}

export function meterScreen(ctx: UssdContext): Screen {
  const m = savedMeters(ctx).find(
    (x) => x.productType === ctx.purchase.productType && x.identifier === ctx.purchase.identifier,
  );
  return prompt(ctx, [m ? meterLabel(m) : { literal: ctx.purchase.identifier ?? '' }], {
    options: [{ id: OPT.remove, label: key('meters.remove') }],
  });
}

/** The look-back prompts, by the name the machine shows them with (in `screens.ts`'s list). */
export const HISTORY_PROMPTS = {
  purchases: purchasesScreen,
  purchaseDetail: purchaseDetailScreen,
  report: reportScreen,
  meters: metersScreen,
  meter: meterScreen,
} satisfies Record<string, (ctx: UssdContext) => Screen>;
