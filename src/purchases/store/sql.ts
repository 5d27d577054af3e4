import { TransactionGroup } from '../../records/group-commit';
import type { Database, Queryable } from '../../records/database';
import { sealedUnderPattern } from '../../records/sealing';
import {
  PURCHASE_STATES,
  RECHECKED_STATES,
  RETAINED_STATES,
  SETTLED_STATES,
  type AlongsideWrite,
  type PurchaseRecord,
  type PurchaseState,
} from '../types';
import {
  checkTransition,
  DEFAULT_LIST_LIMIT,
  DEFAULT_RETENTION_MS,
  expiresAt,
  type CreateResult,
  type ListOptions,
  type PageOptions,
  type PurchasePatch,
  type PurchaseStore,
  type RecordTransaction,
  type RetentionOptions,
  type SpendClaim,
  SpendClaimRefusedError,
  type TransitionResult,
} from './store';
import { openRecord, sealRecord } from './sealed';

export interface SqlPurchaseStoreOptions extends RetentionOptions {
  db: Database;
  clock?: () => Date;
}

type Row = { record: PurchaseRecord };

/**
 * Purchases in the system of record (PostgreSQL, or PGlite embedded). Each write is one
 * statement, so one commit: a transition's compare-and-set and its history row commit together,
 * and a `created → confirming` step is durable before its confirm is sent. A create with
 * `alongside` is one transaction: the purchase and what goes with it (its payment row) commit
 * together.
 */
export class SqlPurchaseStore implements PurchaseStore {
  private readonly db: Database;
  private readonly clock: () => Date;
  private readonly retentionMs: number;

  private readonly group: TransactionGroup;

  constructor(options: SqlPurchaseStoreOptions) {
    this.db = options.db;
    this.group = new TransactionGroup(options.db);
    this.clock = options.clock ?? (() => new Date());
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  }

  async create(
    record: PurchaseRecord,
    spend?: SpendClaim,
    alongside?: AlongsideWrite,
  ): Promise<CreateResult> {
    if (!alongside) return this.createOn(this.db, record, spend);
    // Still one commit, and one round trip: the purchase, its reservation and what goes with it
    // (its payment row, which writes nothing unless the purchase is written).
    return this.db.transactionInOneTrip(async (tx) => {
      const [created] = await Promise.all([this.createOn(tx, record, spend), alongside(record, tx)]);
      return created;
    });
  }

