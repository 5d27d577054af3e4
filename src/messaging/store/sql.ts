import { TransactionGroup } from '../../records/group-commit';
import type { Database, Queryable } from '../../records/database';
import type { Sealer } from '../../records/sealing';
import type { DeliveryAction, DeliveryNote, Message, MessageRecord, MessageStatus } from '../message';
import { applyReport, lockProviderMessage, writeDelivery } from './delivery';
import { COLUMNS, FINAL, lockedRecord, recordOf, text, UNDELIVERED, type Row } from './rows';
import type {
  ClaimResult,
  DeliveryDecision,
  MessagePatch,
  MessageStore,
  ReportResult,
  SentResult,
} from './store';

/** How long, and how many, delivery reports on ids not linked yet are kept (`sms_early_reports`). */
export interface EarlyReportBounds {
  keepMs: number;
  max: number;
}

export const EARLY_REPORT_BOUNDS: EarlyReportBounds = { keepMs: 60 * 60_000, max: 10_000 };

/**
 * Outgoing SMS in the system of record (PostgreSQL, or PGlite embedded): one row of `sms_messages`
 * per message (migrations 0004, 0006, 0010 and 0011: each provider id a report may name, a part's
 * or a whole copy's, linked in `sms_provider_messages`). Each write is one statement, but for a
 * copy marked sent and a delivery report, each one transaction. The sweep's open list and the operator's
 * undelivered view are partial indexes over the rows, not lists kept beside them, so nothing
 * can drift between a record and its index.
 */
export class SqlMessageStore implements MessageStore {
  /** The sent marks of concurrent sends commit together (src/records/group-commit.ts). */
  private readonly group: TransactionGroup;

  constructor(
    private readonly db: Database,
    private readonly early: EarlyReportBounds = EARLY_REPORT_BOUNDS,
  ) {
    this.group = new TransactionGroup(db);
  }

  get sealer(): Sealer {
    return this.db.sealer;
  }

  async create(message: Message, now: Date, on: Queryable = this.db, claimed = false): Promise<boolean> {
    const at = now.toISOString();
    const inserted = await on.query(
      `INSERT INTO sms_messages (id, kind, purchase_id, recipient, sender, message, status, attempts,
         created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $8, $9, $7, $7)
       ON CONFLICT (id) DO NOTHING`,
      [
        message.id,
        message.kind,
        message.purchaseId ?? null,
        message.to,
        message.from ?? null,
        this.db.sealer.seal(text(message.message) ?? ''),
        at,
        claimed ? 'sending' : 'queued',
        claimed ? 1 : 0,
      ],
    );
    return inserted.rowCount === 1;
  }

  async get(id: string): Promise<MessageRecord | null> {
    const result = await this.db.query<Row>(`SELECT ${COLUMNS} FROM sms_messages WHERE id = $1`, [id]);
    return result.rows.length === 0 ? null : recordOf(result.rows[0], this.db.sealer);
  }

  async claim(id: string, now: Date): Promise<ClaimResult> {
    // One statement, the job's read and its mark: the status found (locked), and the record marked
    // `sending` with one attempt more unless that status was final (then answered as it is).
    const result = await this.db.query<Row & { previous: MessageStatus }>(
      `WITH found AS (
         SELECT id AS found_id, status AS previous FROM sms_messages WHERE id = $1 FOR UPDATE
       ), claimed AS (
         UPDATE sms_messages SET status = 'sending', attempts = attempts + 1, updated_at = $2::timestamptz
           FROM found
          WHERE id = found.found_id AND found.previous NOT IN ${FINAL}
         RETURNING found.previous, ${COLUMNS}
       )
       SELECT * FROM claimed
       UNION ALL
       SELECT found.previous, ${COLUMNS} FROM sms_messages JOIN found ON id = found.found_id
        WHERE NOT EXISTS (SELECT 1 FROM claimed)`,
      [id, now.toISOString()],
    );
    const row = result.rows[0];
    return row
      ? { previous: row.previous, record: recordOf(row, this.db.sealer) }
      : { previous: null, record: null };
  }

