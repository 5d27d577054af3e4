import { transliterate, type Locales } from '../../i18n';
import { formatMoney } from '../../vas/money';
import { successSms } from '../../i18n/sms';
import { parseTokens, tokensForDisplay } from '../../vas/tokens';
import { maskMsisdn } from '../../observability/logger';
import type { Money } from '../../vas/money';
import { SETTLED_STATES } from '../store/store';
import type { PurchaseRecord } from '../types';
import type { CareContact } from '../care/settings';

/** One SMS of a settled purchase before it is queued (an outgoing message of this kind). */
export interface ComposedSms {
  kind: 'purchase-outcome' | 'agent-receipt';
  /** E.164 digits, no `+`. */
  to: string;
  message: string;
}

type Params = {
  product: string;
  identifier: string;
  /** What was bought, before charges (the quote's "Amount"). */
  amount: string;
  reference: string;
};

function successMessage(record: PurchaseRecord, locales: Locales, lang: string, base: Params): string {
  const result = record.result;
  // "Total" is what was paid (charges included), as on the quote; the amount before charges
  // when the service did not say.
  const total = formatMoney(result?.total ?? record.intent.amount);
  if (record.intent.productType === 'AIRTIME') {
    return locales.t(lang, 'sms.airtimeSuccess', {
      amount: base.amount,
      total,
      identifier: base.identifier,
      reference: base.reference,
    });
  }
  // Token order and the key-change rule live in one place (vas/tokens): key-change first, then as returned.
  const tokens = parseTokens(result?.rawToken ?? null).map((token) => ({
    token: token.value,
    ...(token.description !== null && { description: token.description }),
  }));
  return successSms(locales, lang, { ...base, total, tokens, units: result?.units ?? undefined }).text;
}

/** "What happened": the localised reason for a known error code, when the catalogue has one. */
function failureReason(record: PurchaseRecord, locales: Locales, lang: string): string | null {
  const code = record.failure?.code;
  if (!code) return null;
  const key = `reason.${code}`;
  return locales.template(lang, key) === undefined ? null : locales.t(lang, key);
}

/** The buyer's mobile money for a purchase: what was asked (or paid) and the provider's receipt. */
export interface PaidWith {
  amount: Money;
  /** The money was taken. */
  collected: boolean;
  receipt: string | null;
}

/** A purchase the buyer was asked to pay for that failed: not paid (why), or paid and to be given back. */
function paymentFailureMessage(
  record: PurchaseRecord,
  locales: Locales,
  lang: string,
  base: Params,
  asked: Money | undefined,
): string {
  const amount = asked ? formatMoney(asked) : base.amount;
  const code = record.failure?.code;
  // Not paid, or never asked (payment_not_started, reason `not_started`): nothing was bought.
  if (code !== 'payment_failed' && code !== 'payment_not_started')
    return locales.t(lang, 'sms.payment.vendFailed', { ...base, amount });
  const key = `payment.reason.${record.failure!.message}`;
  const reason = locales.t(lang, locales.template(lang, key) === undefined ? 'payment.reason.other' : key);
  return locales.t(lang, 'sms.payment.notPaid', { amount, reason, reference: base.reference });
}

function failureMessage(
  record: PurchaseRecord,
  locales: Locales,
  lang: string,
  base: Params,
  paid: PaidWith | null | undefined,
): string {
  if (record.intent.paymentRequired) return paymentFailureMessage(record, locales, lang, base, paid?.amount);
  // "You were not charged" only when the service said so; silence (`transaction_not_found`
  // after the in-flight window) is worded as what is known: no charge was found.
  let key =
    record.failure?.charged !== false
      ? 'sms.failed.chargeUnknown'
      : record.failure.code === 'transaction_not_found'
        ? 'sms.failed.noChargeFound'
        : 'sms.failed.notCharged';
  // Older catalogues lack `chargeUnknown`; `unknownCharge` also never claims "not charged".
  if (locales.template(lang, key) === undefined) key = 'sms.failed.unknownCharge';
  const reason = failureReason(record, locales, lang);
  const message = locales.t(lang, key, base);
  return reason === null ? message : `${message}\n${reason}`;
}

/**
 * The outcome SMS of a settled purchase, in the purchase's language (`tn-BW` → `tn`, English
 * when there is no catalogue), transliterated to GSM-7 where a close equivalent exists: one
 * to the beneficiary and, when a field agent bought it, the same one to the agent. Nothing is
 * ever cut to fit: a long message (three tokens) goes out in several parts. A purchase that
 * has not settled yet has no outcome SMS (empty list).
 */
