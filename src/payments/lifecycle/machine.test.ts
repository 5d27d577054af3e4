import { mismatchOf, pollDelayMs } from './verdicts';
import {
  decidePayment,
  nextRecheckMs,
  type PaymentErrorInfo,
  type PaymentEvent,
  type PaymentLifecycleSettings,
} from './machine';
import type { PaymentNotice } from '../port';
import { newPaymentRecord, PAYMENT_STATES, type PaymentRecord } from '../store/types';

const settings: PaymentLifecycleSettings = {
  requestTimeoutMs: 30_000,
  lostMarginMs: 5_000,
  windowMs: 90_000,
  marginMs: 30_000,
  pollBaseMs: 8_000,
  pollMaxMs: 60_000,
  resendSafe: false,
  maxRequestAttempts: 2,
  refundDeadlineMs: 1_800_000,
  recheckForMs: 86_400_000,
  recheckEveryMs: 300_000,
};
const momo = { ...settings, resendSafe: true };
const T0 = '2025-01-01T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
const BWP = (minor: number) => ({ currency: 'BWP', minor });

function payment(over: Partial<PaymentRecord> = {}): PaymentRecord {
  return {
    ...newPaymentRecord({
      id: '0f4e8c1a-2b3c-4d5e-8f70-0123456789ab',
      purchaseId: 'p-1',
      provider: 'mpesa',
      payerMsisdn: '26771234567',
      amount: BWP(10150),
      description: 'Electricity',
      requestedAt: T0,
      expiresAt: at(120),
    }),
    ...over,
  };
}
const pending = payment({ state: 'pending', version: 2, providerReference: 'ws_CO_1' });
const err = (outcome: PaymentErrorInfo['outcome']): PaymentErrorInfo => ({
  name: 'PaymentCallError',
  code: 'x',
  message: 'x',
  outcome,
});
const notice = (over: Partial<PaymentNotice>): PaymentNotice => ({
  type: 'payment',
  state: 'successful',
  providerReference: 'ws_CO_1',
  amount: BWP(10150),
  receipt: 'RKT1',
  ...over,
});
const to = (p: PaymentRecord, event: PaymentEvent, s = settings) => decidePayment(p, event, s)?.to ?? null;
/** A collect, status query or refund call that failed with `outcome`, `seconds` after T0. */
const failedCall = (
  type: 'REQUEST_ERR' | 'STATUS_ERR' | 'REFUND_ERR',
  outcome: PaymentErrorInfo['outcome'],
  seconds: number,
): PaymentEvent => ({ type, error: err(outcome), at: at(seconds), random: 0 });
/** A status query answered "still pending", `seconds` after T0, with the poll's jitter. */
const stillPending = (seconds: number, random = 0): PaymentEvent => ({
  type: 'STATUS',
  status: { state: 'pending' },
  at: at(seconds),
  random,
});
/** The provider's answer about a refund, `seconds` after T0. */
const refundAnswer = (
  state: 'successful' | 'failed' | 'pending',
  providerReference: string | null,
  seconds: number,
): PaymentEvent => ({
  type: 'REFUND_ANSWER',
  status: { state, providerReference },
  at: at(seconds),
  random: 0,
});

describe('payment machine: the collect', () => {
  it.each<[string, PaymentEvent, string | null]>([
    ['accepted', { type: 'REQUEST_ACCEPTED', providerReference: 'ws_CO_1', at: at(1), random: 0 }, 'pending'],
    ['refused by the provider', failedCall('REQUEST_ERR', 'rejected', 1), 'failed'],
    ['never sent (nothing reached it)', failedCall('REQUEST_ERR', 'not_sent', 1), 'failed'],
    ['answer lost: may be on its way', failedCall('REQUEST_ERR', 'unknown', 31), 'pending'],
    ['its sender died', { type: 'REQUEST_LOST', at: at(40) }, 'pending'],
    [
      'a success callback before the answer',
      { type: 'CALLBACK', notice: notice({}), vouched: true, at: at(1) },
      'successful',
    ],
  ])('requested + %s', (_label, event, expected) => {
    expect(to(payment(), event)).toBe(expected);
  });

  it('keeps the provider reference and schedules the first query within the window', () => {
    const d = decidePayment(
      payment(),
      { type: 'REQUEST_ACCEPTED', providerReference: 'ws_CO_1', at: at(1), random: 0 },
      settings,
    )!;
    expect(d.next.providerReference).toBe('ws_CO_1');
    expect(d.delayMs).toBe(8_000);
  });

  it('a lost request is asked about at once and never sent again for Daraja', () => {
    const lost = decidePayment(payment(), { type: 'REQUEST_LOST', at: at(40) }, settings)!;
    expect(lost.delayMs).toBe(0);
    expect(lost.next.lastError?.code).toBe('request_lost');
    expect(lost.next.requestAttempts).toBe(1);
  });
});

