import fc from 'fast-check';
import { MoneyFormatError, formatMoney, parseDecimalAmount, parseMoney, toRequestAmount } from './';

const currency = fc.constantFrom('BWP', 'ZAR', 'USD', 'KES');
const minor = fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 });

describe('money', () => {
  it('format then parse is the identity on exact minor units', () => {
    fc.assert(
      fc.property(currency, minor, (ccy, m) =>
        expect(parseMoney(formatMoney({ currency: ccy, minor: m }))).toEqual({ currency: ccy, minor: m }),
      ),
    );
  });

  test.each([
    [0, 'BWP', 'BWP 0.00'],
    [5, 'BWP', 'BWP 0.05'],
    [50, 'BWP', 'BWP 0.50'],
    [100, 'BWP', 'BWP 1.00'],
    [123450, 'BWP', 'BWP 1234.50'],
    [100000000000, 'BWP', 'BWP 1000000000.00'],
    [-1999, 'ZAR', 'ZAR -19.99'],
    [Number.MAX_SAFE_INTEGER, 'BWP', 'BWP 90071992547409.91'],
  ])('formats %d %s as %s', (m, ccy, text) => {
    expect(formatMoney({ currency: ccy, minor: m })).toBe(text);
  });

  test.each([[1.5], [NaN], [Infinity], [2 ** 53]])('refuses to format non-integer minor units %d', (m) => {
    expect(() => formatMoney({ currency: 'BWP', minor: m })).toThrow(RangeError);
  });

  test.each([['bwp'], ['BW'], ['']])('refuses to format currency %j', (ccy) => {
    expect(() => formatMoney({ currency: ccy, minor: 100 })).toThrow(RangeError);
  });

  it('parses the wire form exactly, without floats', () => {
    expect(parseMoney('BWP 1000000.00')).toEqual({ currency: 'BWP', minor: 100_000_000 });
    expect(parseMoney('BWP 0.29')).toEqual({ currency: 'BWP', minor: 29 });
    expect(parseMoney('BWP 12.5')).toEqual({ currency: 'BWP', minor: 1250 });
    expect(formatMoney({ currency: 'BWP', minor: 5 })).toBe('BWP 0.05');
  });

  it('whatever string it is given, it either throws MoneyFormatError or returns a safe integer', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        try {
          const money = parseMoney(s);
          expect(Number.isSafeInteger(money.minor)).toBe(true);
          expect(money.currency).toMatch(/^[A-Z]{3}$/);
        } catch (error) {
          expect(error).toBeInstanceOf(MoneyFormatError);
        }
      }),
    );
  });

  it.each([
    '',
    'BWP',
    '100.00',
    'bwp 1.00',
    'BWP 1.005',
    'BWP 1,00',
    'BWP NaN',
    'BWP Infinity',
    'BWP 1e3',
    'BWP  1.00',
    'BWP +1.00',
    'BWPX 1.00',
    `BWP ${'9'.repeat(30)}.00`,
  ])('rejects %p', (s) => expect(() => parseMoney(s)).toThrow(MoneyFormatError));

  it('typed amounts parse to exact minor units, or a reason', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000_00 }), (m) => {
        const text = `${Math.floor(m / 100)}.${String(m % 100).padStart(2, '0')}`;
        expect(parseDecimalAmount(text)).toEqual({ ok: true, minor: m });
        expect(toRequestAmount(m)).toBe(Number(text));
      }),
    );
    expect(parseDecimalAmount('1.234')).toEqual({ ok: false, reason: 'tooManyDecimals' });
    expect(parseDecimalAmount('0')).toEqual({ ok: false, reason: 'notPositive' });
    expect(parseDecimalAmount('abc')).toEqual({ ok: false, reason: 'notNumber' });
    expect(() => toRequestAmount(1.5)).toThrow(RangeError);
  });
});
