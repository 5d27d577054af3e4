import { normaliseMsisdn, regionFromLanguageTag } from './msisdn';

describe('normaliseMsisdn', () => {
  test.each([
    // label, input, region, expected E.164 digits
    ['BW local', '71234567', 'BW', '26771234567'],
    ['BW local with spaces', '71 234 567', 'BW', '26771234567'],
    ['BW local with dashes', '71-234-567', 'BW', '26771234567'],
    ['BW + international', '+26771234567', 'BW', '26771234567'],
    ['BW + international spaced', '+267 71 234 567', 'BW', '26771234567'],
    ['BW 00 international', '0026771234567', 'BW', '26771234567'],
    ['BW bare E.164 digits', '26771234567', 'BW', '26771234567'],
    ['BW other mobile range', '75123456', 'BW', '26775123456'],
    ['KE national with trunk 0', '0712345678', 'KE', '254712345678'],
    ['KE + international', '+254712345678', 'KE', '254712345678'],
    ['KE 00 international (KE prefix is 000)', '00254712345678', 'KE', '254712345678'],
    ['KE (parenthesised)', '(0712) 345-678', 'KE', '254712345678'],
    ['ZA national', '082 123 4567', 'ZA', '27821234567'],
    ['foreign number in + form from BW', '+27821234567', 'BW', '27821234567'],
  ])('%s: %s in %s → %s', (_label, input, region, e164) => {
    expect(normaliseMsisdn(input, region as 'BW')).toEqual(expect.objectContaining({ ok: true, e164 }));
  });

  test.each([
    ['empty', '', 'BW', 'empty'],
    ['only separators', ' - ', 'BW', 'empty'],
    ['BW with spurious trunk 0 (BW has none)', '071234567', 'BW', 'invalid'],
    ['BW too short', '7123456', 'BW', 'invalid'],
    ['BW too long', '712345678', 'BW', 'invalid'],
    ['BW fixed line', '3912345', 'BW', 'invalid'],
    ['letters', '7123456a', 'BW', 'invalid'],
    ['vanity letters', '+1-800-FLOWERS', 'BW', 'invalid'],
    ['USSD characters', '*123#', 'BW', 'invalid'],
    ['plus in the middle', '267+71234567', 'BW', 'invalid'],
    ['KE too short', '071234567', 'KE', 'invalid'],
    ['KE landline', '0202123456', 'KE', 'invalid'],
    ['only plus', '+', 'BW', 'invalid'],
  ])('%s: %j in %s → %s', (_label, input, region, reason) => {
    expect(normaliseMsisdn(input, region as 'BW')).toEqual({ ok: false, reason });
  });

  it('reports the number region', () => {
    expect(normaliseMsisdn('+254712345678', 'BW')).toEqual({ ok: true, e164: '254712345678', region: 'KE' });
  });
});

describe('regionFromLanguageTag', () => {
  test.each([
    ['en-BW', 'BW'],
    ['tn-BW', 'BW'],
    ['tn_bw', 'BW'],
    ['en-Latn-BW', 'BW'],
    ['sw-KE', 'KE'],
    ['en', 'ZA'],
    ['', 'ZA'],
    [undefined, 'ZA'],
    ['en-XX', 'ZA'],
    ['en-419', 'ZA'],
  ])('%s → %s (fallback ZA)', (tag, region) => {
    expect(regionFromLanguageTag(tag, 'ZA')).toBe(region);
  });
});