describe('payment machine: callbacks and status answers', () => {
  it.each<[string, Partial<PaymentNotice>, string | null]>([
    ['matching success', {}, 'successful'],
    ['failure (declined)', { state: 'failed', reason: 'declined', amount: undefined }, 'failed'],
    ['pending', { state: 'pending' }, null],
    ['another amount', { amount: BWP(10100) }, null],
    ['another currency', { amount: { currency: 'KES', minor: 10150 } }, null],
    ['no amount', { amount: undefined }, null],
    ['another provider reference', { providerReference: 'ws_CO_2' }, null],
    ['another reference of ours', { reference: '11111111-2222-4333-8444-555555555555' }, null],
  ])('pending + callback: %s', (_label, over, expected) => {
    expect(to(pending, { type: 'CALLBACK', notice: notice(over), vouched: true, at: at(20) })).toBe(expected);
  });

  it('a success callback the provider does not vouch for (our URL key alone) never marks it paid, in any state', () => {
    const unvouched = { type: 'CALLBACK', notice: notice({}), vouched: false, at: at(500) } as const;
    for (const state of ['requested', 'pending', 'unknown', 'failed'] as const)
      expect(to(payment({ state, version: 3, providerReference: 'ws_CO_1' }), unvouched)).toBeNull();
    // A failure needs no proof: it takes no money.
    expect(to(pending, { ...unvouched, notice: notice({ state: 'failed', reason: 'declined' }) })).toBe(
      'failed',
    );
  });

  it('a success records the receipt and the amount paid', () => {
    const d = decidePayment(
      pending,
      { type: 'CALLBACK', notice: notice({}), vouched: true, at: at(20) },
      settings,
    )!;
    expect(d.next).toMatchObject({
      receipt: 'RKT1',
      paidAmount: BWP(10150),
      decidedAt: at(20),
      reason: null,
    });
  });

  it('a failure records why', () => {
    const d = decidePayment(
      pending,
      {
        type: 'CALLBACK',
        notice: notice({ state: 'failed', reason: 'insufficient_funds' }),
        vouched: true,
        at: at(20),
      },
      settings,
    )!;
    expect(d.next).toMatchObject({ state: 'failed', reason: 'insufficient_funds' });
  });

  it('a status answer without an amount (Daraja query) may mark it paid; one with another amount may not', () => {
    const ok = { type: 'STATUS', status: { state: 'successful' }, at: at(20), random: 0 } as const;
    expect(to(pending, ok)).toBe('successful');
    const wrong = { ...ok, status: { state: 'successful' as const, amount: BWP(1) } };
    expect(to(pending, wrong)).toBe('pending');
  });

  it('never lets a later signal overwrite a success; duplicates change nothing', () => {
    const paid = payment({ state: 'successful', version: 3, providerReference: 'ws_CO_1' });
    for (const event of [
      { type: 'CALLBACK', notice: notice({}), vouched: true, at: at(30) },
      {
        type: 'CALLBACK',
        notice: notice({ state: 'failed', reason: 'declined' }),
        vouched: true,
        at: at(30),
      },
      { type: 'STATUS', status: { state: 'failed', reason: 'expired' }, at: at(30), random: 0 },
      { type: 'DEADLINE', at: at(999) },
      failedCall('REQUEST_ERR', 'rejected', 30),
    ] as PaymentEvent[])
      expect(decidePayment(paid, event, settings)).toBeNull();
  });

  it('money that comes after a failure or after the deadline is recorded (to be given back)', () => {
    const failed = payment({ state: 'failed', version: 3, providerReference: 'ws_CO_1', reason: 'expired' });
    const unknown = payment({
      state: 'unknown',
      version: 3,
      providerReference: 'ws_CO_1',
      reason: 'unknown',
    });
    expect(to(failed, { type: 'CALLBACK', notice: notice({}), vouched: true, at: at(500) })).toBe(
      'successful',
    );
    expect(to(unknown, { type: 'CALLBACK', notice: notice({}), vouched: true, at: at(500) })).toBe(
      'successful',
    );
    expect(to(unknown, { type: 'STATUS', status: { state: 'successful' }, at: at(500), random: 0 })).toBe(
      'successful',
    );
    // but not money of another amount
    expect(
      to(unknown, { type: 'CALLBACK', notice: notice({ amount: BWP(5) }), vouched: true, at: at(500) }),
    ).toBeNull();
  });
});

