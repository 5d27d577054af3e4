import type { PurchaseIntent } from '../../src/purchases/types';
import type { UssdContext } from './context';

/**
 * The intent the dialogue has gathered, or null while a field is missing. The quote validates
 * exactly this intent's request and `order` hands the quoted intent over: built once, here.
 */
export function draftIntent(ctx: UssdContext): PurchaseIntent | null {
  const { productType, providerCode, identifier, amountMinor } = ctx.purchase;
  const { account } = ctx;
  if (!productType || !providerCode || !identifier || !amountMinor || !account) return null;
  const agent = ctx.agent?.verified ? ctx.agent : null;
  if (agent && productType !== 'AIRTIME' && !ctx.purchase.customer) return null;
  return {
    productType,
    providerCode,
    subscriberIdentifier: identifier,
    amount: { currency: account.currency, minor: amountMinor },
    debitedAccountId: agent?.accountId ?? account.id,
    // Airtime goes to the number typed (or the caller's own); everything else to the caller —
    // or, sold by an agent, to the customer.
    beneficiaryMsisdn: productType === 'AIRTIME' ? identifier : agent ? ctx.purchase.customer! : ctx.msisdn,
    requesterMsisdn: ctx.msisdn,
    language: ctx.language,
    channel: 'USSD',
    ...(agent && { agent: { msisdn: ctx.msisdn } }),
  };
}

/** The dialogue's purchase key: one purchase per dialogue; `startedAt` tells apart recycled session ids. */
export function dialogueKey(ctx: UssdContext): string {
  return `${ctx.aggregator}:${ctx.sessionId}:${ctx.startedAt ?? 0}`;
}
