import type { Database, Queryable } from '../../records/database';
import type { PurchaseState } from '../../purchases/types';
import type { PaymentNotice, ProviderNotice } from '../port';
import {
  PAYMENT_STATES,
  topUpIdOf,
  topUpSubject,
  type AgentTopUp,
  type PaymentRecord,
  type PaymentRecordState,
} from './types';
import {
  keepNotice,
  keepSettledNotice,
  lostPaymentNotice,
  noticesOf,
  unmatchedNotices,
  unverifiedNotices,
  resolveUnmatched,
  unmatchedSuccesses,
  type KeptNotice,
  type LostNoticeMatch,
  type NoticeOutcome,
  type UnmatchedNotice,
  type UnmatchedResolution,
  type UnmatchedSuccess,
} from './notices';
import {
  changedFields,
  isRefusal,
  isUniqueViolation,
  isUuid,
  TOP_UP_COLUMNS,
  topUpOf,
  type TopUpRow,
} from './rows';

export interface SqlPaymentStoreOptions {
  db: Database;
  clock?: () => Date;
}

export type CreatePaymentResult =
  /** Written: this caller sends the collect. */
  | { created: true; record: PaymentRecord }
  /** The purchase already has its payment (another instance wrote it): nothing is sent again. */
  | { created: false; record: PaymentRecord }
  /** No payment may be asked for it: the purchase is missing, or no longer `created` and never confirmed. */
  | { created: false; record: null };

export type PaymentTransitionResult =
  | {
      ok: true;
      record: PaymentRecord;
      purchase: PurchaseGlance | null;
      /** The payment learnt its provider key: the notices kept under that key before it, oldest first. */
      early?: UnmatchedNotice[];
    }
  | { ok: false; current: PaymentRecord | null };

/**
 * The lock on a provider's key for a payment (`SELECT pg_advisory_xact_lock(...)`, parameter
 * `$1`: `keyLockName`). A payment learning its key (the push answer) and a callback naming it
 * each take it before their statement, so one always sees the other's commit: the answer reads
 * the notices kept before it, the callback reads the key written before it. Without it both
 * statements' snapshots could miss each other, and each side then needed a read of its own.
 */
const KEY_LOCK = 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))';

function keyLockName(provider: string, providerReference: string): string {
  return `payment-key:${provider}:${providerReference}`;
}

/**
 * The purchase a payment pays for, as the statement that moved the payment read it (null for a
 * top-up's payment): what the lifecycle tells the purchase side needs no read of its own.
 */
export interface PurchaseGlance {
  id: string;
  state: PurchaseState;
  confirmAttempts: number;
  /** When its next confirm is due (a re-confirm after not_sent/429 waits its backoff); the sweep's. */
  nextAttemptAt?: string | null;
}

/**
 * A payment with the state of its purchase, as the sweep reads it. A top-up's payment reads
 * `created` while its agent has not been told (the top-up still `requested`), else `succeeded`.
 * `purchase`: the purchase as the same statement read it (null for a top-up's payment), so that
 * telling it what the money did needs no read of its own.
 */
export interface SweptPayment {
  payment: PaymentRecord;
  purchaseState: PurchaseState;
  purchase: PurchaseGlance | null;
}

export type { NoticeOutcome } from './notices';

/** The database refused a refund: its purchase might have issued a token (payment_refund_allowed). */
export class RefundNotAllowedError extends Error {
  constructor(
    readonly paymentId: string,
    detail: string,
  ) {
    super(`refund of payment ${paymentId} refused by the records: ${detail}`);
    this.name = 'RefundNotAllowedError';
  }
}

type Row = { record: PaymentRecord };

/** The refund row's state for each refund state of its payment. */
const REFUND_ROW_STATE: Partial<Record<PaymentRecordState, string>> = {
  refund_requested: 'requested',
  refunded: 'refunded',
  refund_failed: 'failed',
  needs_attention: 'needs_attention',
};

const SWEEP_PAGE = 500;

/**
 * Payments in the system of record. Each write is one statement: a transition's compare-and-set,
 * its history row and (from `successful` on) its refund row commit together, so the payment row
 * is durable before the collect it allows is sent, and `refund_requested` before the refund.
 */
export class SqlPaymentStore {
  private readonly db: Database;
  private readonly clock: () => Date;

  constructor(options: SqlPaymentStoreOptions) {
    this.db = options.db;
    this.clock = options.clock ?? (() => new Date());
  }

