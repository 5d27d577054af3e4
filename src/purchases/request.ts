import type { PurchaseRequest, RetryRequest, SourceChannel } from '../vas/port';
import type { PurchaseChannel, PurchaseIntent, PurchaseRecord } from './types';

/** The service's name for the channel a purchase came in on. */
const SOURCE_CHANNEL: Record<PurchaseChannel, SourceChannel> = { USSD: 'USSD', SMS: 'SMS_MO' };

/**
 * The one place an intent becomes the service's request: the dialogue's quote (validate, no
 * reference yet) and the lifecycle's confirm (with the record's reference) send the same fields.
 */
export function purchaseRequest(intent: PurchaseIntent, externalReference?: string): PurchaseRequest {
  return {
    sourceChannel: SOURCE_CHANNEL[intent.channel],
    language: intent.language,
    productType: intent.productType,
    providerCode: intent.providerCode,
    debitedAccountId: intent.debitedAccountId,
    beneficiaryPhoneNumber: intent.beneficiaryMsisdn,
    subscriberIdentifier: intent.subscriberIdentifier,
    amount: { ...intent.amount },
    ...(externalReference !== undefined ? { externalReference } : {}),
  };
}

/** The confirm request of a stored purchase: its intent plus its external reference. */
export function confirmRequest(record: PurchaseRecord): PurchaseRequest {
  return purchaseRequest(record.intent, record.externalReference);
}

/** The reconcile (`retry`) request of a stored purchase: found by identifier and reference. */
export function retryRequest(record: PurchaseRecord): RetryRequest {
  return {
    sourceChannel: SOURCE_CHANNEL[record.intent.channel],
    language: record.intent.language,
    productType: record.intent.productType,
    subscriberIdentifier: record.intent.subscriberIdentifier,
    externalReference: record.externalReference,
  };
}
