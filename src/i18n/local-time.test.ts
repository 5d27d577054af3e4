import { localDate } from './local-time';

describe('localDate', () => {
  it("dates an instant in the operator's zone, not UTC", () => {
    // 22:30 UTC on the 23rd is 00:30 on the 24th in Gaborone (UTC+2).
    expect(localDate('2026-11-23T22:30:00.000Z', 'Africa/Gaborone')).toBe('2026-11-24');
    expect(localDate(new Date('2026-11-23T22:30:00Z'), 'UTC')).toBe('2026-11-23');
    expect(localDate('2026-11-23T21:59:59.999Z', 'Africa/Gaborone')).toBe('2026-11-23');
  });

  it('turns the day at local midnight whatever it answered just before, zone by zone', () => {
    // Gaborone is UTC+2: 21:59:59 UTC is the last second of the 23rd there.
    expect(localDate('2026-11-23T21:59:59.000Z', 'Africa/Gaborone')).toBe('2026-11-23');
    expect(localDate('2026-11-23T21:59:59.999Z', 'Africa/Gaborone')).toBe('2026-11-23');
    expect(localDate('2026-11-23T22:00:00.000Z', 'Africa/Gaborone')).toBe('2026-11-24');
    expect(localDate('2026-11-23T22:00:00.000Z', 'UTC')).toBe('2026-11-23');
    expect(localDate('2026-11-23T22:00:30.000Z', 'Africa/Gaborone')).toBe('2026-11-24');
    // Kathmandu's offset is not whole hours (+05:45).
    expect(localDate('2026-11-23T18:14:59.000Z', 'Asia/Kathmandu')).toBe('2026-11-23');
    expect(localDate('2026-11-23T18:15:00.000Z', 'Asia/Kathmandu')).toBe('2026-11-24');
    expect(() => localDate('not a date', 'UTC')).toThrow(RangeError);
  });
});
