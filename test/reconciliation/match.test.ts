import { matchDay } from '../../src/reconciliation/match';
import type { StatementLine } from '../../src/reconciliation/statements/types';
import type { DayInput, OurPayment } from '../../src/reconciliation/types';

const from = new Date('2026-12-01T00:00:00Z');
const to = new Date('2026-12-02T00:00:00Z');
const at = (hhmm: string) => new Date(`2026-12-01T${hhmm}:00Z`);
const bwp = (minor: number) => ({ currency: 'BWP', minor });

function payment(id: string, over: Partial<OurPayment> = {}): OurPayment {
  return {
    id,
    purchaseId: `pu-${id}`,
    provider: 'mpesa',
    payer: '26771234567',
    amount: bwp(10000),
    receipt: `R${id}`,
    providerReference: null,
    paidAt: at('10:00'),
    state: 'successful',
    purchase: { state: 'succeeded', failureCharged: null, total: bwp(10000) },
    refund: null,
    ...over,
  };
}

function line(receipt: string, over: Partial<StatementLine> = {}): StatementLine {
  return {
    provider: 'mpesa',
    receipt,
    completedAt: at('10:00'),
    kind: 'payment',
    amount: bwp(10000),
    payer: '26771234567',
    accountReference: 'ELEC',
    linkedReceipt: null,
    details: '',
    ...over,
  };
}

function day(over: Partial<DayInput>): DayInput {
  return {
    day: '2026-12-01',
    from,
    to,
    now: new Date('2026-12-02T06:00:00Z'),
    payments: [],
    refunds: [],
    lines: [],
    linesElsewhere: [],
    paymentsElsewhere: [],
    statementDays: new Set(['mpesa']),
    coverageEnd: { mpesa: new Date('2026-12-02T08:00:00Z') },
    wallet: null,
    lateWindowMs: 30 * 60_000,
    inFlightMs: 15 * 60_000,
    ...over,
  };
}

const reasons = (input: DayInput) => matchDay(input).mismatches.map((m) => `${m.reason} ${m.factKey}`);

describe('the day’s match', () => {
  test('a payment and its line by receipt: matched, nothing open', () => {
    const m = matchDay(day({ payments: [payment('a')], lines: [line('Ra')] }));
    expect(m).toMatchObject({ matched: 1, matchedLate: 0, mismatches: [], missing: [] });
  });

  test('the line says another amount: amount_differs, still matched once', () => {
    const m = matchDay(day({ payments: [payment('a')], lines: [line('Ra', { amount: bwp(9000) })] }));
    expect(m.matched).toBe(1);
    expect(m.mismatches.map((x) => [x.reason, x.action])).toEqual([['amount_differs', 'investigate']]);
  });

  test('a sold purchase whose money no line shows: vended_not_paid (write off)', () => {
    expect(
      reasons(day({ payments: [payment('a')], lines: [line('Rzz', { payer: '1', amount: bwp(1) })] })),
    ).toEqual([
      'vended_not_paid vended_not_paid:a',
      'statement_payment_unknown statement_payment_unknown:mpesa:Rzz',
    ]);
  });

  test("paid at 23:50 with no line yet and no statement past midnight: late_settlement; once tomorrow's line is in, matched late", () => {
    const late = payment('a', { paidAt: new Date('2026-12-01T23:50:00Z') });
    expect(
      reasons(
        day({
          payments: [late],
          lines: [line('Rother', { payer: 'x' })],
          coverageEnd: { mpesa: at('23:00') },
        }),
      ),
    ).toContain('late_settlement late_settlement:a');
    const next = line('Ra', { completedAt: new Date('2026-12-02T00:01:00Z') });
    const m = matchDay(
      day({ payments: [late], lines: [line('Rother', { payer: 'x' })], linesElsewhere: [next] }),
    );
    expect(m.matchedLate).toBe(1);
    expect(m.mismatches.map((x) => x.reason)).toEqual(['statement_payment_unknown']);
  });

  test("a line of yesterday's payment in today's statement is matched late, not unknown", () => {
    const yesterday = payment('y', { paidAt: new Date('2026-11-30T23:55:00Z') });
    const m = matchDay(
      day({ lines: [line('Ry', { completedAt: at('00:02') })], paymentsElsewhere: [yesterday] }),
    );
    expect(m).toMatchObject({ matchedLate: 1, mismatches: [] });
  });

  test('a second line of the same payer and amount beside a matched one: paid_twice, keyed by the second receipt', () => {
    expect(
      reasons(
        day({ payments: [payment('a')], lines: [line('Ra'), line('Rb', { completedAt: at('10:03') })] }),
      ),
    ).toEqual(['paid_twice paid_twice:mpesa:Rb']);
  });

  test('paid, vend failed for good, nothing given back: paid_not_vended (refund); still being sold moments ago: nothing yet', () => {
    const failed = payment('a', { purchase: { state: 'failed', failureCharged: false, total: null } });
    const m = matchDay(day({ payments: [failed], lines: [line('Ra')] }));
    expect(m.mismatches.map((x) => [x.reason, x.action])).toEqual([['paid_not_vended', 'refund']]);
    const selling = payment('b', {
      paidAt: at('23:59'),
      purchase: { state: 'confirming', failureCharged: null, total: null },
    });
    expect(
      reasons(day({ now: new Date('2026-12-02T00:05:00Z'), payments: [selling], lines: [line('Rb')] })),
    ).toEqual([]);
  });

  test('a refund of ours with no reversal: refund_not_in_statement; a reversal no refund asked for: unknown', () => {
    const refunded = payment('a', {
      purchase: { state: 'failed', failureCharged: false, total: null },
      refund: {
        id: 'rf-a',
        paymentId: 'a',
        state: 'refunded',
        amount: bwp(10000),
        providerReference: null,
        decidedAt: at('11:00'),
      },
    });
    const stray = line('Rrev', { kind: 'refund', linkedReceipt: 'Rnobody', accountReference: null });
    expect(
      reasons(day({ payments: [refunded], refunds: [refunded.refund!], lines: [line('Ra'), stray] })),
    ).toEqual([
      'refund_not_in_statement refund_not_in_statement:rf-a',
      'statement_payment_unknown statement_payment_unknown:mpesa:Rrev',
    ]);
    const reversal = line('Rrev', { kind: 'refund', linkedReceipt: 'Ra', accountReference: null });
    expect(
      reasons(day({ payments: [refunded], refunds: [refunded.refund!], lines: [line('Ra'), reversal] })),
    ).toEqual([]);
  });

  test('the wallet moved by the sales and the top-ups: no drift; by more: wallet_drift of the difference', () => {
    const wallet = {
      accountId: 7,
      opening: { at: from, balance: bwp(100000) },
      closing: { at: to, balance: bwp(100000 - 30000 + 5000) },
      sales: bwp(30000),
      salesCount: 3,
      topups: bwp(5000),
    };
    expect(matchDay(day({ wallet })).mismatches).toEqual([]);
    const drifted = matchDay(day({ wallet: { ...wallet, closing: { at: to, balance: bwp(70000) } } }));
    expect(drifted.mismatches.map((x) => [x.factKey, x.amount.minor])).toEqual([
      ['wallet_drift:7:2026-12-01', -5000],
    ]);
  });

  test('no statement for a provider we collected with: nothing matched against it, the day is missing it', () => {
    const m = matchDay(day({ payments: [payment('a')], statementDays: new Set() }));
    expect(m).toMatchObject({ matched: 0, mismatches: [], missing: ['mpesa statement'] });
  });
});
