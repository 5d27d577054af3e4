import { randomUUID } from 'node:crypto';
import { SqlMessageStore } from '../../src/messaging/store/sql';
import { recordsRetention } from '../../src/gateway/retention';
import { SqlPurchaseStore } from '../../src/purchases/store/sql';
import { openPostgres, type Database } from '../../src/records/database';
import { sealerOf, TEST_TOKEN_KEY, UnknownTokenKeyError } from '../../src/records/sealing';
import { testDatabase, TEST_DATABASE_URL } from '../support/database';
import { intent, record } from '../purchases/fixtures';

/**
 * #36 item 3 on the records: rows kept in clear before sealing still read and are sealed by the
 * sweep; after a key rotation the previous key reads the old rows until the sweep has sealed
 * them again under the new one; past `TOKEN_RETENTION_DAYS` tokens and SMS texts are masked, and
 * past `PII_RETENTION_DAYS` the purchases' and the payments' numbers.
 */

const DAY = 24 * 3600_000;
const TOKEN = '5512 3409 8876 1234 0098';
const TEXT = `Electricity 01234567890: BWP 100.00. Token: ${TOKEN}`;
const NEW_KEY = 'the-rotated-token-key-thirty-two-characters-plus';

let db: Database;
let schema: string;
let cleanup: () => Promise<void>;
let rotated: Database;
beforeAll(async () => {
  ({ db, schema, cleanup } = await testDatabase('tokens_rest'));
  rotated = await openPostgres({
    url: TEST_DATABASE_URL,
    schema,
    max: 2,
    sealer: sealerOf(NEW_KEY, [TEST_TOKEN_KEY]),
  });
});
afterAll(async () => {
  await rotated.close();
  await cleanup();
});

const result = {
  transactionId: 7,
  reference: 'BPC-REF-7',
  rawToken: TOKEN,
  units: '70.6 kWh',
  total: { currency: 'BWP', minor: 10150 },
  providerTransactionId: 'BPC77',
};

/** What the rows hold, whole: the purchase's record and the SMS text. */
async function stored(purchaseId: string, smsId: string): Promise<{ token: string | null; text: string }> {
  const purchase = await db.query<{ token: string | null }>(
    `SELECT record -> 'result' ->> 'rawToken' AS token FROM purchases WHERE id = $1`,
    [purchaseId],
  );
  const sms = await db.query<{ message: string }>('SELECT message FROM sms_messages WHERE id = $1', [smsId]);
  return { token: purchase.rows[0].token, text: sms.rows[0].message };
}

it('reads clear rows from before sealing, seals them, and reads them after a key rotation', async () => {
  const store = new SqlPurchaseStore({ db });
  const messages = new SqlMessageStore(db);
  const bought = record({
    state: 'confirming',
    version: 2,
    intent: intent({ requesterMsisdn: '26771239999' }),
  });
  await store.create(bought);
  await store.transition(bought.id, ['confirming'], 'succeeded', 2, { result, settledAt: bought.createdAt });
  const smsId = `${bought.id}:outcome:26771239999`;
  await messages.create(
    { id: smsId, kind: 'purchase-outcome', purchaseId: bought.id, to: '26771239999', message: TEXT },
    new Date(),
  );
  // Written sealed under the current key: no token in either row.
  const sealed = await stored(bought.id, smsId);
  expect(sealed.token).toMatch(/^sealed:v1:[0-9a-f]{8}:/);
  expect(sealed.text).toMatch(/^sealed:v1:[0-9a-f]{8}:/);
  expect(JSON.stringify(sealed)).not.toContain('5512');

  // Rows as a gateway before migration 0020 kept them: in clear. They read as they are.
  await db.query(
    `UPDATE purchases SET record = jsonb_set(record, '{result,rawToken}', to_jsonb($2::text)) WHERE id = $1`,
    [bought.id, TOKEN],
  );
  await db.query('UPDATE sms_messages SET message = $2 WHERE id = $1', [smsId, TEXT]);
  expect((await store.get(bought.id))!.result!.rawToken).toBe(TOKEN);
  expect((await messages.get(smsId))!.message).toBe(TEXT);

  // The workers' sweep seals them; then says every one is sealed.
  const sweep = recordsRetention(db, store, {
    dataDir: 'memory://',
    piiRetentionMs: null,
    tokenRetentionMs: 90 * DAY,
  });
  await sweep();
  const resealed = await stored(bought.id, smsId);
  expect([db.sealer.isCurrent(resealed.token!), db.sealer.isCurrent(resealed.text)]).toEqual([true, true]);
  expect((await store.get(bought.id))!.result!.rawToken).toBe(TOKEN);

  // Rotation: the new key seals, the previous one still opens the old rows...
  const rotatedStore = new SqlPurchaseStore({ db: rotated });
  const rotatedMessages = new SqlMessageStore(rotated);
  expect((await rotatedStore.get(bought.id))!.result!.rawToken).toBe(TOKEN);
  expect((await rotatedMessages.get(smsId))!.message).toBe(TEXT);
  expect((await rotatedStore.listByMsisdn('26771239999'))[0].result!.rawToken).toBe(TOKEN);
  // ...until the sweep has sealed them again under the new key.
  await recordsRetention(rotated, rotatedStore, {
    dataDir: 'memory://',
    piiRetentionMs: null,
    tokenRetentionMs: 90 * DAY,
  })();
  const underNew = await stored(bought.id, smsId);
  expect([rotated.sealer.isCurrent(underNew.token!), rotated.sealer.isCurrent(underNew.text)]).toEqual([
    true,
    true,
  ]);
  expect((await rotatedStore.get(bought.id))!.result!.rawToken).toBe(TOKEN);
  expect((await rotatedMessages.get(smsId))!.message).toBe(TEXT);
  // A process that only has the old key cannot read them, and says which key is missing.
  await expect(store.get(bought.id)).rejects.toThrow(UnknownTokenKeyError);
  await expect(messages.get(smsId)).rejects.toThrow(UnknownTokenKeyError);
});

