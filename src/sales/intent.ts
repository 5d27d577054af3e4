import type { PurchaseChannel, PurchaseIntent } from '../purchases/types';
import type { ProductType } from '../vas/port';

/** What a channel has gathered of a sale: the product, the amount, who asks and for whom. */
export interface SaleDraft {
  productType: ProductType;
  providerCode: string;
  /** The meter or account number; for airtime, the number topped up (E.164). */
  identifier: string;
  amountMinor: number;
  /** The gateway's debited account (its currency is the sale's). */
  account: { id: number; currency: string };
  /** Who dialled or texted (E.164). */
  requester: string;
  /** A field agent's sale (the requester is the agent): the account it sells from, if not its float. */
  agent: { accountId: number | null } | null;
  /** An agent's sale of anything but airtime: the customer's number, who gets the token. */
  customer: string | null;
  /** Electricity or water bought by a subscriber for another number: who gets the token (a gift). */
  beneficiary?: string | null;
  language: string;
  channel: PurchaseChannel;
}

/**
 * The purchase intent of a sale, built here for every channel: the quote validates exactly
 * this intent and the Buy hands it in. Airtime goes to the number named; everything else to the
 * requester — or, sold by an agent, to the customer; bought as a gift, to the number named. An agent funded by an account of its own
 * sells from it.
 */
export function saleIntent(draft: SaleDraft): PurchaseIntent {
  const { productType, agent } = draft;
  return {
    productType,
    providerCode: draft.providerCode,
    subscriberIdentifier: draft.identifier,
    amount: { currency: draft.account.currency, minor: draft.amountMinor },
    debitedAccountId: agent?.accountId ?? draft.account.id,
    beneficiaryMsisdn:
      productType === 'AIRTIME'
        ? draft.identifier
        : agent
          ? draft.customer!
          : (draft.beneficiary ?? draft.requester),
    requesterMsisdn: draft.requester,
    language: draft.language,
    channel: draft.channel,
    ...(agent && { agent: { msisdn: draft.requester } }),
  };
}
