import { maskPersonalData, MASKED, SqlPurchaseStore } from '../../src/purchases/store/sql';
import type { Database } from '../../src/records/database';
import { testDatabase } from '../support/database';
import { intent, record } from './fixtures';

let db: Database;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ db, cleanup } = await testDatabase('pii'));
});
afterAll(() => cleanup());

const result = {
  transactionId: 9,
  reference: 'BPC-REF-9',
  rawToken: '1234-5678-9012-3456-7890',
  units: '70.6 kWh',
  total: { currency: 'BWP', minor: 10150 },
  providerTransactionId: 'BPC2026',
};

it('masks the token and numbers of settled purchases in place and keeps the money fields', async () => {
  const store = new SqlPurchaseStore({ db });
  const settled = record({
    intent: intent({ subscriberDetails: 'KABELO M', agent: { msisdn: '26771110000' } }),
    state: 'confirming',
    version: 2,
  });
  const open = record({ state: 'confirming', version: 2 });
  for (const r of [settled, open]) await store.create(r);
  await store.transition(settled.id, ['confirming'], 'succeeded', 2, {
    result,
    settledAt: settled.createdAt,
  });

  expect(await maskPersonalData(db, new Date(Date.now() + 60_000))).toBe(1);
  const masked = (await store.get(settled.id))!;
  expect(masked.intent).toMatchObject({
    requesterMsisdn: MASKED,
    beneficiaryMsisdn: MASKED,
    subscriberIdentifier: MASKED,
    subscriberDetails: null,
    agent: { msisdn: MASKED },
    amount: { currency: 'BWP', minor: 10000 },
  });
  expect(masked.result).toMatchObject({ rawToken: null, reference: 'BPC-REF-9', total: result.total });
  expect(masked.state).toBe('succeeded');
  expect(masked.personalDataMaskedAt).toEqual(expect.any(String));
  // An open purchase still needs its numbers.
  expect((await store.get(open.id))!.intent.requesterMsisdn).toBe(open.intent.requesterMsisdn);
  // Nothing of the token or the numbers is left in any row: the history never held the token.
  const rows = await db.query<{ dump: string }>(
    `SELECT (SELECT json_agg(p)::text FROM purchases p WHERE id = $1)
         || (SELECT json_agg(t)::text FROM purchase_transitions t WHERE purchase_id = $1) AS dump`,
    [settled.id],
  );
  expect(rows.rows[0].dump).not.toContain(result.rawToken);
  expect(rows.rows[0].dump).not.toContain(settled.intent.requesterMsisdn);
  expect(rows.rows[0].dump).not.toContain('26771110000');
  // Masked once: a second pass finds nothing left to mask.
  expect(await maskPersonalData(db, new Date(Date.now() + 60_000))).toBe(0);
});