  private async createOn(db: Queryable, record: PurchaseRecord, spend?: SpendClaim): Promise<CreateResult> {
    const { intent } = record;
    const params: unknown[] = [
      record.id,
      record.idempotencyKey,
      record.externalReference,
      record.state,
      record.version,
      record.createdAt,
      record.updatedAt,
      intent.productType,
      intent.providerCode,
      intent.channel,
      intent.subscriberIdentifier,
      intent.beneficiaryMsisdn,
      intent.requesterMsisdn,
      intent.agent?.msisdn ?? null,
      intent.amount.currency,
      intent.amount.minor,
      JSON.stringify(sealRecord(this.db.sealer, record)),
    ];
    if (spend)
      params.push(
        spend.msisdn,
        spend.day,
        spend.amountMinor,
        spend.maxValueMinor,
        spend.maxCount,
        [...spend.blockedMsisdns],
        spend.identifier,
      );
    // One statement, so one commit: a key already taken answers its record and counts nothing
    // (the reservation's gate is a one-time filter: spend_reserve is not called at all); else
    // the day's reservation (migration 0009: blocklist and limits under the day's lock) and,
    // when it counted, the purchase with its first history row.
    const reserved = spend
      ? `, reserved AS (
         SELECT outcome FROM spend_reserve($18, $19::date, $2, $20::bigint, $21::bigint, $22::int,
           $23::text[], $24)
          WHERE NOT EXISTS (SELECT 1 FROM existing)
       )`
      : '';
    const result = await db.query<{
      record: PurchaseRecord | null;
      existing: PurchaseRecord | null;
      outcome: number | null;
    }>(
      `WITH existing AS (
         SELECT record FROM purchases WHERE idempotency_key = $2
       )${reserved}, created AS (
         INSERT INTO purchases (id, idempotency_key, external_reference, state, version, created_at,
           updated_at, product_type, provider_code, channel, subscriber_identifier, beneficiary_msisdn,
           requester_msisdn, agent_msisdn, currency, amount_minor, record)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17
          WHERE NOT EXISTS (SELECT 1 FROM existing)
            ${spend ? 'AND EXISTS (SELECT 1 FROM reserved WHERE outcome = 1)' : ''}
         ON CONFLICT (idempotency_key) DO NOTHING
         RETURNING id, version, state, created_at, record
       ), logged AS (
         INSERT INTO purchase_transitions (purchase_id, version, from_state, to_state, at)
         SELECT id, version, NULL, state, created_at FROM created
       )
       SELECT (SELECT record FROM created) AS record, (SELECT record FROM existing) AS existing,
              ${spend ? '(SELECT outcome FROM reserved)' : 'NULL::int'} AS outcome`,
      params,
    );
    const row = result.rows[0];
    if (row?.record) return { created: true, record: this.open(row.record) };
    if (row?.existing) return { created: false, record: this.open(row.existing) };
    if (row && row.outcome !== null && row.outcome !== 1)
      throw new SpendClaimRefusedError(
        row.outcome === -3 ? 'blocked' : row.outcome === -1 ? 'value' : 'count',
      );
    // The key was taken meanwhile (a concurrent duplicate's row is visible once its insert committed):
    // read apart, since a transaction sent in one trip takes no statement after its answers.
    const existing = (
      await this.db.query<Row>('SELECT record FROM purchases WHERE idempotency_key = $1', [
        record.idempotencyKey,
      ])
    ).rows[0]?.record;
    if (!existing) throw new Error(`purchase idempotency key taken but no record: ${record.idempotencyKey}`);
    return { created: false, record: this.open(existing) };
  }

  async get(id: string): Promise<PurchaseRecord | null> {
    return this.one('SELECT record FROM purchases WHERE id = $1', [id]);
  }

  async getByIdempotencyKey(key: string): Promise<PurchaseRecord | null> {
    return this.one('SELECT record FROM purchases WHERE idempotency_key = $1', [key]);
  }

  async withRecord<T>(
    id: string,
    step: (record: PurchaseRecord | null, tx: RecordTransaction) => Promise<T>,
  ): Promise<T> {
    let committed: (() => void)[] = [];
    // Grouped: the confirm starts and outcomes of concurrent jobs commit together (group-commit.ts).
    const result = await this.group.run(async (tx) => {
      // Run again alone when its group rolled back: what the first run left for after the commit goes.
      committed = [];
      const read = await tx.query<Row>('SELECT record FROM purchases WHERE id = $1 FOR UPDATE', [id]);
      const found = read.rows[0]?.record;
      return step(found ? this.open(found) : null, {
        transition: (...args) => this.transitionOn(tx, ...args),
        on: tx,
        afterCommit: (run) => committed.push(run),
      });
    });
    for (const run of committed) run();
    return result;
  }

  transition(
    id: string,
    from: readonly PurchaseState[],
    to: PurchaseState,
    expectedVersion: number,
    patch: PurchasePatch = {},
  ): Promise<TransitionResult> {
    return this.transitionOn(this.db, id, from, to, expectedVersion, patch);
  }

