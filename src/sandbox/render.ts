/** Wire shapes of successful responses: v1 envelope (2.2–2.5), legacy (2.8), accounts (2.6). */
import { OPERATOR_PARTY, USERS } from './fixtures';
import type { Account, Transaction } from './ledger';
import { formatMoney } from './money';
import { formatDate } from './purchases';

function requesterParty(userId: number): object {
  const user = USERS.find((u) => u.id === userId);
  return {
    id: userId,
    full_name: user?.fullName ?? '',
    phone_number: user?.phoneNumber ?? '',
    username: user?.username ?? '',
    address: '',
    status: 'ACTIVE',
  };
}

function beneficiaryParty(t: Transaction): object {
  return {
    id: Number(t.beneficiaryPhone.slice(-6)),
    full_name: t.subscriberDetails ?? '',
    phone_number: t.beneficiaryPhone,
    username: '',
    address: '',
    status: 'ACTIVE',
  };
}

function common(t: Transaction): Record<string, unknown> {
  const money = (minor: number): string => formatMoney(minor);
  return {
    id: t.id,
    channel: t.sourceChannel,
    date: formatDate(t.createdAt),
    status: t.status,
    type: 'TOPUP',
    reference: t.reference,
    operator: { ...OPERATOR_PARTY },
    requester: requesterParty(t.userId),
    payer: {},
    beneficiary: beneficiaryParty(t),
    total: money(t.totalMinor),
    net: money(t.netMinor),
    charge: money(t.chargeMinor),
    commission: money(t.commissionMinor),
    entry: money(t.totalMinor),
  };
}

function confirmed(t: Transaction): boolean {
  return t.status === 'SUCCESSFUL';
}

/** v1 transaction envelope; token and provider_transaction_identifier only once confirmed. */
export function v1Transaction(t: Transaction): object {
  const product: Record<string, unknown> = { type: t.productType, provider: t.providerCode };
  if (t.quote.units !== null) product.units = `${t.quote.units} ${t.quote.unitName}`;
  if (confirmed(t) && t.token !== null) product.token = t.token;
  const metadata: Record<string, string> = confirmed(t)
    ? t.productType === 'AIRTIME'
      ? {}
      : t.productType === 'WATER'
        ? { vat: t.quote.metadata.vat ?? '', cost: t.quote.metadata.cost ?? '' }
        : { ...t.quote.metadata }
    : { ...t.quote.metadata };
  if (confirmed(t) && t.providerTransactionId)
    metadata.provider_transaction_identifier = t.providerTransactionId;
  const body: Record<string, unknown> = { ...common(t), subscriber_identifier: t.subscriberIdentifier };
  if (t.subscriberDetails !== null) body.subscriber_details = t.subscriberDetails;
  body.product = product;
  body.metadata = metadata;
  return body;
}

/** Legacy transaction (2.8): meter_number/meter_details, no product/subscriber_* fields. */
export function legacyTransaction(t: Transaction): object {
  const body: Record<string, unknown> = common(t);
  delete body.date;
  if (!confirmed(t)) delete body.reference;
  body.meter_number = t.subscriberIdentifier;
  body.meter_details = t.subscriberDetails ?? '';
  if (confirmed(t)) {
    body.token = t.token;
    body.electricity_units = `${t.quote.units}kWh`;
    const { provider_subscriber_details, ...rest } = t.quote.metadata;
    body.metadata = {
      ...rest,
      provider_meter_details: provider_subscriber_details ?? '',
      provider_transaction_identifier: t.providerTransactionId,
    };
  } else {
    body.metadata = {};
  }
  return body;
}

/** Account (2.6). */
export function accountView(a: Account): object {
  return {
    id: a.id,
    name: a.name,
    currency: a.currency,
    category: a.category,
    type: 'WALLET',
    status: 'ACTIVE',
    rank: a.rank,
    balance: formatMoney(a.balanceMinor, a.currency),
  };
}

/** One row of `GET /sandbox/transactions`. */
export function ledgerRow(t: Transaction): object {
  return {
    id: t.id,
    reference: t.reference,
    status: t.status,
    interface: t.origin,
    source_channel: t.sourceChannel,
    external_reference: t.externalReference,
    subscriber_identifier: t.subscriberIdentifier,
    product_type: t.productType,
    provider_code: t.providerCode,
    account_id: t.accountId,
    amount: formatMoney(t.amountMinor),
    net: formatMoney(t.netMinor),
    charge: formatMoney(t.chargeMinor),
    total: formatMoney(t.totalMinor),
    debited_minor: t.debitedMinor,
    token: t.token,
    failure: t.failure ? { code: t.failure.code, message: t.failure.message } : null,
    created_at: t.createdAt.toISOString(),
    completed_at: t.completedAt ? t.completedAt.toISOString() : null,
  };
}
