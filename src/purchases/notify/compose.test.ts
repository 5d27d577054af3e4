import { loadLocales } from '../../i18n';
import { smsParts } from '../../i18n/gsm';
import { composeOutcomeSms } from './compose';
import type { CareContact } from '../care/settings';
import type { PurchaseRecord, PurchaseResult } from '../types';
import { intent, record } from '../../../test/purchases/fixtures';

// Strict under jest: a missing key or a wrong param throws instead of rendering a gap.
const locales = loadLocales();

const THREE_TOKENS =
  'KeyChange Token1: 1111 2222 3333 4444 5555 | KeyChange Token2: 2222 3333 4444 5555 6666 | Credit Token: 3333 4444 5555 6666 7777';

function result(overrides: Partial<PurchaseResult> = {}): PurchaseResult {
  return {
    transactionId: 77,
    reference: 'TX-REF-77',
    rawToken: '1234 5678 9012 3456 7890',
    units: '25.3kWh',
    total: { currency: 'BWP', minor: 12345 },
    providerTransactionId: 'PTX-1',
    ...overrides,
  };
}

function settled(
  state: PurchaseRecord['state'],
  language: string,
  extra: Partial<PurchaseRecord> = {},
): PurchaseRecord {
  return record({
    state,
    externalReference: 'GW-EXT-1',
    intent: intent({ language, subscriberIdentifier: '04123456789' }),
    ...extra,
  });
}

const one = (r: PurchaseRecord): string => {
  const messages = composeOutcomeSms(r, locales);
  expect(messages).toHaveLength(1);
  expect(messages[0].to).toBe('26771234567');
  return messages[0].message;
};

