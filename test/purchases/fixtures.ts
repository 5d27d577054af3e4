import { newPurchaseRecord, type PurchaseIntent, type PurchaseRecord } from '../../src/purchases/types';

/** A confirmable electricity intent for the sandbox's active meter (scenario 1). */
export function intent(overrides: Partial<PurchaseIntent> = {}): PurchaseIntent {
  return {
    productType: 'ELECTRICITY',
    providerCode: 'BPC',
    subscriberIdentifier: '01234567890',
    amount: { currency: 'BWP', minor: 10000 },
    debitedAccountId: 1001,
    beneficiaryMsisdn: '26771234567',
    requesterMsisdn: '26771234567',
    language: 'en-BW',
    channel: 'USSD',
    subscriberDetails: null,
    ...overrides,
  };
}

let counter = 0;

/** A fresh `created` record; ids and references unique per call. */
export function record(overrides: Partial<PurchaseRecord> = {}): PurchaseRecord {
  counter += 1;
  const createdAt = overrides.createdAt ?? new Date(Date.UTC(2025, 0, 1, 0, 0, counter)).toISOString();
  return {
    ...newPurchaseRecord({
      id: `p-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}`,
      idempotencyKey: `key-${counter}-${Math.random().toString(36).slice(2, 8)}`,
      externalReference: `GW-TEST-${counter}-${Math.random().toString(36).slice(2, 8).toUpperCase()}`,
      intent: intent(),
      createdAt,
    }),
    ...overrides,
  };
}