  /**
   * Write the purchase's one payment (`requested`) and mark the purchase `payment_required`, in one
   * statement, only while the purchase is `created` and never confirmed. A second call for the same
   * purchase (another instance, a retried job) writes nothing and returns the first payment. A
   * purchase being written gets its row with it instead ({@link createWithPurchase}).
   */
  async create(payment: PaymentRecord): Promise<CreatePaymentResult> {
    const inserted = await this.insert(payment, this.db);
    if (inserted) return { created: true, record: inserted };
    const existing = (
      await this.db.query<Row>('SELECT record FROM payments WHERE purchase_id = $1', [payment.purchaseId])
    ).rows[0]?.record;
    return existing ? { created: false, record: existing } : { created: false, record: null };
  }

  /**
   * The payment row of a purchase being written on `tx`, sent with it (the purchase's
   * `AlongsideWrite`): written only if that purchase is (null otherwise), and nothing read back.
   */
  createWithPurchase(payment: PaymentRecord, tx: Queryable): Promise<PaymentRecord | null> {
    return this.insert(payment, tx);
  }

  /** One statement: the payment row of a purchase still `created` and never confirmed, or nothing. */
  private async insert(payment: PaymentRecord, on: Queryable): Promise<PaymentRecord | null> {
    const inserted = await on.query<Row>(
      `WITH purchase AS (
         UPDATE purchases SET payment_required = true
          WHERE id = $2 AND state = 'created' AND coalesce((record ->> 'confirmAttempts')::int, 0) = 0
         RETURNING id
       ), created AS (
         INSERT INTO payments (id, purchase_id, provider, payer_msisdn, currency, amount_minor, state, version,
           provider_reference, receipt, reason, requested_at, updated_at, decided_at, expires_at, record)
         SELECT $1, purchase.id, $3, $4, $5, $6, $7, $8, NULL, NULL, NULL, $9, $9, NULL, $10, $11 FROM purchase
         ON CONFLICT (purchase_id) DO NOTHING
         RETURNING id, version, state, requested_at, record
       ), logged AS (
         INSERT INTO payment_transitions (payment_id, version, from_state, to_state, at)
         SELECT id, version, NULL, state, requested_at FROM created
       )
       SELECT record FROM created`,
      [
        payment.id,
        payment.purchaseId,
        payment.provider,
        payment.payerMsisdn,
        payment.amount.currency,
        payment.amount.minor,
        payment.state,
        payment.version,
        payment.requestedAt,
        payment.expiresAt,
        JSON.stringify(payment),
      ],
    );
    return inserted.rows[0]?.record ?? null;
  }

  async get(id: string): Promise<PaymentRecord | null> {
    if (!isUuid(id)) return null;
    return this.one('SELECT record FROM payments WHERE id = $1', [id]);
  }

  /**
   * The payment of a purchase, or of a top-up (`topup:<id>`, see `topUpSubject`); `on`: inside a
   * transaction of the caller's (the outcome's, whose SMS say what was paid).
   */
  async getByPurchase(purchaseId: string, on: Queryable = this.db): Promise<PaymentRecord | null> {
    const topUpId = topUpIdOf(purchaseId);
    if (topUpId !== null)
      return isUuid(topUpId)
        ? this.one('SELECT record FROM payments WHERE topup_id = $1', [topUpId], on)
        : null;
    return this.one('SELECT record FROM payments WHERE purchase_id = $1', [purchaseId], on);
  }

