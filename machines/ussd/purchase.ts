import type { PurchaseIntent } from '../../src/purchases/types';
import { saleIntent } from '../../src/sales/intent';
import type { UssdContext } from './context';

/**
 * The intent the dialogue has gathered (src/sales/intent.ts, as every channel builds it), or
 * null while a field is missing. The quote validates exactly this intent and `order` hands the
 * quoted intent over.
 */
export function draftIntent(ctx: UssdContext): PurchaseIntent | null {
  const { productType, providerCode, identifier, amountMinor } = ctx.purchase;
  const { account } = ctx;
  if (!productType || !providerCode || !identifier || !amountMinor || !account) return null;
  const agent = ctx.agent?.verified ? ctx.agent : null;
  if (agent && productType !== 'AIRTIME' && !ctx.purchase.customer) return null;
  return saleIntent({
    productType,
    providerCode,
    identifier,
    amountMinor,
    account,
    requester: ctx.msisdn,
    agent,
    customer: ctx.purchase.customer ?? null,
    beneficiary: ctx.purchase.tokenTo === 'other' ? (ctx.purchase.beneficiary ?? null) : null,
    language: ctx.language,
    channel: 'USSD',
  });
}

/** The dialogue's purchase key: one purchase per dialogue; `startedAt` tells apart recycled session ids. */
export function dialogueKey(ctx: UssdContext): string {
  return `${ctx.aggregator}:${ctx.sessionId}:${ctx.startedAt ?? 0}`;
}
