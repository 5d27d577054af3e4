import { DEFAULT_AUDIT_LIMIT, type AuditTrail } from '../../src/purchases/care/audit';

/** A clock that moves one millisecond each time it is read: entries of distinct instants. */
export function tickingClock(start = Date.parse('2026-11-24T08:00:00.000Z')): () => Date {
  let now = start;
  return () => new Date(now++);
}

/**
 * One behaviour for every AuditTrail: run by audit.test.ts (memory, Redis) and audit.sql.test.ts
 * (PostgreSQL, PGlite). `makeTrail` gives an empty trail reading `clock`.
 */
export function auditTrailContract(
  name: string,
  makeTrail: (clock: () => Date) => Promise<AuditTrail>,
): void {
  describe(`${name} audit trail contract`, () => {
    it('records an entry with an id, the time and the input, and lists it back as recorded', async () => {
      const trail = await makeTrail(() => new Date('2026-11-24T08:00:00.123Z'));
      const entry = await trail.record({
        actor: 'care-desk',
        action: 'resolve',
        purchaseId: 'p-1',
        note: 'refund issued — ticket #42',
      });
      expect(entry).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        at: '2026-11-24T08:00:00.123Z',
        actor: 'care-desk',
        action: 'resolve',
        purchaseId: 'p-1',
        note: 'refund issued — ticket #42',
        detail: null,
      });
      const reveal = await trail.record({
        actor: 'cli:thabo',
        action: 'reveal',
        detail: 'GET /admin/purchases?msisdn=267****0001',
      });
      expect(reveal).toMatchObject({
        purchaseId: null,
        note: null,
        detail: 'GET /admin/purchases?msisdn=267****0001',
      });
      expect(reveal.id).not.toBe(entry.id);
      expect(await trail.list()).toEqual(expect.arrayContaining([entry, reveal]));
    });

    it('lists newest first: every entry, or one purchase’s, up to the limit', async () => {
      const trail = await makeTrail(tickingClock());
      const a1 = await trail.record({ actor: 'x', action: 'resolve', purchaseId: 'A', note: 'one' });
      const b1 = await trail.record({ actor: 'x', action: 'reveal', purchaseId: 'B', detail: 'seen' });
      const loose = await trail.record({ actor: 'y', action: 'reveal', detail: 'a search' });
      const a2 = await trail.record({ actor: 'y', action: 'reconcile', purchaseId: 'A' });
      expect(await trail.list()).toEqual([a2, loose, b1, a1]);
      expect(await trail.list({ purchaseId: 'A' })).toEqual([a2, a1]);
      expect(await trail.list({ purchaseId: 'B' })).toEqual([b1]);
      expect(await trail.list({ purchaseId: 'C' })).toEqual([]);
      expect(await trail.list({ limit: 2 })).toEqual([a2, loose]);
      expect(await trail.list({ purchaseId: 'A', limit: 1 })).toEqual([a2]);
    });

    it(`lists ${DEFAULT_AUDIT_LIMIT} entries when no limit is given`, async () => {
      const trail = await makeTrail(tickingClock());
      const written = [];
      for (let i = 0; i <= DEFAULT_AUDIT_LIMIT; i++)
        written.push(await trail.record({ actor: 'x', action: 'reveal', purchaseId: 'P', detail: `n${i}` }));
      const listed = await trail.list({ purchaseId: 'P' });
      expect(listed).toEqual(written.reverse().slice(0, DEFAULT_AUDIT_LIMIT));
      expect(await trail.list()).toHaveLength(DEFAULT_AUDIT_LIMIT);
    });

    it('keeps every one of concurrent entries', async () => {
      const trail = await makeTrail(() => new Date());
      const written = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          trail.record({
            actor: `op${i}`,
            action: 'reveal',
            purchaseId: i % 2 ? 'odd' : 'even',
            detail: `d${i}`,
          }),
        ),
      );
      const listed = await trail.list({ limit: 100 });
      expect(listed).toHaveLength(20);
      expect(listed).toEqual(expect.arrayContaining(written));
      expect(await trail.list({ purchaseId: 'odd', limit: 100 })).toHaveLength(10);
    });
  });
}