  async update(id: string, patch: MessagePatch, now: Date): Promise<MessageRecord | null> {
    // Only the fields the patch names change (a key set to undefined is absent, as in JSON);
    // a final record is answered as it is. One statement: the row as updated, or as found.
    const given = (key: keyof MessagePatch) => patch[key] !== undefined;
    const result = await this.db.query<Row>(
      `WITH updated AS (
         UPDATE sms_messages SET
           status = CASE WHEN $2 THEN $3 ELSE status END,
           attempts = CASE WHEN $4 THEN $5::int ELSE attempts END,
           last_error = CASE WHEN $6 THEN $7 ELSE last_error END,
           provider_message_id = CASE WHEN $8 THEN $9 ELSE provider_message_id END,
           sent_at = CASE WHEN $10 THEN $11::timestamptz ELSE sent_at END,
           revivals = CASE WHEN $12 THEN $13::int ELSE revivals END,
           updated_at = $14::timestamptz,
           in_undelivered_view = in_undelivered_view OR ($2 AND $3 IN ${UNDELIVERED})
         WHERE id = $1 AND status NOT IN ${FINAL}
         RETURNING ${COLUMNS}
       )
       SELECT * FROM updated
       UNION ALL
       SELECT ${COLUMNS} FROM sms_messages WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM updated)`,
      [
        id,
        given('status'),
        patch.status ?? null,
        given('attempts'),
        patch.attempts ?? null,
        given('lastError'),
        text(patch.lastError),
        given('providerMessageId'),
        text(patch.providerMessageId),
        given('sentAt'),
        patch.sentAt ?? null,
        given('revivals'),
        patch.revivals ?? null,
        now.toISOString(),
      ],
    );
    return result.rows.length === 0 ? null : recordOf(result.rows[0], this.db.sealer);
  }

  async listByPurchase(purchaseId: string): Promise<MessageRecord[]> {
    return this.list('purchase_id = $1', [purchaseId]);
  }

  async listOpen(limit: number): Promise<MessageRecord[]> {
    if (limit <= 0) return [];
    return this.list(`status NOT IN ${FINAL}`, [], limit);
  }

  async linkProviderMessage(providerMessageId: string, id: string): Promise<void> {
    await this.db.query(
      `INSERT INTO sms_provider_messages (provider_message_id, message_id, copy_id) VALUES ($1, $2, $1)
       ON CONFLICT (provider_message_id) DO UPDATE
         SET message_id = EXCLUDED.message_id, copy_id = EXCLUDED.copy_id, state = NULL, linked_at = now()`,
      [text(providerMessageId), id],
    );
  }