  private async transitionOn(
    db: Queryable,
    id: string,
    from: readonly PurchaseState[],
    to: PurchaseState,
    expectedVersion: number,
    patch: PurchasePatch = {},
  ): Promise<TransitionResult> {
    const at = this.clock().toISOString();
    // The record becomes { ...current, ...patch, state, version + 1, updatedAt },
    // written and logged in one statement only if state and version still match. The history
    // keeps what changed but not the token: it lives once, in the record, where it can be masked.
    const moved = await db.query<Row>(
      `WITH current AS (
         SELECT id, state FROM purchases WHERE id = $1 AND state = ANY($2) AND version = $3 FOR UPDATE
       ), moved AS (
         UPDATE purchases p
            SET state = $4, version = p.version + 1, updated_at = $5::timestamptz,
                record = p.record || $6::jsonb
                  || jsonb_build_object('state', $4::text, 'version', p.version + 1, 'updatedAt', $7::text)
           FROM current
          WHERE p.id = current.id
         RETURNING p.id, p.version, p.record, current.state AS from_state
       ), logged AS (
         INSERT INTO purchase_transitions (purchase_id, version, from_state, to_state, at, patch)
         SELECT id, version, from_state, $4, $5::timestamptz, $6::jsonb #- '{result,rawToken}' FROM moved
       )
       SELECT record FROM moved`,
      [id, [...from], expectedVersion, to, at, JSON.stringify(sealRecord(this.db.sealer, patch)), at],
    );
    if (moved.rows.length === 1) return { ok: true, record: this.open(moved.rows[0].record) };
    const found = (await db.query<Row>('SELECT record FROM purchases WHERE id = $1', [id])).rows[0]?.record;
    const current = found ? this.open(found) : null;
    const conflict = checkTransition(current, from, expectedVersion);
    // Read after the refusal: a record that matches now was moved and moved back meanwhile.
    return { ok: false, conflict: conflict ?? { reason: 'version', current } };
  }

  async listByMsisdn(msisdn: string, options: ListOptions = {}): Promise<PurchaseRecord[]> {
    return this.newestFirst('(beneficiary_msisdn = $1 OR requester_msisdn = $1)', [msisdn], options);
  }

  async listByState(state: PurchaseState, options: PageOptions = {}): Promise<PurchaseRecord[]> {
    return this.page('state = $1', [state], options, 'DESC');
  }

  async listUnnotified(options: PageOptions = {}): Promise<PurchaseRecord[]> {
    return this.page('NOT notified AND state = ANY($1)', [[...SETTLED_STATES]], options, 'ASC');
  }

  async listRechecking(options: PageOptions = {}): Promise<PurchaseRecord[]> {
    return this.page(
      `state = ANY($1) AND record ->> 'recheckUntil' > $2`,
      [[...RECHECKED_STATES], this.clock().toISOString()],
      options,
      'ASC',
    );
  }

  async noteRecheck(id: string, round: number, at: string): Promise<void> {
    await this.db.query(
      `UPDATE purchases SET record = record || jsonb_build_object('recheckRound', $2::int, 'recheckAt', $3::text)
        WHERE id = $1 AND state = ANY($4)`,
      [id, round, at, [...RECHECKED_STATES]],
    );
  }

  async noteLateSuccess(id: string, late: NonNullable<PurchaseRecord['lateSuccess']>): Promise<boolean> {
    const noted = await this.db.query(
      `UPDATE purchases SET record = record || jsonb_build_object('lateSuccess', $2::jsonb) WHERE id = $1`,
      [id, JSON.stringify(late)],
    );
    return noted.rowCount === 1;
  }

  async listByIdentifier(identifier: string, options: ListOptions = {}): Promise<PurchaseRecord[]> {
    return this.newestFirst('subscriber_identifier = $1', [identifier], options);
  }

  async listByReference(reference: string, options: ListOptions = {}): Promise<PurchaseRecord[]> {
    return this.newestFirst('(external_reference = $1 OR provider_reference = $1)', [reference], options);
  }

  async countByState(): Promise<Record<PurchaseState, number>> {
    const counts = Object.fromEntries(PURCHASE_STATES.map((s) => [s, 0])) as Record<PurchaseState, number>;
    const result = await this.db.query<{ state: PurchaseState; n: string }>(
      'SELECT state, count(*)::text AS n FROM purchases GROUP BY state',
    );
    for (const row of result.rows) counts[row.state] = Number(row.n);
    return counts;
  }