describe('payment machine: waiting for an answer', () => {
  it('pending answers back off, the last query landing on the expiry', () => {
    const first = decidePayment(pending, stillPending(10), settings)!;
    expect(first.to).toBe('pending');
    expect(first.delayMs).toBe(8_000);
    const late = decidePayment({ ...pending, pollAttempts: 5 }, stillPending(110, 1), settings)!;
    expect(late.delayMs).toBe(10_000);
  });

  it('still pending at the expiry → unknown, re-checked for a day', () => {
    const d = decidePayment(pending, stillPending(120), settings)!;
    expect(d.to).toBe('unknown');
    expect(d.next.reason).toBe('unknown');
    expect(d.next.recheckUntil).toBe(at(120 + 86_400));
    expect(to(pending, failedCall('STATUS_ERR', 'unknown', 121))).toBe('unknown');
    expect(to(pending, { type: 'DEADLINE', at: at(119) })).toBeNull();
    expect(to(pending, { type: 'DEADLINE', at: at(120) })).toBe('unknown');
  });

  it('not found once is asked again (MoMo lag); twice means the collect never landed', () => {
    const nf = {
      type: 'STATUS',
      status: { state: 'failed', reason: 'not_found' },
      at: at(20),
      random: 0,
    } as const;
    const once = decidePayment(pending, nf, settings)!;
    expect(once.to).toBe('pending');
    expect(once.next.notFoundCount).toBe(1);
    // Daraja: cannot send again → failed (no money can move for a push the provider never had)
    expect(to(once.next, nf, settings)).toBe('failed');
    // MoMo: sent again with the same reference, after the compare-and-set back to requested
    const again = decidePayment(once.next, nf, momo)!;
    expect(again.to).toBe('requested');
    expect(again.next.requestAttempts).toBe(2);
    // …once only
    expect(to({ ...once.next, requestAttempts: 2 }, nf, momo)).toBe('failed');
  });
});