describe('composeOutcomeSms: every state × locale', () => {
  const cases: [string, string, PurchaseRecord, string][] = [
    [
      'success, single token',
      'en-BW',
      settled('succeeded', 'en-BW', { result: result() }),
      'Electricity 04123456789\nToken: 1234 5678 9012 3456 7890\nUnits: 25.3kWh\nAmount: BWP 100.00\nTotal: BWP 123.45\nRef: TX-REF-77',
    ],
    [
      'success, single token',
      'tn-BW',
      settled('succeeded', 'tn-BW', { result: result() }),
      'Motlakase 04123456789\nTokene: 1234 5678 9012 3456 7890\nDiyuniti: 25.3kWh\nMadi: BWP 100.00\nPalogotlhe: BWP 123.45\nRef: TX-REF-77',
    ],
    [
      'success, 3-token auto key change',
      'en-BW',
      settled('succeeded', 'en-BW', { result: result({ rawToken: THREE_TOKENS }) }),
      'Electricity 04123456789\n' +
        'KeyChange Token1: 1111 2222 3333 4444 5555\n' +
        'KeyChange Token2: 2222 3333 4444 5555 6666\n' +
        'Credit Token: 3333 4444 5555 6666 7777\n' +
        'Units: 25.3kWh\nAmount: BWP 100.00\nTotal: BWP 123.45\nRef: TX-REF-77\n' +
        'Enter any unused credit token first, then the key change tokens in order, then the new credit token.',
    ],
    [
      'success, 3-token auto key change',
      'tn-BW',
      settled('succeeded', 'tn-BW', { result: result({ rawToken: THREE_TOKENS }) }),
      'Motlakase 04123456789\n' +
        'KeyChange Token1: 1111 2222 3333 4444 5555\n' +
        'KeyChange Token2: 2222 3333 4444 5555 6666\n' +
        'Credit Token: 3333 4444 5555 6666 7777\n' +
        'Diyuniti: 25.3kWh\nMadi: BWP 100.00\nPalogotlhe: BWP 123.45\nRef: TX-REF-77\n' +
        'Tsenya pele credit e sa dirisiwang, morago key change ka tatelano, morago credit e ntsha.',
    ],
    [
      'success, key change returned after credit (shown first)',
      'en-BW',
      settled('succeeded', 'en-BW', {
        result: result({ rawToken: 'Credit Token: 3333 | KeyChange Token1: 1111', units: null }),
      }),
      'Electricity 04123456789\nKeyChange Token1: 1111\nCredit Token: 3333\n' +
        'Amount: BWP 100.00\nTotal: BWP 123.45\nRef: TX-REF-77\nEnter any unused credit token first, then the key change tokens in order, then the new credit token.',
    ],
    [
      'success, water, no units',
      'tn-BW',
      settled('succeeded', 'tn-BW', {
        intent: intent({ language: 'tn-BW', productType: 'WATER', subscriberIdentifier: 'W-99' }),
        result: result({ units: null }),
      }),
      'Metsi W-99\nTokene: 1234 5678 9012 3456 7890\nMadi: BWP 100.00\nPalogotlhe: BWP 123.45\nRef: TX-REF-77',
    ],
    [
      'success, no token returned (units only)',
      'en-BW',
      settled('succeeded', 'en-BW', { result: result({ rawToken: null }) }),
      'Electricity 04123456789\nPurchase successful.\nUnits: 25.3kWh\nAmount: BWP 100.00\nTotal: BWP 123.45\nRef: TX-REF-77',
    ],
    [
      'success, no token and no units',
      'tn-BW',
      settled('succeeded', 'tn-BW', { result: result({ rawToken: '', units: null }) }),
      'Motlakase 04123456789\nTheko e atlegile.\nMadi: BWP 100.00\nPalogotlhe: BWP 123.45\nRef: TX-REF-77',
    ],
    [
      'airtime success (no tokens)',
      'en-BW',
      settled('succeeded', 'en-BW', {
        intent: intent({
          productType: 'AIRTIME',
          subscriberIdentifier: '26772000001',
          amount: { currency: 'BWP', minor: 2000 },
        }),
        result: result({ rawToken: null, units: null, total: { currency: 'BWP', minor: 2000 } }),
      }),
      'Airtime of BWP 20.00 sent to 26772000001. Total: BWP 20.00. Ref: TX-REF-77',
    ],
    [
      'airtime success (no tokens)',
      'tn-BW',
      settled('succeeded', 'tn-BW', {
        intent: intent({
          language: 'tn-BW',
          productType: 'AIRTIME',
          subscriberIdentifier: '26772000001',
          amount: { currency: 'BWP', minor: 2000 },
        }),
        result: result({ rawToken: null, units: null, total: { currency: 'BWP', minor: 2000 } }),
      }),
      'Nako ya mogala ya BWP 20.00 e rometswe kwa 26772000001. Palogotlhe: BWP 20.00. Ref: TX-REF-77',
    ],
    [
      'failed, not charged, known reason',
      'en-BW',
      settled('failed', 'en-BW', {
        failure: { code: 'meter_not_found', message: 'Meter not found', charged: false },
      }),
      'Your Electricity purchase (04123456789) of BWP 100.00 failed. You were not charged. Ref: GW-EXT-1\n' +
        'Meter not found. Check the number.',
    ],
    [
      'failed, not charged, unknown reason code',
      'tn-BW',
      settled('failed', 'tn-BW', {
        failure: { code: 'something_new', message: 'Odd', charged: false },
      }),
      'Theko ya gago ya Motlakase (04123456789) ya BWP 100.00 ga e a atlega. Ga o a duelisiwa. Ref: GW-EXT-1',
    ],
    [
      'failed, charge unknown',
      'en-BW',
      settled('failed', 'en-BW', {
        failure: { code: 'provider_error', message: 'Provider error', charged: 'unknown' },
      }),
      'Your Electricity purchase (04123456789) of BWP 100.00 failed. If money was taken from you, contact us with Ref: GW-EXT-1\n' +
        'The provider refused this purchase.',
    ],
    [
      'failed, charge unknown',
      'tn-BW',
      settled('failed', 'tn-BW', {
        failure: { code: 'x', message: 'x', charged: 'unknown' },
      }),
      'Theko ya gago ya Motlakase (04123456789) ya BWP 100.00 ga e a atlega. Fa madi a gago a ntshitswe, ikgolaganye le rona ka Ref: GW-EXT-1',
    ],
    [
      'failed, no charge found (inferred from the service not finding it)',
      'en-BW',
      settled('failed', 'en-BW', {
        failure: { code: 'transaction_not_found', message: 'x', charged: false },
      }),
      'Your Electricity purchase (04123456789) of BWP 100.00 failed. No charge for it was found; if money was taken from you, contact us with Ref: GW-EXT-1',
    ],
    [
      'failed, no charge found',
      'tn-BW',
      settled('failed', 'tn-BW', {
        failure: { code: 'transaction_not_found', message: 'x', charged: false },
      }),
      'Theko ya gago ya Motlakase (04123456789) ya BWP 100.00 ga e a atlega. Ga go a bonwa tefo epe ya yone; fa madi a gago a ntshitswe, ikgolaganye le rona ka Ref: GW-EXT-1',
    ],
    [
      'needs attention',
      'en-BW',
      settled('needs_attention', 'en-BW'),
      'Your Electricity purchase (04123456789) of BWP 100.00 needs a manual check. Do not pay again: our team will contact you. Ref: GW-EXT-1',
    ],
    [
      'needs attention',
      'tn-BW',
      settled('needs_attention', 'tn-BW'),
      'Theko ya gago ya Motlakase (04123456789) ya BWP 100.00 e tlhoka go tlhatlhobiwa ke motho. O se ka wa duela gape: re tla ikgolaganya le wena. Ref: GW-EXT-1',
    ],
    [
      'unknown language falls back to English',
      'fr-FR',
      settled('needs_attention', 'fr-FR'),
      'Your Electricity purchase (04123456789) of BWP 100.00 needs a manual check. Do not pay again: our team will contact you. Ref: GW-EXT-1',
    ],
  ];

  test.each(cases)('%s (%s)', (_label, _lang, purchase, expected) => {
    expect(one(purchase)).toBe(expected);
  });

  test.each(cases)('%s (%s) is GSM-7', (_label, _lang, purchase) => {
    expect(smsParts(one(purchase)).encoding).toBe('GSM-7');
  });
});