  /**
   * Write an agent's top-up request and its one payment (`requested`, subject `topup:<id>`) in one
   * statement. The same request key again (a re-delivered TOPUP, another instance) writes nothing
   * and answers the first request's payment: never two payment requests for one request.
   */
  async createTopUp(
    topUp: Pick<AgentTopUp, 'id' | 'requestKey' | 'msisdn' | 'amount'>,
    payment: PaymentRecord,
  ): Promise<{ created: boolean; record: PaymentRecord }> {
    if (payment.purchaseId !== topUpSubject(topUp.id))
      throw new Error(`payment ${payment.id} does not pay for top-up ${topUp.id}`);
    const inserted = await this.db.query<Row>(
      `WITH topup AS (
         INSERT INTO agent_topups (id, request_key, msisdn, currency, amount_minor, state, requested_at)
         VALUES ($11, $12, $13, $4, $5, 'requested', $8)
         ON CONFLICT (request_key) DO NOTHING
         RETURNING id
       ), created AS (
         INSERT INTO payments (id, topup_id, provider, payer_msisdn, currency, amount_minor, state, version,
           provider_reference, receipt, reason, requested_at, updated_at, decided_at, expires_at, record)
         SELECT $1, topup.id, $2, $3, $4, $5, $6, $7, NULL, NULL, NULL, $8, $8, NULL, $9, $10 FROM topup
         RETURNING id, version, state, requested_at, record
       ), logged AS (
         INSERT INTO payment_transitions (payment_id, version, from_state, to_state, at)
         SELECT id, version, NULL, state, requested_at FROM created
       )
       SELECT record FROM created`,
      [
        payment.id,
        payment.provider,
        payment.payerMsisdn,
        payment.amount.currency,
        payment.amount.minor,
        payment.state,
        payment.version,
        payment.requestedAt,
        payment.expiresAt,
        JSON.stringify(payment),
        topUp.id,
        topUp.requestKey,
        topUp.msisdn,
      ],
    );
    if (inserted.rows.length === 1) return { created: true, record: inserted.rows[0].record };
    const existing = await this.one(
      `SELECT pa.record FROM payments pa JOIN agent_topups t ON t.id = pa.topup_id WHERE t.request_key = $1`,
      [topUp.requestKey],
    );
    if (!existing) throw new Error(`top-up request ${topUp.requestKey} has no payment`);
    return { created: false, record: existing };
  }

  async topUp(id: string): Promise<AgentTopUp | null> {
    if (!isUuid(id)) return null;
    const result = await this.db.query<TopUpRow>(`SELECT ${TOP_UP_COLUMNS} FROM agent_topups WHERE id = $1`, [
      id,
    ]);
    return result.rows[0] ? topUpOf(result.rows[0]) : null;
  }