export function composeOutcomeSms(
  record: PurchaseRecord,
  locales: Locales,
  paid?: PaidWith | null,
  care?: CareContact | null,
): ComposedSms[] {
  if (!SETTLED_STATES.includes(record.state)) return [];
  const lang = locales.resolve(record.intent.language);
  const base: Params = {
    product: locales.t(lang, `product.${record.intent.productType}`),
    identifier: record.intent.subscriberIdentifier,
    // "Amount" means one thing everywhere: what was bought, before charges.
    amount: formatMoney(record.intent.amount),
    reference: record.result?.reference || record.externalReference,
  };
  let message: string;
  switch (record.state) {
    case 'succeeded':
      message = successMessage(record, locales, lang, base);
      // The receipt says what the buyer paid and the provider's reference for it.
      if (paid?.collected) message += `\n${paidLine(paid, locales, lang)}`;
      break;
    case 'failed':
      message = withCareLine(failureMessage(record, locales, lang, base, paid), care, locales, lang);
      break;
    default:
      message = withCareLine(locales.t(lang, 'sms.needsAttention', base), care, locales, lang);
  }
  const text = transliterate(message);
  const { intent } = record;
  const beneficiary: ComposedSms = { kind: 'purchase-outcome', to: intent.beneficiaryMsisdn, message: text };
  // A field agent gets a receipt of its own (composeAgentReceipt), not the customer's SMS.
  if (intent.agent || !intent.requesterMsisdn || intent.requesterMsisdn === intent.beneficiaryMsisdn)
    return [beneficiary];
  // A gift of a token: the token is the beneficiary's; the payer gets a receipt with the same
  // reference. Anything else (airtime, a failure) says the same to both.
  const receipt =
    record.state === 'succeeded' && intent.productType !== 'AIRTIME'
      ? transliterate(giftReceipt(record, locales, lang, base, paid))
      : text;
  return [beneficiary, { kind: 'purchase-outcome', to: intent.requesterMsisdn, message: receipt }];
}

/** The payer's receipt of a gift: what, for whom (masked), the total and the reference; no token. */
function giftReceipt(
  record: PurchaseRecord,
  locales: Locales,
  lang: string,
  base: Params,
  paid: PaidWith | null | undefined,
): string {
  const message = locales.t(lang, 'sms.giftReceipt', {
    product: base.product,
    identifier: base.identifier,
    beneficiary: maskMsisdn(record.intent.beneficiaryMsisdn),
    total: formatMoney(record.result?.total ?? record.intent.amount),
    reference: base.reference,
  });
  return paid?.collected ? `${message}\n${paidLine(paid, locales, lang)}` : message;
}

/**
 * The receipt a field agent gets for a settled sale: reference, product, identifier, the
 * customer's number (masked), total, the tokens in display order (so the agent can read them
 * out when the customer's SMS is late) and the float after the sale (`float`, null for an
 * agent funded by an account), with the commission the sale earned (`commission`, null: none).
 * A failed sale says the float was given back.
 */
export function composeAgentReceipt(
  record: PurchaseRecord,
  locales: Locales,
  float: Money | null,
  commission: Money | null = null,
): ComposedSms | null {
  const agent = record.intent.agent;
  if (!agent || !SETTLED_STATES.includes(record.state)) return null;
  const lang = locales.resolve(record.intent.language);
  const params = {
    reference: record.result?.reference || record.externalReference,
    product: locales.t(lang, `product.${record.intent.productType}`),
    identifier: record.intent.subscriberIdentifier,
    customer: maskMsisdn(record.intent.beneficiaryMsisdn),
    total: formatMoney(record.result?.total ?? record.intent.amount),
  };
  let message: string;
  if (record.state === 'succeeded') {
    const tokens = tokensForDisplay(parseTokens(record.result?.rawToken ?? null))
      .map((t) => (t.description ? `${t.description}: ${t.value}` : t.value))
      .join('\n');
    message = float
      ? locales.t(lang, 'sms.agent.receipt', { ...params, tokens, float: formatMoney(float) })
      : locales.t(lang, 'sms.agent.receiptNoFloat', { ...params, tokens });
    if (commission)
      message += `\n${locales.t(lang, 'sms.agent.receiptCommission', { commission: formatMoney(commission) })}`;
  } else if (record.state === 'failed') message = locales.t(lang, 'sms.agent.receiptFailed', params);
  else
    message = locales.t(lang, 'sms.needsAttention', {
      product: params.product,
      identifier: params.identifier,
      amount: params.total,
      reference: params.reference,
    });
  return { kind: 'agent-receipt', to: agent.msisdn, message: transliterate(message) };
}

function paidLine(paid: PaidWith, locales: Locales, lang: string): string {
  const amount = formatMoney(paid.amount);
  return paid.receipt
    ? locales.t(lang, 'sms.payment.paid', { paid: amount, receipt: paid.receipt })
    : locales.t(lang, 'sms.payment.paidNoReceipt', { paid: amount });
}

/**
 * The SMS to the payer once the money is back: the sale failed after the payment
 * (`vend_failed`), or the payment came after the purchase had ended (`late_payment`). A failure
 * SMS like the others: it ends with the care line.
 */
export function composeRefundSms(
  record: PurchaseRecord,
  refund: { amount: Money; reason: 'vend_failed' | 'late_payment' },
  locales: Locales,
  care?: CareContact | null,
): ComposedSms {
  const lang = locales.resolve(record.intent.language);
  const message = locales.t(
    lang,
    refund.reason === 'late_payment' ? 'sms.payment.lateRefunded' : 'sms.payment.refunded',
    {
      product: locales.t(lang, `product.${record.intent.productType}`),
      identifier: record.intent.subscriberIdentifier,
      paid: formatMoney(refund.amount),
      reference: record.result?.reference || record.externalReference,
    },
  );
  return {
    kind: 'purchase-outcome',
    to: record.intent.requesterMsisdn,
    message: transliterate(withCareLine(message, care, locales, lang)),
  };
}

/** Every failure SMS ends with customer care's number (and hours), when `CARE_PHONE` is set. */
export function withCareLine(
  message: string,
  care: CareContact | null | undefined,
  locales: Locales,
  lang: string,
): string {
  if (!care) return message;
  const line = care.hours
    ? locales.t(lang, 'sms.careLineHours', { phone: care.phone, hours: care.hours })
    : locales.t(lang, 'sms.careLine', { phone: care.phone });
  return `${message}\n${line}`;
}
