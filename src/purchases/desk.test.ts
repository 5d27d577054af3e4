import { newExternalReference } from './desk';

describe('newExternalReference', () => {
  it("carries the operator's local day, not UTC's: 23:30 UTC is already tomorrow in Gaborone", () => {
    const at = new Date('2026-11-22T23:30:00Z');
    expect(newExternalReference(at, 'Africa/Gaborone')).toMatch(/^GW-20261123-[A-Z2-7]{16}$/);
    expect(newExternalReference(at, 'UTC')).toMatch(/^GW-20261122-[A-Z2-7]{16}$/);
  });

  it('is unique: 10,000 references at the same instant never repeat', () => {
    const at = new Date('2026-11-22T10:00:00Z');
    const seen = new Set(Array.from({ length: 10_000 }, () => newExternalReference(at, 'Africa/Gaborone')));
    expect(seen.size).toBe(10_000);
  });
});