describe('composeOutcomeSms: rules', () => {
  it('ends every failure SMS with the care line (CARE_PHONE, CARE_HOURS), and no success SMS', () => {
    const care: CareContact = { phone: '3900000', hours: 'Mon-Fri 08:00-17:00' };
    const text = (r: PurchaseRecord, c = care) => composeOutcomeSms(r, locales, null, c)[0].message;
    expect(text(settled('failed', 'en-BW'))).toMatch(/\nHelp: 3900000 \(Mon-Fri 08:00-17:00\)$/);
    expect(text(settled('needs_attention', 'tn-BW'))).toMatch(/\nThuso: 3900000 \(Mon-Fri 08:00-17:00\)$/);
    expect(text(settled('failed', 'en-BW'), { phone: '3900000', hours: null })).toMatch(/\nHelp: 3900000$/);
    expect(text(settled('succeeded', 'en-BW', { result: result() }))).not.toContain('Help');
    // Unset: no care line.
    expect(one(settled('failed', 'en-BW'))).not.toContain('Help');
  });

  it('never claims "not charged" unless failure.charged is false', () => {
    for (const lang of ['en-BW', 'tn-BW']) {
      const unknown = one(
        settled('failed', lang, { failure: { code: 'x', message: 'x', charged: 'unknown' } }),
      );
      const noFailure = one(settled('failed', lang, { failure: null }));
      for (const text of [unknown, noFailure]) {
        expect(text).not.toContain('not charged');
        expect(text).not.toContain('Ga o a duelisiwa');
      }
    }
  });

  it('keeps every token whole even when the message needs several parts', () => {
    const message = one(settled('succeeded', 'tn-BW', { result: result({ rawToken: THREE_TOKENS }) }));
    for (const token of [
      '1111 2222 3333 4444 5555',
      '2222 3333 4444 5555 6666',
      '3333 4444 5555 6666 7777',
    ]) {
      expect(message).toContain(token);
    }
    const { parts, encoding } = smsParts(message);
    expect(encoding).toBe('GSM-7');
    expect(parts).toBeGreaterThan(1);
  });

  it.each([
    [
      'en-BW',
      'Electricity 04123456789 for 267****1111: the token was sent to that number.\nTotal: BWP 123.45\nRef: TX-REF-77',
    ],
    [
      'tn-BW',
      'Motlakase 04123456789 ya 267****1111: tokene e rometswe kwa nomorong eo.\nPalogotlhe: BWP 123.45\nRef: TX-REF-77',
    ],
  ])('a gift (%s): the token to the beneficiary, a receipt without it to the payer', (language, receipt) => {
    const purchase = settled('succeeded', language, {
      intent: intent({
        language,
        subscriberIdentifier: '04123456789',
        beneficiaryMsisdn: '26771111111',
        requesterMsisdn: '26772222222',
      }),
      result: result(),
    });
    const messages = composeOutcomeSms(purchase, locales);
    expect(messages.map((m) => m.to)).toEqual(['26771111111', '26772222222']);
    expect(messages[0].message).toContain('1234 5678 9012 3456 7890');
    expect(messages[1].message).toBe(receipt);
    expect(messages[1].message).not.toContain('1234 5678');
  });

  it('a failed gift says the same to the beneficiary and the payer', () => {
    const purchase = settled('failed', 'en-BW', {
      intent: intent({ beneficiaryMsisdn: '26771111111', requesterMsisdn: '26772222222' }),
      failure: { code: 'meter_blocked', message: 'blocked', charged: false },
    });
    const messages = composeOutcomeSms(purchase, locales);
    expect(messages.map((m) => m.to)).toEqual(['26771111111', '26772222222']);
    expect(messages[0].message).toBe(messages[1].message);
  });

  it('transliterates characters outside GSM-7 (a provider description with curly quotes and a dash)', () => {
    const purchase = settled('succeeded', 'en-BW', {
      result: result({ rawToken: 'KeyChange “A” – 1: 1111 | Credit Token: 2222' }),
    });
    const message = one(purchase);
    expect(message).toContain('KeyChange "A" - 1: 1111');
    expect(smsParts(message).encoding).toBe('GSM-7');
  });

  it.each(['created', 'confirming', 'unknown', 'reconciling'] as const)(
    'has nothing to say while %s',
    (state) => {
      expect(composeOutcomeSms(settled(state, 'en-BW'), locales)).toEqual([]);
    },
  );
});
