import { applyPinAttempt, asOf, DEFAULT_LOCKOUT, localDay, type PinAttempt } from './lockout';
import type { AgentRecord } from './types';

const NOW = Date.parse('2026-11-23T08:00:00.000Z');

function record(over: Partial<AgentRecord> = {}): AgentRecord {
  return {
    msisdn: '26771234567',
    name: 'A',
    language: 'en',
    status: 'active',
    disabledReason: null,
    failedAttempts: 0,
    lockedUntil: null,
    lockoutDay: null,
    lockoutsToday: 0,
    mustChangePin: false,
    funding: { kind: 'float' },
    limits: {},
    createdAt: new Date(NOW).toISOString(),
    updatedAt: new Date(NOW).toISOString(),
    pin: { hash: 'h', salt: 's', params: { N: 1024, r: 8, p: 1, keyLen: 32 }, version: 1 },
    ...over,
  };
}

const attempt = (correct: boolean, over: Partial<PinAttempt> = {}): PinAttempt => ({
  pinVersion: 1,
  correct,
  nowMs: NOW,
  day: '2026-11-23',
  policy: DEFAULT_LOCKOUT,
  ...over,
});

describe('applyPinAttempt', () => {
  it('locks at the third wrong PIN, for twice as long at the second lockout of a day', () => {
    const first = applyPinAttempt(record({ failedAttempts: 2 }), attempt(false));
    expect(first.outcome).toEqual({ kind: 'locked', untilMs: NOW + 15 * 60_000 });
    expect(first.record).toMatchObject({
      status: 'locked',
      failedAttempts: 0,
      lockoutsToday: 1,
      lockoutDay: '2026-11-23',
    });
    const second = applyPinAttempt(
      record({ failedAttempts: 2, lockoutsToday: 1, lockoutDay: '2026-11-23' }),
      attempt(false),
    );
    expect(second.outcome).toEqual({ kind: 'locked', untilMs: NOW + 30 * 60_000 });
  });

  it('disables at the third lockout of a day; a lockout of another day does not count', () => {
    const third = applyPinAttempt(
      record({ failedAttempts: 2, lockoutsToday: 2, lockoutDay: '2026-11-23' }),
      attempt(false),
    );
    expect(third.outcome).toEqual({ kind: 'disabled', reason: 'lockouts' });
    expect(third.record).toMatchObject({ status: 'disabled', disabledReason: 'lockouts' });
    const yesterday = applyPinAttempt(
      record({ failedAttempts: 2, lockoutsToday: 2, lockoutDay: '2026-11-22' }),
      attempt(false),
    );
    expect(yesterday.outcome).toEqual({ kind: 'locked', untilMs: NOW + 15 * 60_000 });
  });

  it('counts nothing while locked or disabled, or against a PIN that changed', () => {
    const locked = record({ status: 'locked', lockedUntil: new Date(NOW + 1).toISOString() });
    expect(applyPinAttempt(locked, attempt(true))).toEqual({
      outcome: { kind: 'locked', untilMs: NOW + 1 },
      record: locked,
    });
    const disabled = record({ status: 'disabled', disabledReason: 'blocked' });
    expect(applyPinAttempt(disabled, attempt(true)).outcome).toEqual({ kind: 'disabled', reason: 'blocked' });
    expect(applyPinAttempt(record(), attempt(true, { pinVersion: 2 })).outcome).toEqual({ kind: 'stale' });
  });

  it('a lockout that ran out reads as active', () => {
    const locked = record({ status: 'locked', lockedUntil: new Date(NOW).toISOString() });
    expect(asOf(locked, NOW)).toMatchObject({ status: 'active', lockedUntil: null });
    expect(asOf(locked, NOW - 1).status).toBe('locked');
  });
});

describe('localDay', () => {
  it('is the calendar day in the zone', () => {
    expect(localDay(new Date('2026-11-23T21:59:59Z'), 'Africa/Gaborone')).toBe('2026-11-23');
    expect(localDay(new Date('2026-11-23T22:00:00Z'), 'Africa/Gaborone')).toBe('2026-11-24');
    expect(localDay(new Date('2026-11-23T22:00:00Z'), 'UTC')).toBe('2026-11-23');
  });
});