  async purgeExpired({ limit = 1000 }: { limit?: number } = {}): Promise<number> {
    const now = this.clock().getTime();
    // Created before the cut-off is necessary (retention counts from settling, later than
    // creation); expiresAt then decides per record, with its re-check window.
    const candidates = await this.db.query<Row>(
      `SELECT record FROM purchases WHERE state = ANY($1) AND created_at <= $2
        ORDER BY created_at LIMIT $3`,
      [[...RETAINED_STATES], new Date(now - this.retentionMs).toISOString(), limit],
    );
    const expired = candidates.rows
      .map((row) => row.record)
      .filter((record) => {
        const until = expiresAt(record, this.retentionMs);
        return until !== null && until <= now;
      });
    if (expired.length === 0) return 0;
    // Only a record still as read is deleted: one that moved on meanwhile is judged next time.
    const deleted = await this.db.query(
      `DELETE FROM purchases p USING unnest($1::text[], $2::int[]) AS gone(id, version)
        WHERE p.id = gone.id AND p.version = gone.version`,
      [expired.map((r) => r.id), expired.map((r) => r.version)],
    );
    return deleted.rowCount;
  }

  private async one(text: string, params: unknown[]): Promise<PurchaseRecord | null> {
    const result = await this.db.query<Row>(text, params);
    const found = result.rows[0]?.record;
    return found ? this.open(found) : null;
  }

  /** A row's record with its token opened (./sealed.ts). */
  private open(record: PurchaseRecord): PurchaseRecord {
    return openRecord(this.db.sealer, record);
  }