describe('payment machine: the refund', () => {
  const paid = payment({ state: 'successful', version: 3, providerReference: 'ws_CO_1', receipt: 'RKT1' });
  const start = { type: 'REFUND_START', refundId: 'r-1', reason: 'vend_failed', at: at(600) } as const;
  const asked = decidePayment(paid, start, settings)!;

  it('starts once, for the whole amount, only from successful', () => {
    expect(asked.to).toBe('refund_requested');
    expect(asked.next.refund).toMatchObject({ id: 'r-1', amount: BWP(10150), deadlineAt: at(600 + 1800) });
    expect(decidePayment(asked.next, start, settings)).toBeNull();
    for (const state of PAYMENT_STATES.filter((s) => s !== 'successful'))
      expect(decidePayment({ ...paid, state }, start, settings)).toBeNull();
  });

  it.each<[string, PaymentEvent, string]>([
    ['refunded', refundAnswer('successful', 'AG_1', 700), 'refunded'],
    ['refused', refundAnswer('failed', null, 700), 'refund_failed'],
    ['call refused', failedCall('REFUND_ERR', 'rejected', 700), 'refund_failed'],
    ['pending', refundAnswer('pending', 'AG_1', 700), 'refund_requested'],
    ['answer lost', failedCall('REFUND_ERR', 'unknown', 700), 'refund_requested'],
    ['silent past its deadline', { type: 'DEADLINE', at: at(2400) }, 'needs_attention'],
    ['pending past its deadline', refundAnswer('pending', null, 2400), 'needs_attention'],
  ])('refund_requested + %s', (_label, event, expected) => {
    expect(to(asked.next, event)).toBe(expected);
  });

  it('a late answer settles a refund that needs attention', () => {
    const attention = { ...asked.next, state: 'needs_attention' as const };
    expect(to(attention, refundAnswer('successful', 'AG_1', 5000))).toBe('refunded');
  });
  /** A status query that found no such refund, as each adapter says it, `seconds` after T0. */
  const notFound = (detail: 'RESOURCE_NOT_FOUND' | 'not_found', seconds: number): PaymentEvent => ({
    type: 'REFUND_ANSWER',
    status: { state: 'failed', providerReference: 'AG_1', detail },
    at: at(seconds),
    random: 0,
  });

  it.each(['RESOURCE_NOT_FOUND', 'not_found'] as const)(
    'a refund status answered "not found" (%s) is asked again with backoff, never refused, until its deadline',
    (detail) => {
      let current = asked.next;
      const waits: number[] = [];
      for (const seconds of [620, 640, 680, 760]) {
        const decision = decidePayment(current, notFound(detail, seconds), settings)!;
        expect(decision.to).toBe('refund_requested');
        expect(decision.next.refund).toMatchObject({ decidedAt: null, detail });
        waits.push(decision.delayMs!);
        current = decision.next;
      }
      // Backoff: each wait at least the one before, and never past the refund's deadline.
      expect(waits).toEqual([...waits].sort((a, b) => a - b));
      expect(waits[waits.length - 1]).toBeGreaterThan(waits[0]);
      const nearDeadline = decidePayment(current, notFound(detail, 600 + 1795), settings)!;
      expect(nearDeadline.delayMs).toBeLessThanOrEqual(5000);
      // At its deadline, still unknown to the provider: a person finds out; not "refused".
      expect(to(current, notFound(detail, 600 + 1800))).toBe('needs_attention');
      // And a not-found never turns a refund that needs attention into a refused one.
      expect(to({ ...current, state: 'needs_attention' }, notFound(detail, 5000))).toBeNull();
    },
  );

  it('a refund the provider really refused is still refused (a failed status with its reason)', () => {
    const refused: PaymentEvent = {
      type: 'REFUND_ANSWER',
      status: { state: 'failed', providerReference: 'AG_1', detail: 'PAYER_NOT_FOUND' },
      at: at(700),
      random: 0,
    };
    expect(to(asked.next, refused)).toBe('refund_failed');
  });
});

describe('payment machine: helpers', () => {
  it('mismatchOf names what does not match', () => {
    const p = { id: 'a', providerReference: 'X', amount: BWP(100) };
    expect(mismatchOf(p, { amount: BWP(100) }, true)).toBeNull();
    expect(mismatchOf(p, {}, true)).toBe('amount_missing');
    expect(mismatchOf(p, {}, false)).toBeNull();
    expect(mismatchOf(p, { reference: 'b', amount: BWP(100) }, true)).toBe('reference');
    expect(mismatchOf(p, { providerReference: 'Y', amount: BWP(100) }, true)).toBe('provider_reference');
    expect(mismatchOf(p, { amount: { currency: 'USD', minor: 100 } }, true)).toBe('currency');
    expect(mismatchOf(p, { amount: BWP(101) }, true)).toBe('amount');
  });

  it('backs off with jitter and a ceiling; re-checks stop at recheckUntil', () => {
    expect(pollDelayMs(settings, 0, 0)).toBe(8_000);
    expect(pollDelayMs(settings, 1, 0)).toBe(16_000);
    expect(pollDelayMs(settings, 10, 1)).toBe(90_000);
    const unknown = payment({ state: 'unknown', recheckUntil: at(1000) });
    expect(nextRecheckMs(unknown, at(0), settings, 0)).toBe(300_000);
    expect(nextRecheckMs(unknown, at(900), settings, 0)).toBe(100_000);
    expect(nextRecheckMs(unknown, at(1000), settings, 0)).toBeNull();
  });
});
