import { SqlAuditTrail } from '../../src/purchases/care/audit-sql';
import type { Database } from '../../src/records/database';
import { testDatabase, testPglite } from '../support/database';
import { auditTrailContract, tickingClock } from './audit.contract';

describe.each([
  ['postgres', () => testDatabase('audit')],
  ['pglite', () => testPglite()],
] as const)('sql audit trail on %s', (kind, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ db, cleanup } = await open());
  });
  afterAll(() => cleanup());
  // TRUNCATE is the owner's reset (tests only); the trail refuses row by row changes.
  afterEach(() => db.query('TRUNCATE care_audit'));

  auditTrailContract(kind, async (clock) => new SqlAuditTrail(db, clock));

  it('is append-only: an entry cannot be changed or deleted', async () => {
    const trail = new SqlAuditTrail(db);
    const entry = await trail.record({ actor: 'x', action: 'resolve', purchaseId: 'p', note: 'refunded' });
    await expect(db.query('UPDATE care_audit SET note = $1', ['nothing happened'])).rejects.toThrow(
      /append-only/,
    );
    await expect(db.query('DELETE FROM care_audit WHERE purchase_id = $1', ['p'])).rejects.toThrow(
      /append-only/,
    );
    expect(await trail.list()).toEqual([entry]);
  });

  it('lists entries of one instant latest written first', async () => {
    const trail = new SqlAuditTrail(db, () => new Date('2026-11-24T08:00:00.000Z'));
    const first = await trail.record({ actor: 'x', action: 'reveal', purchaseId: 'p' });
    const second = await trail.record({ actor: 'x', action: 'reveal', purchaseId: 'q' });
    expect(await trail.list()).toEqual([second, first]);
  });

  it('orders by time, not by the order written', async () => {
    const clock = tickingClock();
    const later = await new SqlAuditTrail(db, () => new Date('2026-11-25T00:00:00.000Z')).record({
      actor: 'x',
      action: 'reveal',
    });
    const earlier = await new SqlAuditTrail(db, clock).record({ actor: 'y', action: 'reveal' });
    expect(await new SqlAuditTrail(db).list()).toEqual([later, earlier]);
  });
});