  async findByProviderMessage(providerMessageId: string): Promise<MessageRecord | null> {
    const result = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM sms_messages
        WHERE id = (SELECT message_id FROM sms_provider_messages WHERE provider_message_id = $1)`,
      [text(providerMessageId)],
    );
    return result.rows.length === 0 ? null : recordOf(result.rows[0], this.db.sealer);
  }

  recordDelivery(
    id: string,
    delivery: DeliveryNote,
    action: DeliveryAction,
    now: Date,
  ): Promise<MessageRecord | null> {
    return writeDelivery(this.db, id, delivery, action, now, this.db.sealer);
  }

  async markSent(
    id: string,
    providerMessageIds: readonly string[],
    decide: DeliveryDecision,
    now: Date,
  ): Promise<SentResult> {
    // The parts' ids in order (an id given twice is one link); the copy's id is them joined.
    const partIds = [...new Set(providerMessageIds.map((p) => text(p) ?? ''))];
    const copyId = partIds.length === 0 ? null : partIds.join(',');
    return this.group.run(async (tx) => {
      // The message's row first (a report never takes it before the link exists: no lock cycle).
      // Then, each part locked and linked, and the reports kept for the parts before their link
      // taken: all sent together (one round trip), run by the server in this order.
      const updated = tx.query<Row>(
        `UPDATE sms_messages SET status = 'sent', provider_message_id = $2, sent_at = $3::timestamptz,
           last_error = NULL, updated_at = $3::timestamptz
         WHERE id = $1 AND status NOT IN ${FINAL}
         RETURNING ${COLUMNS}`,
        [id, copyId, now.toISOString()],
      );
      // Every part linked before a kept report is applied: the copy's delivery counts them all.
      const linked = partIds.flatMap((partId) => [
        lockProviderMessage(tx, partId),
        tx.query(
          `INSERT INTO sms_provider_messages (provider_message_id, message_id, copy_id) VALUES ($1, $2, $3)
           ON CONFLICT (provider_message_id) DO UPDATE
             SET message_id = EXCLUDED.message_id, copy_id = EXCLUDED.copy_id, state = NULL, linked_at = now()`,
          [partId, id, copyId],
        ),
      ]);
      const taken = partIds.map((partId) =>
        tx.query<{ delivery: string }>(
          'DELETE FROM sms_early_reports WHERE provider_message_id = $1 RETURNING delivery',
          [partId],
        ),
      );
      const [result, , reports] = await Promise.all([updated, Promise.all(linked), Promise.all(taken)]);
      let record =
        result.rows.length === 0
          ? await lockedRecord(tx, id, this.db.sealer)
          : recordOf(result.rows[0], this.db.sealer);
      if (copyId === null) return { record };
      let early: SentResult['early'];
      for (const [i, partId] of partIds.entries()) {
        const kept = reports[i];
        if (kept.rows.length === 0 || record === null) continue;
        const report = JSON.parse(kept.rows[0].delivery) as DeliveryNote;
        const applied = await applyReport(
          tx,
          record,
          { partId, copyId },
          report,
          decide,
          now,
          this.db.sealer,
        );
        record = applied.record;
        // What the caller acts on: the report that re-opened or gave up the message, else the last.
        if (early?.action !== 'retry' && early?.action !== 'giveup')
          early = { delivery: applied.delivery, action: applied.action };
      }
      return { record, ...(early && { early }) };
    });
  }

  async recordReport(
    providerMessageId: string,
    delivery: DeliveryNote,
    decide: DeliveryDecision,
    now: Date,
  ): Promise<ReportResult> {
    const providerId = text(providerMessageId) ?? '';
    return this.db.transaction(async (tx) => {
      await lockProviderMessage(tx, providerId);
      // The link is stable while the id's lock is held (its writes take it too).
      const link = await tx.query<{ message_id: string; copy_id: string }>(
        'SELECT message_id, copy_id FROM sms_provider_messages WHERE provider_message_id = $1',
        [providerId],
      );
      const record =
        link.rows.length === 0 ? null : await lockedRecord(tx, link.rows[0].message_id, this.db.sealer);
      if (record !== null) {
        const part = { partId: providerId, copyId: link.rows[0].copy_id };
        const { record: after, action } = await applyReport(
          tx,
          record,
          part,
          delivery,
          decide,
          now,
          this.db.sealer,
        );
        return { kind: 'applied', record: after, action };
      }
      await this.keepEarly(tx, providerId, delivery, now);
      return { kind: 'kept' };
    });
  }

  /**
   * A report whose id no message carries yet, for `markSent` to apply: the latest per id (a
   * pending one never replaces a final one), the stale and the oldest past the bound dropped.
   */
  private async keepEarly(
    tx: Queryable,
    providerId: string,
    delivery: DeliveryNote,
    now: Date,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO sms_early_reports (provider_message_id, state, delivery, received_at)
       VALUES ($1, $2, $3, $4::timestamptz)
       ON CONFLICT (provider_message_id) DO UPDATE
         SET state = EXCLUDED.state, delivery = EXCLUDED.delivery, received_at = EXCLUDED.received_at
         WHERE EXCLUDED.state <> 'pending' OR sms_early_reports.state = 'pending'`,
      [providerId, delivery.state, JSON.stringify(delivery), now.toISOString()],
    );
    await tx.query(
      `DELETE FROM sms_early_reports
        WHERE received_at < $1::timestamptz
           OR provider_message_id IN (SELECT provider_message_id FROM sms_early_reports
                                       ORDER BY received_at DESC, provider_message_id DESC OFFSET $2)`,
      [new Date(now.getTime() - this.early.keepMs).toISOString(), this.early.max],
    );
  }

  async listUndelivered(limit: number): Promise<MessageRecord[]> {
    if (limit <= 0) return [];
    return this.list('in_undelivered_view', [], limit);
  }

  async countUndelivered(): Promise<number> {
    const result = await this.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sms_messages WHERE in_undelivered_view',
    );
    return result.rows[0].n;
  }

  async dismissUndelivered(id: string): Promise<void> {
    await this.db.query(
      'UPDATE sms_messages SET in_undelivered_view = false WHERE id = $1 AND in_undelivered_view',
      [id],
    );
  }

  /** Rows matching `where`, oldest first (creation time, then id), up to `limit`. */
  private async list(where: string, params: unknown[], limit?: number): Promise<MessageRecord[]> {
    const values = [...params];
    let tail = '';
    if (limit !== undefined) {
      values.push(limit);
      tail = ` LIMIT $${values.length}`;
    }
    const result = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM sms_messages WHERE ${where} ORDER BY created_at, id${tail}`,
      values,
    );
    return result.rows.map((row) => recordOf(row, this.db.sealer));
  }
}
