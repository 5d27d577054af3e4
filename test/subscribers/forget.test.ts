import { EXIT, main } from '../../src/cli/main';
import { SqlMessageStore } from '../../src/messaging/store/sql';
import { SqlAuditTrail } from '../../src/purchases/care/audit-sql';
import { MASKED, SqlPurchaseStore } from '../../src/purchases/store/sql';
import { SqlSavedMeters } from '../../src/subscribers/saved-meters';
import { intent, record } from '../purchases/fixtures';
import { testDatabase, type TestDatabase } from '../support/database';

/** `npm run cli -- subscriber forget --msisdn …` (issue 31 §1): a data-deletion request. */

let t: TestDatabase;
beforeAll(async () => {
  t = await testDatabase('forget');
});
afterAll(() => t.cleanup());

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['subscriber', ...argv], {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    env: { NODE_ENV: 'test', DATABASE_URL: t.url, DATABASE_SCHEMA: t.schema, USER: 'trinity' },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const TOKEN = '1111 2222 3333 4444 5555';
const result = {
  transactionId: 77,
  reference: 'BPC-REF-77',
  rawToken: TOKEN,
  units: '70.6 kWh',
  total: { currency: 'BWP', minor: 10150 },
  providerTransactionId: 'BPC77',
};

it('deletes the saved meters and masks the purchases and SMS in place, money fields whole, audited', async () => {
  const me = '26771239876';
  const other = '26772220000';
  const store = new SqlPurchaseStore({ db: t.db });
  const meters = new SqlSavedMeters(t.db);
  const mine = record({
    intent: intent({ requesterMsisdn: me, beneficiaryMsisdn: me, subscriberDetails: 'NEO A' }),
  });
  const open = record({ intent: intent({ requesterMsisdn: me, beneficiaryMsisdn: me }) });
  const theirs = record({ intent: intent({ requesterMsisdn: other, beneficiaryMsisdn: other }) });
  for (const r of [mine, open, theirs]) await store.create(r);
  for (const r of [mine, theirs])
    await store.transition(r.id, ['created'], 'succeeded', r.version, { result, settledAt: r.createdAt });
  await meters.remember(me, 'ELECTRICITY', mine.intent.subscriberIdentifier, 'NEO A', mine.createdAt);
  await meters.remember(other, 'ELECTRICITY', theirs.intent.subscriberIdentifier, null, theirs.createdAt);
  const sms = new SqlMessageStore(t.db);
  await sms.create(
    {
      id: `${mine.id}:settled:${me}`,
      kind: 'purchase-outcome',
      purchaseId: mine.id,
      to: me,
      message: `Token ${TOKEN}`,
    },
    new Date(),
  );
  await sms.update(`${mine.id}:settled:${me}`, { status: 'sent', attempts: 1 }, new Date());
  const before = (await store.get(mine.id))!;

  const run = await cli(['forget', '--msisdn', '71239876']);
  expect(run).toMatchObject({ code: EXIT.ok, err: '' });
  expect(run.out).toContain('1 saved meters deleted; 1 purchases, 1 SMS and 0 cases masked');
  expect(run.out).toContain('1 purchases are still open');
  expect(run.out).not.toContain('71239876');

  const after = (await store.get(mine.id))!;
  // Money, state, references and times stay whole.
  expect(after.intent.amount).toEqual(before.intent.amount);
  expect(after.result).toEqual({ ...result, rawToken: null });
  expect(after.state).toBe('succeeded');
  expect(after.externalReference).toBe(before.externalReference);
  expect(after.createdAt).toBe(before.createdAt);
  expect(after.intent).toMatchObject({
    requesterMsisdn: MASKED,
    beneficiaryMsisdn: MASKED,
    subscriberIdentifier: MASKED,
    subscriberDetails: null,
  });
  const dump = await t.db.query<{ dump: string }>(
    `SELECT (SELECT coalesce(json_agg(p), '[]')::text FROM purchases p WHERE id = $1)
         || (SELECT coalesce(json_agg(m), '[]')::text FROM sms_messages m WHERE purchase_id = $1)
         || (SELECT coalesce(json_agg(s), '[]')::text FROM saved_meters s WHERE msisdn = $2) AS dump`,
    [mine.id, me],
  );
  expect(dump.rows[0].dump).not.toContain(me);
  expect(dump.rows[0].dump).not.toContain(TOKEN);
  expect(await meters.list(me, 'ELECTRICITY')).toEqual([]);
  // The open purchase still has its numbers (it must still be told); another number is untouched.
  expect((await store.get(open.id))!.intent.requesterMsisdn).toBe(me);
  expect((await store.get(theirs.id))!.intent.requesterMsisdn).toBe(other);
  expect((await store.get(theirs.id))!.result?.rawToken).toBe(TOKEN);
  expect(await meters.list(other, 'ELECTRICITY')).toHaveLength(1);
  // Audited, without the number.
  const [entry] = await new SqlAuditTrail(t.db).list({ limit: 1 });
  expect(entry).toMatchObject({ actor: 'cli:trinity', action: 'forget' });
  expect(entry.detail).toContain('267****9876');
  expect(entry.detail).not.toContain(me);
});

it('lists the saved meters of a number, masked unless --reveal', async () => {
  const me = '26771230404';
  await new SqlSavedMeters(t.db).remember(me, 'WATER', '5550404', 'MOSA', new Date().toISOString());
  const shown = await cli(['meters', '--msisdn', me]);
  expect(shown.code).toBe(EXIT.ok);
  expect(shown.out).toMatch(/^WATER {2}\S+#[0-9a-f]{4} {2}MOSA/);
  expect(shown.out).not.toContain('5550404');
  expect(await cli(['meters'])).toMatchObject({ code: EXIT.usage });
  expect(await cli(['forget', '--msisdn', 'nope'])).toMatchObject({ code: EXIT.usage });
});

it('is a command family with its usage', async () => {
  const help = await cli(['help']);
  expect(help.code).toBe(EXIT.ok);
  expect(help.out).toContain('subscriber <command> --msisdn NUMBER');
});