  private async newestFirst(
    where: string,
    params: unknown[],
    options: ListOptions,
  ): Promise<PurchaseRecord[]> {
    const filters = [where];
    const values = [...params];
    if (options.state !== undefined) {
      values.push(options.state);
      filters.push(`state = $${values.length}`);
    }
    values.push(options.limit ?? DEFAULT_LIST_LIMIT);
    const result = await this.db.query<Row>(
      `SELECT record FROM purchases WHERE ${filters.join(' AND ')}
        ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
      values,
    );
    return result.rows.map((row) => this.open(row.record));
  }

  /** A page in (created_at, id) order, starting after the cursor. */
  private async page(
    where: string,
    params: unknown[],
    { limit = DEFAULT_LIST_LIMIT, after }: PageOptions,
    direction: 'ASC' | 'DESC',
  ): Promise<PurchaseRecord[]> {
    const filters = [where];
    const values = [...params];
    if (after) {
      values.push(after.createdAt, after.id);
      const op = direction === 'DESC' ? '<' : '>';
      filters.push(`(created_at, id) ${op} ($${values.length - 1}::timestamptz, $${values.length})`);
    }
    values.push(limit);
    const result = await this.db.query<Row>(
      `SELECT record FROM purchases WHERE ${filters.join(' AND ')}
        ORDER BY created_at ${direction}, id ${direction} LIMIT $${values.length}`,
      values,
    );
    return result.rows.map((row) => this.open(row.record));
  }
}

/** What a purchase keeps once its personal data is masked: the money fields stay whole. */
export const MASKED = '***';

/**
 * What masking writes (parameter `$3` is {@link MASKED}): the numbers, the identifier, the verified
 * name and the token go; `personalDataMaskedAt` says when.
 */
const MASK_SET = `requester_msisdn = $3, beneficiary_msisdn = $3, subscriber_identifier = $3,
            agent_msisdn = CASE WHEN p.agent_msisdn IS NULL THEN NULL ELSE $3 END,
            record = jsonb_set(
              jsonb_set(p.record, '{intent}', (p.record -> 'intent') || jsonb_build_object(
                'requesterMsisdn', $3::text, 'beneficiaryMsisdn', $3::text,
                'subscriberIdentifier', $3::text, 'subscriberDetails', NULL)
                || CASE WHEN p.record -> 'intent' ? 'agent'
                        THEN jsonb_build_object('agent', jsonb_build_object('msisdn', $3::text))
                        ELSE '{}'::jsonb END),
              '{personalDataMaskedAt}', to_jsonb(now()))
              || CASE WHEN jsonb_typeof(p.record -> 'result') = 'object'
                      THEN jsonb_build_object('result', (p.record -> 'result') || '{"rawToken": null}'::jsonb)
                      ELSE '{}'::jsonb END`;

/**
 * `PII_RETENTION_DAYS`: masks in place the token and the numbers (requester, beneficiary,
 * identifier, the provider-verified name) of purchases settled before `before`, at most `limit`
 * per call; amounts, states, references and times stay for the auditors. Returns how many were
 * masked. Only settled or resolved purchases: an open one still needs its numbers.
 */
export async function maskPersonalData(db: Database, before: Date, limit = 1000): Promise<number> {
  const masked = await db.query(
    `UPDATE purchases p SET ${MASK_SET}
      WHERE p.id IN (
        SELECT id FROM purchases
         WHERE state = ANY($1) AND updated_at < $2 AND requester_msisdn <> $3
         ORDER BY updated_at LIMIT $4)`,
    [[...RETAINED_STATES], before.toISOString(), MASKED, limit],
  );
  return masked.rowCount;
}

/**
 * A data-deletion request for one number: masks in place, as `maskPersonalData` does, every
 * settled or resolved purchase it bought or received (the other party's number and the
 * identifier with it: a purchase is masked whole). The money fields stay. Returns how many were
 * masked; purchases still open keep their numbers until they settle (`openPurchasesOf` counts them).
 */
export async function maskPersonalDataOf(db: Queryable, msisdn: string): Promise<number> {
  const masked = await db.query(
    `UPDATE purchases p SET ${MASK_SET}
      WHERE (p.requester_msisdn = $2 OR p.beneficiary_msisdn = $2) AND p.state = ANY($1)`,
    [[...RETAINED_STATES], msisdn, MASKED],
  );
  return masked.rowCount;
}

/** How many of a number's purchases are not settled yet (still need its numbers). */
export async function openPurchasesOf(db: Queryable, msisdn: string): Promise<number> {
  const open = await db.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM purchases
      WHERE (requester_msisdn = $2 OR beneficiary_msisdn = $2) AND NOT (state = ANY($1))`,
    [[...RETAINED_STATES], msisdn],
  );
  return Number(open.rows[0]?.n ?? 0);
}

/** A purchase that keeps a token (what the partial index of migration 0020 covers). */
const KEEPS_TOKEN = `jsonb_typeof(record -> 'result' -> 'rawToken') = 'string'`;

/**
 * `TOKEN_RETENTION_DAYS`: the token of purchases settled before `before` goes (`rawToken` null,
 * `tokenMaskedAt` says when), at most `limit` per call; the rest of the record stays. Returns how
 * many were masked. Only settled or resolved purchases: an open one may still need its token.
 */
export async function maskTokens(db: Database, before: Date, limit = 1000): Promise<number> {
  const masked = await db.query(
    `UPDATE purchases p
        SET record = jsonb_set(p.record, '{result,rawToken}', 'null'::jsonb)
              || jsonb_build_object('tokenMaskedAt', to_jsonb(now()))
      WHERE p.id IN (
        SELECT id FROM purchases
         WHERE ${KEEPS_TOKEN} AND state = ANY($1) AND updated_at < $2
         ORDER BY updated_at LIMIT $3)`,
    [[...RETAINED_STATES], before.toISOString(), limit],
  );
  return masked.rowCount;
}

/**
 * Seals again under the current key up to `limit` tokens that are not (kept in clear before
 * sealing existed, or sealed under a previous key: src/records/sealing.ts). A token written
 * meanwhile is left as it is (compare-and-set on the value read). Returns how many it sealed.
 */
export async function resealTokens(db: Database, limit = 500): Promise<number> {
  const { sealer } = db;
  const stale = await db.query<{ id: string; token: string }>(
    `SELECT id, record -> 'result' ->> 'rawToken' AS token FROM purchases
      WHERE ${KEEPS_TOKEN} AND NOT (record -> 'result' ->> 'rawToken' LIKE $1) LIMIT $2`,
    [sealedUnderPattern(sealer.keyId), limit],
  );
  if (stale.rows.length === 0) return 0;
  const sealed = await db.query(
    `UPDATE purchases p SET record = jsonb_set(p.record, '{result,rawToken}', to_jsonb(s.sealed))
       FROM unnest($1::text[], $2::text[], $3::text[]) AS s(id, token, sealed)
      WHERE p.id = s.id AND p.record -> 'result' ->> 'rawToken' = s.token`,
    [
      stale.rows.map((row) => row.id),
      stale.rows.map((row) => row.token),
      stale.rows.map((row) => sealer.seal(sealer.open(row.token))),
    ],
  );
  return sealed.rowCount;
}
