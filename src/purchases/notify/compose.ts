import { transliterate, type Locales } from '../../i18n';
import { formatMoney } from '../../vas/money';
import { successSms } from '../../i18n/sms';
import { parseTokens, tokensForDisplay } from '../../vas/tokens';
import { maskMsisdn } from '../../observability/logger';
import type { Money } from '../../vas/money';
import { SETTLED_STATES } from '../store/store';
import type { PurchaseRecord } from '../types';

/** One outcome SMS before it is queued. */
export interface ComposedSms {
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

function failureMessage(record: PurchaseRecord, locales: Locales, lang: string, base: Params): string {
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
export function composeOutcomeSms(record: PurchaseRecord, locales: Locales): ComposedSms[] {
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
      break;
    case 'failed':
      message = failureMessage(record, locales, lang, base);
      break;
    default:
      message = locales.t(lang, 'sms.needsAttention', base);
  }
  const text = transliterate(message);
  const recipients = [record.intent.beneficiaryMsisdn];
  // A field agent gets a receipt of its own (composeAgentReceipt), not the customer's SMS.
  if (
    !record.intent.agent &&
    record.intent.requesterMsisdn &&
    record.intent.requesterMsisdn !== record.intent.beneficiaryMsisdn
  ) {
    recipients.push(record.intent.requesterMsisdn);
  }
  return recipients.map((to) => ({ to, message: text }));
}

/**
 * The receipt a field agent gets for a settled sale: reference, product, identifier, the
 * customer's number (masked), total, the tokens in display order (so the agent can read them
 * out when the customer's SMS is late) and the float after the sale (`float`, null for an
 * agent funded by an account). A failed sale says the float was given back.
 */
export function composeAgentReceipt(
  record: PurchaseRecord,
  locales: Locales,
  float: Money | null,
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
  } else if (record.state === 'failed') message = locales.t(lang, 'sms.agent.receiptFailed', params);
  else
    message = locales.t(lang, 'sms.needsAttention', {
      product: params.product,
      identifier: params.identifier,
      amount: params.total,
      reference: params.reference,
    });
  return { to: agent.msisdn, message: transliterate(message) };
}