  /**
   * Note that the agent was told how its top-up ended. A `credited` one stays credited (money that
   * came after a `failed` one is credited after all); false when nothing changed.
   */
  async settleTopUp(id: string, state: 'credited' | 'failed', at: string): Promise<boolean> {
    const result = await this.db.query(
      `UPDATE agent_topups SET state = $2, decided_at = $3
        WHERE id = $1 AND state <> 'credited' AND state <> $2`,
      [id, state, at],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async getByProviderReference(provider: string, reference: string): Promise<PaymentRecord | null> {
    return this.one('SELECT record FROM payments WHERE provider = $1 AND provider_reference = $2', [
      provider,
      reference,
    ]);
  }

  /** The payment whose refund has this key of ours or of the provider. */
  async getByRefund(refund: {
    /** The provider whose callback names the refund: its keys and receipts are its own. */
    provider: string;
    refundReference?: string;
    providerReference?: string;
    /** The refunded payment's receipt: one refund per payment, so it names that refund. */
    paymentReceipt?: string;
  }): Promise<PaymentRecord | null> {
    if (refund.refundReference && isUuid(refund.refundReference)) {
      const found = await this.one(
        'SELECT p.record FROM payments p JOIN payment_refunds r ON r.payment_id = p.id WHERE r.id = $1',
        [refund.refundReference],
      );
      if (found) return found;
    }
    if (refund.providerReference) {
      const found = await this.one(
        `SELECT p.record FROM payments p JOIN payment_refunds r ON r.payment_id = p.id
          WHERE p.provider = $1 AND r.provider_reference = $2`,
        [refund.provider, refund.providerReference],
      );
      if (found) return found;
    }
    if (!refund.paymentReceipt) return null;
    // Only a refund whose own key is still unknown (its answer lost): never one that names another.
    return this.one(
      `SELECT p.record FROM payments p JOIN payment_refunds r ON r.payment_id = p.id
        WHERE p.provider = $1 AND p.receipt = $2
          AND (r.provider_reference IS NULL OR r.provider_reference = $3)`,
      [refund.provider, refund.paymentReceipt, refund.providerReference ?? null],
    );
  }

  /**
   * Compare-and-set: writes `next` (version + 1, updatedAt now) only if the payment is still
   * `current` (same state and version). Entering `refund_requested` inserts the refund row,
   * which the database refuses for a second refund or a purchase that might have issued a
   * token ({@link RefundNotAllowedError}); later refund states update it. `noticeId`: the kept
   * provider notice this transition applies, marked `applied` (with its payment) in the same
   * statement, only if the transition is written.
   */
  async transition(
    current: PaymentRecord,
    next: PaymentRecord,
    noticeId?: string,
    on?: Queryable,
  ): Promise<PaymentTransitionResult> {
    const learnsKey = current.providerReference === null && next.providerReference !== null;
    if (!learnsKey) return this.move(current, next, noticeId, on ?? this.db);
    const key = keyLockName(current.provider, next.providerReference!);
    // The lock and the move go out together: the server takes the lock before it runs the move.
    const locked = async (tx: Queryable) =>
      (await Promise.all([tx.query(KEY_LOCK, [key]), this.moved(current, next, noticeId, tx, true)]))[1];
    if (on) return (await locked(on)) ?? this.missed(current, on);
    // Alone (the push's answer): BEGIN, the lock, the move and COMMIT in one round trip; a move
    // that found the payment moved reads it as it stands once that has committed.
    return (await this.db.transactionInOneTrip(locked)) ?? this.missed(current, this.db);
  }

  private async move(
    current: PaymentRecord,
    next: PaymentRecord,
    noticeId: string | undefined,
    on: Queryable,
  ): Promise<PaymentTransitionResult> {
    return (await this.moved(current, next, noticeId, on)) ?? this.missed(current, on);
  }

  /** A compare-and-set that found the payment moved: the payment as it stands. */
  private async missed(current: PaymentRecord, on: Queryable): Promise<PaymentTransitionResult> {
    return {
      ok: false,
      current: await this.one('SELECT record FROM payments WHERE id = $1', [current.id], on),
    };
  }

  /** The compare-and-set's one statement: the transition written, or null when the payment had moved. */
  private async moved(
    current: PaymentRecord,
    next: PaymentRecord,
    noticeId: string | undefined,
    on: Queryable,
    learnsKey = false,
  ): Promise<PaymentTransitionResult | null> {
    const at = this.clock().toISOString();
    const written: PaymentRecord = { ...next, version: current.version + 1, updatedAt: at };
    const refundState = REFUND_ROW_STATE[written.state];
    const refund = written.refund;
    let refundStep = '';
    let refundParams: unknown[] = [];
    if (refund && refundState && current.refund === null) {
      refundStep = `, refund AS (
         INSERT INTO payment_refunds (id, payment_id, purchase_id, state, currency, amount_minor, reason,
           provider_reference, requested_at, updated_at, decided_at)
         SELECT $12, moved.id, moved.purchase_id, $13, $14, $15, $16, $17, $18, $7, $19 FROM moved
       )`;
      refundParams = [
        refund.id,
        refundState,
        refund.amount.currency,
        refund.amount.minor,
        refund.reason,
        refund.providerReference,
        refund.requestedAt,
        refund.decidedAt,
      ];
    } else if (refund && refundState) {
      refundStep = `, refund AS (
         UPDATE payment_refunds r SET state = $13, provider_reference = $14, updated_at = $7, decided_at = $15
           FROM moved WHERE r.payment_id = moved.id AND r.id = $12
       )`;
      refundParams = [refund.id, refundState, refund.providerReference, refund.decidedAt];
    }
    let noticeStep = '';
    if (noticeId !== undefined)
      noticeStep = `, noted AS (
         UPDATE payment_notices n SET payment_id = moved.id, outcome = 'applied'
           FROM moved WHERE n.id = $${12 + refundParams.length}
       )`;
    // Under the key's lock: the notices that named the key before this payment had it.
    const earlyStep = learnsKey
      ? `, (SELECT coalesce(json_agg(json_build_object('id', n.id::text, 'notice', n.notice) ORDER BY n.id), '[]')
             FROM payment_notices n
            WHERE n.payment_id IS NULL AND n.provider = $${12 + refundParams.length + (noticeId === undefined ? 0 : 1)}
              AND n.provider_reference = moved.provider_reference AND n.kind = 'payment') AS early`
      : '';
    try {
      const moved = await on.query<
        Row & {
          purchase_id: string | null;
          purchase_state: PurchaseState;
          confirm_attempts: number;
          early?: UnmatchedNotice[];
        }
      >(
        `WITH moved AS (
           UPDATE payments
              SET state = $3, version = version + 1, provider_reference = $4, receipt = $5, reason = $6,
                  updated_at = $7, decided_at = $8, record = $9
            WHERE id = $1 AND version = $2 AND state = $10
           RETURNING id, version, purchase_id, provider_reference, record
         ), logged AS (
           INSERT INTO payment_transitions (payment_id, version, from_state, to_state, at, patch)
           SELECT id, version, $10, $3, $7, $11 FROM moved
         )${refundStep}${noticeStep}
         SELECT moved.record, p.id AS purchase_id, p.state AS purchase_state,
                coalesce((p.record ->> 'confirmAttempts')::int, 0) AS confirm_attempts${earlyStep}
           FROM moved LEFT JOIN purchases p ON p.id = moved.purchase_id`,
        [
          current.id,
          current.version,
          written.state,
          written.providerReference,
          written.receipt,
          written.reason,
          at,
          written.decidedAt,
          JSON.stringify(written),
          current.state,
          JSON.stringify(changedFields(current, written)),
          ...refundParams,
          ...(noticeId === undefined ? [] : [noticeId]),
          ...(learnsKey ? [current.provider] : []),
        ],
      );
      const [row] = moved.rows;
      if (row)
        return {
          ok: true,
          record: row.record,
          purchase:
            row.purchase_id === null
              ? null
              : { id: row.purchase_id, state: row.purchase_state, confirmAttempts: row.confirm_attempts },
          ...(learnsKey && { early: row.early ?? [] }),
        };
    } catch (error) {
      if (isRefusal(error, 'payment_refund_allowed') || isUniqueViolation(error, 'payment_refunds'))
        throw new RefundNotAllowedError(current.id, (error as Error).message);
      throw error;
    }
    return null;
  }

  /**
   * Note an `unknown` payment's re-check round due next and when: not a transition (state and
   * version stay); the sweep reads it to resume the chain where it stands.
   */
  async noteRecheck(id: string, round: number, at: string): Promise<void> {
    await this.db.query(
      `UPDATE payments SET record = record || jsonb_build_object('recheckRound', $2::int, 'recheckAt', $3::text)
        WHERE id = $1 AND state = 'unknown'`,
      [id, round, at],
    );
  }

  /**
   * What the sweep resumes, a page at a time in (requested_at, id) order: payments still waiting
   * for an answer or a refund's, and decided payments whose purchase has not been told (still
   * `created`) or was ended while the money came (`failed` with a successful payment).
   */
  async listForSweep(
    after?: { requestedAt: string; id: string },
    limit = SWEEP_PAGE,
  ): Promise<SweptPayment[]> {
    const values: unknown[] = [this.clock().toISOString(), limit];
    let cursor = '';
    if (after) {
      values.push(after.requestedAt, after.id);
      cursor = 'AND (pa.requested_at, pa.id) > ($3::timestamptz, $4::uuid)';
    }
    const result = await this.db.query<{
      record: PaymentRecord;
      purchase_state: PurchaseState;
      purchase_id: string | null;
      confirm_attempts: number | null;
      next_attempt_at: string | null;
    }>(
      `SELECT pa.record, pu.state AS purchase_state, pu.id AS purchase_id,
              pu.confirm_attempts, pu.next_attempt_at
         FROM payments pa
         JOIN LATERAL (
           SELECT state, id, coalesce((record ->> 'confirmAttempts')::int, 0) AS confirm_attempts,
                  record ->> 'nextAttemptAt' AS next_attempt_at
             FROM purchases WHERE id = pa.purchase_id
           UNION ALL
           SELECT CASE WHEN state = 'requested' THEN 'created' ELSE 'succeeded' END, NULL, NULL, NULL
             FROM agent_topups WHERE id = pa.topup_id
         ) pu ON true
        WHERE (pa.state IN ('requested', 'pending', 'refund_requested')
               OR (pa.state IN ('successful', 'failed', 'unknown') AND pu.state = 'created')
               OR (pa.state = 'successful' AND pu.state = 'failed')
               OR (pa.state = 'unknown' AND pa.record ->> 'recheckUntil' > $1))
          ${cursor}
        ORDER BY pa.requested_at, pa.id
        LIMIT $2`,
      values,
    );
    return result.rows.map((row) => ({
      payment: row.record,
      purchaseState: row.purchase_state,
      purchase:
        row.purchase_id === null
          ? null
          : {
              id: row.purchase_id,
              state: row.purchase_state,
              confirmAttempts: row.confirm_attempts ?? 0,
              nextAttemptAt: row.next_attempt_at,
            },
    }));
  }

  /**
   * Purchases that need collection, still `created`, written before `before` with no payment row:
   * never since a Buy writes the purchase and its payment in one transaction (oldest first).
   */
  async listNotStarted(before: Date, limit = SWEEP_PAGE): Promise<string[]> {
    const result = await this.db.query<{ id: string }>(
      `SELECT pu.id FROM purchases pu
        WHERE pu.state = 'created' AND pu.payment_required AND pu.created_at < $1
          AND NOT EXISTS (SELECT 1 FROM payments pa WHERE pa.purchase_id = pu.id)
        ORDER BY pu.created_at, pu.id
        LIMIT $2`,
      [before.toISOString(), limit],
    );
    return result.rows.map((row) => row.id);
  }

  /** How many payments are in each state now (the payments-by-state gauge). */
  async countByState(): Promise<Record<PaymentRecordState, number>> {
    const counts = Object.fromEntries(PAYMENT_STATES.map((s) => [s, 0])) as Record<
      PaymentRecordState,
      number
    >;
    const result = await this.db.query<{ state: PaymentRecordState; n: string }>(
      'SELECT state, count(*)::text AS n FROM payments GROUP BY state',
    );
    for (const row of result.rows) counts[row.state] = Number(row.n);
    return counts;
  }

  /**
   * Payments whose outcome nobody learnt: `unknown` with their re-checks over (`recheckUntil`
   * passed), not reviewed by a person yet, newest first, and how many there are.
   */
  async outcomeUnknown(limit: number): Promise<{ total: number; payments: PaymentRecord[] }> {
    const now = this.clock().toISOString();
    const where = `state = 'unknown' AND NOT (record ? 'review') AND coalesce(record ->> 'recheckUntil', '') <= $1`;
    const [count, list] = await Promise.all([
      this.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM payments WHERE ${where}`, [now]),
      limit > 0
        ? this.db.query<Row>(
            `SELECT record FROM payments WHERE ${where} ORDER BY requested_at DESC, id DESC LIMIT $2`,
            [now, limit],
          )
        : Promise.resolve({ rows: [] as Row[] }),
    ]);
    return { total: Number(count.rows[0]?.n ?? 0), payments: list.rows.map((row) => row.record) };
  }

  /**
   * A person looked a payment of {@link outcomeUnknown} up at the provider and says what they
   * found (`note`): noted on the record (`review`), so it leaves the list; the state stays. The
   * record as written, or null when it is no such payment any more (gone, moved on, reviewed).
   */
  async reviewOutcomeUnknown(id: string, by: string, note: string): Promise<PaymentRecord | null> {
    if (!isUuid(id)) return null;
    const at = this.clock().toISOString();
    const reviewed = await this.db.query<Row>(
      `UPDATE payments SET record = record || jsonb_build_object('review', jsonb_build_object('by', $2::text, 'at', $3::text, 'note', $4::text))
        WHERE id = $1 AND state = 'unknown' AND NOT (record ? 'review') AND coalesce(record ->> 'recheckUntil', '') <= $3
        RETURNING record`,
      [id, by, at, note],
    );
    return reviewed.rows[0]?.record ?? null;
  }

  /** Keep a provider's notice as received (before acting on it); returns its id. */
  async recordNotice(provider: string, notice: ProviderNotice): Promise<string> {
    return (await this.keepNotice(provider, notice)).id;
  }

  /** Keep a payment notice and read the payment it names, in one statement (notices.ts). */
  async keepNotice(provider: string, notice: ProviderNotice): Promise<KeptNotice> {
    return keepNotice(this.db, this.clock().toISOString(), provider, notice);
  }

  /**
   * Keep a payment notice and read the payment it names (`keepNotice`), then `work` on the same
   * transaction (its move and the notice's outcome): one commit for the callback. The key's lock
   * is taken first when the notice names a provider key (`KEY_LOCK`): a payment that does not
   * know the key once it is held learns it only after this commits, and then finds this notice.
   */
  async keepingNotice<T>(
    provider: string,
    notice: PaymentNotice,
    work: (kept: KeptNotice, tx: Queryable) => Promise<T>,
  ): Promise<T> {
    return this.db.transaction(async (tx) => {
      // Sent together, the lock first (one round trip): the server takes it before it keeps the notice.
      const [, kept] = await Promise.all([
        notice.providerReference && tx.query(KEY_LOCK, [keyLockName(provider, notice.providerReference)]),
        keepNotice(tx, this.clock().toISOString(), provider, notice),
      ]);
      return work(kept, tx);
    });
  }

  /**
   * What became of a kept notice: the payment it named (null: none yet) and how it was taken.
   * `applied` is final: a notice handled twice (the callback's re-read and the push answer's
   * early-notice look can both find it) keeps the word for what it did.
   */
  async settleNotice(
    id: string,
    paymentId: string | null,
    outcome: NoticeOutcome,
    on: Queryable = this.db,
  ): Promise<void> {
    await on.query(
      `UPDATE payment_notices SET payment_id = $2, outcome = $3
        WHERE id = $1 AND outcome IS DISTINCT FROM 'applied'`,
      [id, paymentId, outcome],
    );
  }

  /** Keep a payment notice already settled for its payment (notices.ts `keepSettledNotice`); its id. */
  async keepSettledNotice(
    provider: string,
    notice: PaymentNotice,
    paymentId: string,
    outcome: NoticeOutcome,
  ): Promise<string> {
    return keepSettledNotice(this.db, this.clock().toISOString(), provider, notice, paymentId, outcome);
  }

  /** A payment's success notices waiting for its provider's status query, oldest first. */
  async unverifiedNotices(paymentId: string): Promise<UnmatchedNotice[]> {
    return unverifiedNotices(this.db, paymentId);
  }

  /** Payment notices that named this provider key before any payment of ours had it, oldest first. */
  async unmatchedNotices(provider: string, providerReference: string): Promise<UnmatchedNotice[]> {
    return unmatchedNotices(this.db, provider, providerReference);
  }

  /** The one unmatched success notice of a payment whose provider key was never written (notices.ts). */
  async lostPaymentNotice(payment: PaymentRecord, marginMs: number): Promise<LostNoticeMatch> {
    return lostPaymentNotice(this.db, payment, marginMs);
  }

  /**
   * Success notices no payment of ours took, received more than `olderThanMs` ago: the newest
   * `limit`, and how many in all (notices.ts). Pass an age past which none can still be matched
   * (`matchableForMs`, src/payments/unmatched.ts): younger ones may yet be.
   */
  async unmatchedSuccesses(
    olderThanMs: number,
    limit: number,
  ): Promise<{ total: number; notices: UnmatchedSuccess[] }> {
    return unmatchedSuccesses(this.db, new Date(this.clock().getTime() - olderThanMs).toISOString(), limit);
  }

  /**
   * Care closes an unmatched success notice once it has dealt with the money (`note`: what it
   * did), in one compare-and-set (notices.ts). Only a notice received more than `olderThanMs` ago
   * is taken: pass `matchableForMs` (src/payments/unmatched.ts), as a younger one may still be
   * taken by a payment that confirms or refunds it itself.
   */
  async resolveUnmatched(
    id: string,
    operator: string,
    note: string,
    olderThanMs: number,
  ): Promise<UnmatchedResolution> {
    const now = this.clock();
    return resolveUnmatched(this.db, {
      id,
      at: now.toISOString(),
      by: operator,
      note,
      receivedBefore: new Date(now.getTime() - olderThanMs).toISOString(),
    });
  }

  /** Payments in `states`, oldest change first (care's queue of refunds that need a person). */
  async listByStates(states: readonly PaymentRecordState[], limit: number): Promise<PaymentRecord[]> {
    const result = await this.db.query<Row>(
      'SELECT record FROM payments WHERE state = ANY($1) ORDER BY requested_at, id LIMIT $2',
      [states, limit],
    );
    return result.rows.map((row) => row.record);
  }

  /** The payments a provider's receipt (an M-Pesa receipt number) names: care's search. */
  async listByReceipt(receipt: string): Promise<PaymentRecord[]> {
    const result = await this.db.query<Row>(
      'SELECT record FROM payments WHERE receipt = $1 ORDER BY requested_at DESC LIMIT 20',
      [receipt],
    );
    return result.rows.map((row) => row.record);
  }

  /** Every notice kept for a payment, oldest first (for care). */
  async noticesOf(paymentId: string): Promise<{ outcome: NoticeOutcome; notice: ProviderNotice }[]> {
    return noticesOf(this.db, paymentId);
  }

  private async one(text: string, params: unknown[], on: Queryable = this.db): Promise<PaymentRecord | null> {
    const result = await on.query<Row>(text, params);
    return result.rows[0]?.record ?? null;
  }
}
