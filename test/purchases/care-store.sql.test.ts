import { SqlPurchaseStore } from '../../src/purchases/store';
import type { Database } from '../../src/records/database';
import { testDatabase, testPglite } from '../support/database';
import { careStoreContract, RETENTION_MS } from './care-store.contract';

describe.each([
  ['postgres', () => testDatabase('care_store')],
  ['pglite', () => testPglite()],
] as const)('on %s', (kind, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ db, cleanup } = await open());
  });
  afterAll(() => cleanup());
  afterEach(() => db.query('TRUNCATE purchases CASCADE'));

  careStoreContract(`sql (${kind})`, async () => {
    let now = new Date();
    return {
      store: new SqlPurchaseStore({ db, clock: () => now, retentionMs: RETENTION_MS }),
      setNow: (at) => (now = at),
    };
  });
});
