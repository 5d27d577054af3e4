import { SqlMessageStore } from '../../src/messaging/store/sql';
import { SqlPurchaseStore, type SqlPurchaseStoreOptions } from '../../src/purchases/store';
import { testDatabase, type TestDatabase } from '../support/database';

let fileDatabase: Promise<TestDatabase> | null = null;
// Each test file loads this module anew: its schema is its own, dropped when the file is done.
afterAll(async () => {
  if (fileDatabase) await (await fileDatabase).cleanup();
  fileDatabase = null;
});

/**
 * The purchase records of this test file: a schema of its own on the test PostgreSQL (made on
 * first use, dropped after the file), emptied of purchases so each test starts from none.
 */
export async function freshPurchaseStore(
  options: Omit<SqlPurchaseStoreOptions, 'db'> = {},
): Promise<SqlPurchaseStore> {
  fileDatabase ??= testDatabase('purchases');
  const { db } = await fileDatabase;
  await db.query('TRUNCATE purchases CASCADE');
  return new SqlPurchaseStore({ db, ...options });
}

/**
 * The outgoing SMS of this test file (same schema as its purchases), emptied so each test
 * starts from none. Call once per test: queues made in one test share the store it returns.
 */
export async function freshMessageStore(): Promise<SqlMessageStore> {
  fileDatabase ??= testDatabase('purchases');
  const { db } = await fileDatabase;
  await db.query('TRUNCATE sms_messages, sms_provider_messages');
  return new SqlMessageStore(db);
}
