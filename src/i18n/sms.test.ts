import { loadLocales } from './catalogue';
import { successSms } from './sms';

const locales = loadLocales(undefined, { strict: true });
const base = {
  product: 'Electricity',
  identifier: '04123456789',
  amount: 'BWP 100.00',
  total: 'BWP 101.50',
  reference: 'GW-1',
};
const keyChange = [
  { description: 'KeyChange Token1', token: '1111 2222 3333 4444 5555' },
  { description: 'KeyChange Token2', token: '6666 7777 8888 9999 0000' },
  { description: 'Credit Token', token: '1234 5678 9012 3456 7890' },
];

describe('successSms', () => {
  it('single token with units', () => {
    const sms = successSms(locales, 'en', {
      ...base,
      tokens: [{ token: '1234 5678 9012 3456 7890' }],
      units: '25.3 kWh',
    });
    expect(sms).toEqual({
      text: 'Electricity 04123456789\nToken: 1234 5678 9012 3456 7890\nUnits: 25.3 kWh\nAmount: BWP 100.00\nTotal: BWP 101.50\nRef: GW-1',
      encoding: 'GSM-7',
      length: 118,
      parts: 1,
    });
  });

  it('key-change tokens first with descriptions, then the instruction (Setswana)', () => {
    const shuffled = [keyChange[2], keyChange[0], keyChange[1]];
    const sms = successSms(locales, 'tn', {
      ...base,
      product: 'Motlakase',
      tokens: shuffled,
      units: '80 kWh',
    });
    expect(sms.text).toBe(
      [
        'Motlakase 04123456789',
        'KeyChange Token1: 1111 2222 3333 4444 5555',
        'KeyChange Token2: 6666 7777 8888 9999 0000',
        'Credit Token: 1234 5678 9012 3456 7890',
        'Diyuniti: 80 kWh',
        'Madi: BWP 100.00',
        'Palogotlhe: BWP 101.50',
        'Ref: GW-1',
        locales.t('tn', 'sms.keyChangeNote'),
      ].join('\n'),
    );
    expect(sms).toMatchObject({ encoding: 'GSM-7', parts: 2 });
  });

  test.each(['en', 'tn'])(
    '%s: worst case (3 tokens, long values, note) stays within 3 GSM-7 parts',
    (lang) => {
      const sms = successSms(locales, lang, {
        product: locales.t(lang, 'product.ELECTRICITY'),
        identifier: '0412345678901',
        amount: 'BWP 100000.00',
        total: 'BWP 100001.50',
        reference: 'GW-01JH2K3M4N5P6Q7R8S9T0V',
        tokens: keyChange,
        units: '12345.6 kWh',
      });
      expect(sms.encoding).toBe('GSM-7');
      expect(sms.parts).toBeLessThanOrEqual(3);
    },
  );

  test.each([
    ['no units', [{ token: '1' }], undefined, 'Token: 1\nAmount'],
    ['blank units', [{ token: '1' }], ' ', 'Token: 1\nAmount'],
    ['no token, units', [], '10 L', 'Purchase successful.\nUnits: 10 L\nAmount'],
    ['no token, no units', [], undefined, 'Purchase successful.\nAmount: BWP 100.00\nTotal: BWP 101.50'],
  ])('variant: %s', (_label, tokens, units, fragment) => {
    expect(successSms(locales, 'en', { ...base, tokens, units }).text).toContain(fragment);
  });

  test.each(['Key-Change Token 1', 'Key Change Token 1', 'KCT1', 'key change token'])(
    'never puts the credit token before a %j token, and adds the instruction',
    (description) => {
      const tokens = [
        { description: 'Credit Token', token: '1234' },
        { description, token: '5678' },
      ];
      const text = successSms(locales, 'en', { ...base, tokens }).text;
      expect(text.indexOf(`${description}: 5678`)).toBeLessThan(text.indexOf('Credit Token: 1234'));
      expect(text).toContain(locales.t('en', 'sms.keyChangeNote'));
    },
  );
});
