import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { messageId, type DeliveryNote } from '../../src/messaging/message';
import { EARLY_REPORT_BOUNDS, SqlMessageStore } from '../../src/messaging/store/sql';
import { SqlPurchaseStore } from '../../src/purchases/store/sql';
import type { Database } from '../../src/records/database';
import { migrate, migrationFiles, MIGRATIONS_DIR } from '../../src/records/migrate';
import { intent, record } from '../purchases/fixtures';
import { freshPglite, testDatabase, testPglite } from '../support/database';
import { messageStoreContract } from './message-store.contract';

const NOW = new Date('2025-03-01T10:00:00.000Z');

describe.each([
  ['postgres', () => testDatabase('sms')],
  ['pglite', () => testPglite()],
] as const)('sql message store on %s', (kind, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ db, cleanup } = await open());
  });
  afterAll(() => cleanup());
  afterEach(() => db.query('TRUNCATE sms_messages, sms_provider_messages, sms_early_reports'));

  messageStoreContract(kind, async () => new SqlMessageStore(db));

  it('keeps the undelivered view and the open list as partial indexes of the rows', async () => {
    const indexes = await db.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'sms_messages' ORDER BY indexname`,
    );
    expect(indexes.rows.find((i) => i.indexname === 'sms_messages_undelivered')?.indexdef).toMatch(
      /WHERE in_undelivered_view/,
    );
    expect(indexes.rows.find((i) => i.indexname === 'sms_messages_open')?.indexdef).toMatch(/WHERE/);
  });

  it('keeps reports on ids not linked yet within their bounds: an hour by default, the newest up to the limit', async () => {
    const store = new SqlMessageStore(db, { keepMs: 60_000, max: 2 });
    const note: DeliveryNote = { state: 'failed', providerStatus: 'Failed', failureReason: null, at: '' };
    const keep = (id: string, second: number) =>
      store.recordReport(id, note, () => 'note', new Date(NOW.getTime() + second * 1000));
    const kept = async () =>
      (
        await db.query<{ provider_message_id: string }>(
          'SELECT provider_message_id FROM sms_early_reports ORDER BY provider_message_id',
        )
      ).rows.map((r) => r.provider_message_id);
    await keep('m-1', 0);
    await keep('m-2', 1);
    await keep('m-3', 2);
    expect(await kept()).toEqual(['m-2', 'm-3']);
    // A minute on, what came before that minute is gone (the size alone would keep two).
    await keep('m-4', 62.5);
    expect(await kept()).toEqual(['m-4']);
    expect(EARLY_REPORT_BOUNDS).toEqual({ keepMs: 3_600_000, max: 10_000 });
  });

  it("refuses a purchase's message without its purchase, a reply with one, and an unknown kind", async () => {
    const store = new SqlMessageStore(db);
    const base = { to: '26771234567', message: 'hi' };
    await expect(
      store.create({ ...base, id: messageId('p-1', 'k', base.to), kind: 'purchase-outcome' }, NOW),
    ).rejects.toThrow(/sms_messages_purchase/);
    await expect(
      store.create(
        { ...base, id: messageId('mo:w1', 'reply', base.to), kind: 'sms-reply', purchaseId: 'p-1' },
        NOW,
      ),
    ).rejects.toThrow(/sms_messages_purchase/);
    await expect(
      store.create({ ...base, id: 'x', kind: 'promotion' as never, purchaseId: 'p-1' }, NOW),
    ).rejects.toThrow(/sms_messages_kind/);
  });
});

describe('migration 0006 (sms_notifications → sms_messages)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives the rows written before it their kind, and a reply no purchase', async () => {
    for (const { name } of migrationFiles().filter((f) => f.name < '0006')) {
      copyFileSync(join(MIGRATIONS_DIR, name), join(dir, name));
    }
    const db = await freshPglite();
    try {
      await migrate(db, dir);
      const agentSale = record({
        id: 'p-agent',
        state: 'succeeded',
        intent: intent({ requesterMsisdn: '26770000001', agent: { msisdn: '26770000001' } }),
      });
      await new SqlPurchaseStore({ db }).create(agentSale);
      const rows: [id: string, purchaseId: string, to: string][] = [
        [messageId('p-1', 'settled', '26771234567'), 'p-1', '26771234567'],
        [messageId('mo:w1', 'reply', '26771234567'), 'mo:w1', '26771234567'],
        [messageId('p-agent', 'settled', '26771234567'), 'p-agent', '26771234567'],
        [messageId('p-agent', 'settled', '26770000001'), 'p-agent', '26770000001'],
        [messageId('p-agent', 'receipt:admin-1', '26770000001'), 'p-agent', '26770000001'],
      ];
      for (const [id, purchaseId, to] of rows) {
        await db.query(
          `INSERT INTO sms_notifications (id, purchase_id, recipient, message, status, attempts, created_at, updated_at)
           VALUES ($1, $2, $3, 'text', 'sent', 1, now(), now())`,
          [id, purchaseId, to],
        );
      }
      await db.query(
        `INSERT INTO sms_provider_messages (provider_message_id, notification_id) VALUES ('m-1', $1)`,
        [rows[1][0]],
      );

      expect((await migrate(db))[0]).toBe('0006-sms-messages.sql');

      const store = new SqlMessageStore(db);
      const kinds = await Promise.all(rows.map(async ([id]) => store.get(id)));
      expect(kinds.map((m) => [m?.kind, m?.purchaseId])).toEqual([
        ['purchase-outcome', 'p-1'],
        ['sms-reply', undefined],
        ['purchase-outcome', 'p-agent'],
        ['agent-receipt', 'p-agent'],
        ['agent-receipt', 'p-agent'],
      ]);
      expect(await store.findByProviderMessage('m-1')).toMatchObject({ id: rows[1][0], kind: 'sms-reply' });
    } finally {
      await db.close();
    }
  });
});

describe('migration 0011 (a provider id per part)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps each link written before it as a whole copy: its reports still apply', async () => {
    for (const { name } of migrationFiles().filter((f) => f.name < '0011')) {
      copyFileSync(join(MIGRATIONS_DIR, name), join(dir, name));
    }
    const db = await freshPglite();
    try {
      await migrate(db, dir);
      const id = messageId('p-1', 'settled', '26771234567');
      await db.query(
        `INSERT INTO sms_messages (id, kind, purchase_id, recipient, message, status, attempts,
           provider_message_id, created_at, updated_at)
         VALUES ($1, 'purchase-outcome', 'p-1', '26771234567', 'Token', 'sent', 1, 'm-1', now(), now())`,
        [id],
      );
      await db.query(
        `INSERT INTO sms_provider_messages (provider_message_id, message_id) VALUES ('m-1', $1)`,
        [id],
      );

      expect((await migrate(db))[0]).toBe('0011-sms-parts.sql');

      const failed: DeliveryNote = { state: 'failed', providerStatus: 'Failed', failureReason: null, at: '' };
      expect(await new SqlMessageStore(db).recordReport('m-1', failed, () => 'retry', NOW)).toMatchObject({
        kind: 'applied',
        action: 'retry',
        record: { id, status: 'queued', delivery: failed, deliveryFailures: 1 },
      });
    } finally {
      await db.close();
    }
  });
});
