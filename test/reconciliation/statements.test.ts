import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXPECTED_FORMATS, readStatement } from '../../src/reconciliation/statements/read';
import { StatementFormatError } from '../../src/reconciliation/statements/types';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name));
const options = { mpesaCurrency: 'KES', momoZone: 'Africa/Kampala' };

describe('statement readers (fixtures written from the providers’ published column lists)', () => {
  test("M-Pesa's organisation portal export: payments, a reversal, charges and settlements, a cancelled line left out", () => {
    const s = readStatement(fixture('mpesa-portal-statement.csv'), options);
    expect(s).toMatchObject({ provider: 'mpesa', format: 'mpesa-portal-csv', skipped: 1 });
    expect(s.lines.map((l) => [l.receipt, l.kind, l.amount.minor])).toEqual([
      ['TL13ABCD12', 'payment', 10000],
      ['TL13ABCD13', 'other', 100],
      ['TL14EFGH34', 'payment', 125050],
      ['TL16MNOP78', 'refund', 10000],
      ['TL17QRST90', 'other', 600000],
    ]);
    const [first, , second, reversal] = s.lines;
    // 08:15:02 in Nairobi (UTC+3).
    expect(first.completedAt.toISOString()).toBe('2026-12-01T05:15:02.000Z');
    expect(first).toMatchObject({
      payer: '254712345678',
      accountReference: 'ELEC0123',
      amount: { currency: 'KES' },
    });
    expect(second).toMatchObject({ payer: '254723456789', accountReference: 'AIR0456' });
    expect(reversal).toMatchObject({
      linkedReceipt: 'TL13ABCD12',
      payer: '254712345678',
      accountReference: null,
    });
    expect(s.lines[1].linkedReceipt).toBeNull(); // a charge names its payment; it gives nothing back
  });

  test("MTN MoMo's statement export: a request-to-pay in, a refund out, a failed line left out", () => {
    const s = readStatement(fixture('momo-statement.csv'), options);
    expect(s).toMatchObject({ provider: 'momo', format: 'momo-portal-csv', skipped: 1 });
    expect(s.lines).toHaveLength(2);
    expect(s.lines[0]).toMatchObject({
      receipt: '1232581108',
      kind: 'payment',
      amount: { currency: 'UGX', minor: 2000000 },
      payer: '256771234567',
      accountReference: '5f0e8a64-1c1d-4c6b-9d0e-2b7a1c3d4e5f',
    });
    expect(s.lines[0].completedAt.toISOString()).toBe('2026-12-01T06:10:11.000Z'); // Kampala, UTC+3
    expect(s.lines[1]).toMatchObject({ kind: 'refund', payer: '256771234567', amount: { minor: 2000000 } });
  });

  test("Daraja's Pull Transactions answer", () => {
    const s = readStatement(fixture('daraja-pull.json'), options);
    expect(s).toMatchObject({ provider: 'mpesa', format: 'daraja-pull-json', skipped: 0 });
    expect(
      s.lines.map((l) => [
        l.receipt,
        l.kind,
        l.amount.minor,
        l.accountReference,
        l.completedAt.toISOString(),
      ]),
    ).toEqual([
      ['TL13ABCD12', 'payment', 10000, 'ELEC0123', '2026-12-01T05:15:02.000Z'],
      ['TL14EFGH34', 'payment', 125050, 'AIR0456', '2026-12-01T09:40:31.000Z'],
    ]);
  });

  test.each([
    ['a bank statement', fixture('bank-statement.csv')],
    ['an empty file', Buffer.from('')],
    ['JSON that is not a pull answer', Buffer.from('{"transactions": []}')],
    ['not JSON at all', Buffer.from('{oops')],
  ])('%s is refused with what was expected', (_what, content) => {
    expect(() => readStatement(content, options)).toThrow(StatementFormatError);
    expect(() => readStatement(content, options)).toThrow(EXPECTED_FORMATS);
  });

  test('a line whose amount is not one is refused, naming the line and the column', () => {
    const text = fixture('mpesa-portal-statement.csv').toString().replace('"1,250.50"', '12.5.0');
    expect(() => readStatement(text, options)).toThrow(/line 10 Paid In: not an amount/);
  });
});
