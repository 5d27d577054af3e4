import { confirmRequest, purchaseRequest, retryRequest } from './request';
import { newPurchaseRecord, type PurchaseIntent } from './types';

const INTENT: PurchaseIntent = {
  productType: 'ELECTRICITY',
  providerCode: 'BPC',
  subscriberIdentifier: '04123456789',
  amount: { currency: 'BWP', minor: 10_000 },
  debitedAccountId: 7,
  beneficiaryMsisdn: '26772000001',
  requesterMsisdn: '26772000002',
  language: 'tn-BW',
  channel: 'USSD',
  subscriberDetails: 'MMOLOKI MOSARWA',
};

const recordOf = (intent: PurchaseIntent) =>
  newPurchaseRecord({
    id: 'p-1',
    idempotencyKey: 'k-1',
    externalReference: 'GW-20261122-ABCDEFGHIJKLMNOP',
    intent,
    createdAt: '2026-11-22T10:00:00.000Z',
  });

describe('the purchase request, built once from the intent', () => {
  it('the quote sends the intent, without a reference', () => {
    expect(purchaseRequest(INTENT)).toEqual({
      sourceChannel: 'USSD',
      language: 'tn-BW',
      productType: 'ELECTRICITY',
      providerCode: 'BPC',
      debitedAccountId: 7,
      beneficiaryPhoneNumber: '26772000001',
      subscriberIdentifier: '04123456789',
      amount: { currency: 'BWP', minor: 10_000 },
    });
  });

  it('the confirm sends the same fields plus the record reference', () => {
    expect(confirmRequest(recordOf(INTENT))).toEqual({
      ...purchaseRequest(INTENT),
      externalReference: 'GW-20261122-ABCDEFGHIJKLMNOP',
    });
  });

  it.each([
    ['USSD', 'USSD'],
    ['SMS', 'SMS_MO'],
  ] as const)('a %s intent is confirmed and retried as source channel %s', (channel, source) => {
    const record = recordOf({ ...INTENT, channel });
    expect(confirmRequest(record).sourceChannel).toBe(source);
    expect(retryRequest(record).sourceChannel).toBe(source);
  });
});
