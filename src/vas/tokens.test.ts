import fc from 'fast-check';
import { isKeyChangeDescription, parseTokens, tokensForDisplay } from './';

const digits = fc
  .array(fc.integer({ min: 0, max: 9 }), { minLength: 4, maxLength: 24 })
  .map((d) => d.join(''));
const description = fc.constantFrom(
  'Credit Token',
  'KeyChange Token1',
  'KeyChange Token2',
  'Key Change',
  'Tariff: Note',
);

describe('tokens', () => {
  it('a string without | is one bare token, trimmed, colon and all', () => {
    expect(parseTokens(' 1234 5678 9012 ')).toEqual([
      { description: null, value: '1234 5678 9012', isKeyChange: false },
    ]);
    expect(parseTokens('Credit Token: 1234')).toEqual([
      { description: null, value: 'Credit Token: 1234', isKeyChange: false },
    ]);
    expect(parseTokens('')).toEqual([]);
    expect(parseTokens(null)).toEqual([]);
  });

  it('the staging key-change answer gives three tokens in order, key-change ones first', () => {
    const tokens = parseTokens(
      'KeyChange Token1: 1111 2222 | KeyChange Token2: 3333 4444 | Credit Token: 5555 6666',
    );
    expect(tokens).toEqual([
      { description: 'KeyChange Token1', value: '1111 2222', isKeyChange: true },
      { description: 'KeyChange Token2', value: '3333 4444', isKeyChange: true },
      { description: 'Credit Token', value: '5555 6666', isKeyChange: false },
    ]);
    expect(tokensForDisplay(tokens)).toEqual(tokens);
  });

  test.each([
    ['KeyChange Token1', true],
    ['Key Change Token 1', true],
    ['Key-Change Token 2', true],
    ['key change token', true],
    ['KEY-CHANGE TOKEN 1', true],
    ['Key_Change_Token_1', true],
    ['KCT1', true],
    ['kct 2', true],
    ['KCT', true],
    ['Credit Token', false],
    ['CREDIT TOKEN', false],
    ['Token', false],
    ['Tariff', false],
    ['', false],
    [null, false],
  ])('%j is a key-change description: %s', (description, keyChange) => {
    expect(isKeyChangeDescription(description)).toBe(keyChange);
  });

  test.each([
    ['Key-Change Token 1', 'Key-Change Token 2'],
    ['Key Change Token 1', 'Key Change Token 2'],
    ['KCT1', 'KCT2'],
    ['key change token', 'KEY CHANGE TOKEN'],
  ])('%j and %j go before the credit token, in their order', (first, second) => {
    const tokens = parseTokens(`Credit Token: 1 | ${first}: 2 | Token: 3 | ${second}: 4`);
    expect(tokensForDisplay(tokens).map((t) => t.value)).toEqual(['2', '4', '1', '3']);
    // the SMS orders plain { description } objects by the same rule
    const sms = tokens.map((t) => ({ description: t.description ?? undefined, token: t.value }));
    expect(tokensForDisplay(sms).map((t) => t.token)).toEqual(['2', '4', '1', '3']);
  });

  it('multi-token strings round-trip: order kept, split on the first colon, trimmed', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(description, digits, fc.constantFrom('', ' ', '  ')), {
          minLength: 2,
          maxLength: 5,
        }),
        (parts) => {
          const raw = parts.map(([d, v, pad]) => `${pad}${d}:${pad}${v}${pad}`).join('|');
          const tokens = parseTokens(raw);
          const expectedValue = ([d, v, pad]: [string, string, string]) =>
            d.includes(':') ? `${d.slice(d.indexOf(':') + 1)}:${pad}${v}`.trim() : v;
          expect(tokens.map((t) => t.value)).toEqual(parts.map(expectedValue));
          // split on the first colon: a description never contains one, the value keeps the rest
          expect(tokens.map((t) => t.description)).toEqual(parts.map(([d]) => d.split(':')[0].trim()));
        },
      ),
    );
  });

  it('display order puts key-change tokens first and keeps relative order otherwise', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(description, digits), { minLength: 2, maxLength: 6 }), (parts) => {
        const tokens = parseTokens(parts.map(([d, v]) => `${d}: ${v}`).join(' | '));
        const shown = tokensForDisplay(tokens);
        const firstCredit = shown.findIndex((t) => !t.isKeyChange);
        if (firstCredit >= 0) expect(shown.slice(firstCredit).every((t) => !t.isKeyChange)).toBe(true);
        expect(shown.filter((t) => t.isKeyChange)).toEqual(tokens.filter((t) => t.isKeyChange));
        expect(shown.filter((t) => !t.isKeyChange)).toEqual(tokens.filter((t) => !t.isKeyChange));
      }),
    );
  });

  it('never throws on arbitrary input, never yields an empty value', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        for (const token of parseTokens(s)) {
          expect(token.value).not.toBe('');
          expect(token.value).toBe(token.value.trim());
        }
      }),
    );
  });
});