it('masks tokens and SMS texts past TOKEN_RETENTION_DAYS, numbers and payers past PII_RETENTION_DAYS', async () => {
  const store = new SqlPurchaseStore({ db: rotated });
  const messages = new SqlMessageStore(rotated);
  const payer = '26771238888';
  const old = record({
    state: 'confirming',
    version: 2,
    intent: intent({ requesterMsisdn: payer, beneficiaryMsisdn: payer }),
  });
  const open = record({
    state: 'confirming',
    version: 2,
    intent: intent({ requesterMsisdn: payer, beneficiaryMsisdn: payer }),
  });
  for (const r of [old, open]) await store.create(r);
  await store.transition(old.id, ['confirming'], 'succeeded', 2, { result, settledAt: old.createdAt });
  const sent = `${old.id}:outcome:${payer}`;
  const queued = `${open.id}:outcome:${payer}`;
  for (const [id, purchaseId] of [
    [sent, old.id],
    [queued, open.id],
  ])
    await messages.create({ id, kind: 'purchase-outcome', purchaseId, to: payer, message: TEXT }, new Date());
  await messages.markSent(sent, ['prov-1'], () => 'note', new Date());
  const paymentId = randomUUID();
  const now = new Date().toISOString();
  await rotated.query(
    `INSERT INTO payments (id, purchase_id, provider, payer_msisdn, currency, amount_minor, state, version,
       requested_at, updated_at, decided_at, expires_at, record)
     VALUES ($1, $2, 'mpesa', $3, 'BWP', 10150, 'successful', 3, $4, $4, $4, $4, $5)`,
    [paymentId, old.id, payer, now, JSON.stringify({ id: paymentId, payerMsisdn: payer })],
  );

  const settings = { dataDir: 'memory://', tokenRetentionMs: 90 * DAY, piiRetentionMs: 365 * DAY };
  // 89 days on: nothing is masked yet.
  await recordsRetention(rotated, store, settings, () => Date.now() + 89 * DAY)();
  expect((await store.get(old.id))!.result!.rawToken).toBe(TOKEN);
  expect((await messages.get(sent))!.message).toBe(TEXT);

  // 91 days on: the settled purchase's token and the sent SMS's text go; the open ones stay.
  await recordsRetention(rotated, store, settings, () => Date.now() + 91 * DAY)();
  const masked = (await store.get(old.id))!;
  expect(masked.result).toMatchObject({ rawToken: null, reference: 'BPC-REF-7', total: result.total });
  expect(masked.tokenMaskedAt).toEqual(expect.any(String));
  expect(masked.intent.requesterMsisdn).toBe(payer);
  expect((await messages.get(sent))!.message).toBe('***');
  expect((await messages.get(queued))!.message).toBe(TEXT);
  const payment = await rotated.query<{ payer_msisdn: string }>(
    'SELECT payer_msisdn FROM payments WHERE id = $1',
    [paymentId],
  );
  expect(payment.rows[0].payer_msisdn).toBe(payer);

  // A year on: the numbers too, the purchase's and its payment's payer.
  await recordsRetention(rotated, store, settings, () => Date.now() + 366 * DAY)();
  expect((await store.get(old.id))!.intent.requesterMsisdn).toBe('***');
  const later = await rotated.query<{ payer_msisdn: string; record: { payerMsisdn: string } }>(
    'SELECT payer_msisdn, record FROM payments WHERE id = $1',
    [paymentId],
  );
  expect(later.rows[0]).toMatchObject({ payer_msisdn: '***', record: { payerMsisdn: '***' } });
});
