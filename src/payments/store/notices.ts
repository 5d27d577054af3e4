import type { Queryable } from '../../records/database';
import type { Money } from '../../vas/money';
import type { PaymentNotice, ProviderNotice } from '../port';
import { isUuid } from './rows';
import type { PaymentRecord } from './types';

/**
 * Providers' notices as received (`payment_notices`): kept before they are acted on, then noted
 * with what became of them. SqlPaymentStore's door to them; a notice applied by a transition is
 * noted by the transition's own statement (`SqlPaymentStore.transition`'s `noticeId`).
 */
export type NoticeOutcome =
  | 'unmatched'
  | 'applied'
  | 'duplicate'
  | 'mismatch'
  | 'ignored'
  /** A success the provider does not stand behind: its status query decides (migration 0029). */
  | 'unverified'
  /** A success its provider's status query said was not paid: never applied. */
  | 'refuted'
  /** A success the provider's status gave after a failure had decided the payment: kept for care. */
  | 'overruled';

/** A notice kept, with the payment it names (null: none of ours yet, or a refund's notice). */
export interface KeptNotice {
  id: string;
  payment: PaymentRecord | null;
}

export interface UnmatchedNotice {
  id: string;
  notice: ProviderNotice;
}

/**
 * Keep a notice as received and read the payment it names in the same statement: by our reference
 * when it is one of ours, else by the provider's key. A refund's notice is only kept.
 */
export async function keepNotice(
  db: Queryable,
  at: string,
  provider: string,
  notice: ProviderNotice,
): Promise<KeptNotice> {
  const payment = notice.type === 'payment';
  const reference = payment ? notice.reference : notice.refundReference;
  const result = await db.query<{ id: string; ours: PaymentRecord | null; theirs: PaymentRecord | null }>(
    `WITH kept AS (
       INSERT INTO payment_notices (received_at, provider, kind, reference, provider_reference, outcome, notice)
       VALUES ($1, $2, $3, $4, $5, 'unmatched', $6) RETURNING id::text
     )
     SELECT kept.id,
            (SELECT record FROM payments WHERE id = $7::uuid) AS ours,
            (SELECT record FROM payments WHERE provider = $2 AND provider_reference = $8) AS theirs
       FROM kept`,
    [
      at,
      provider,
      notice.type,
      reference ?? null,
      notice.providerReference ?? null,
      JSON.stringify(notice),
      payment && reference && isUuid(reference) ? reference : null,
      payment ? (notice.providerReference ?? null) : null,
    ],
  );
  const row = result.rows[0];
  return { id: row.id, payment: row.ours ?? row.theirs ?? null };
}

/**
 * Keep a payment notice already settled for `paymentId` with `outcome`, in one statement (never
 * seen unmatched): a success the provider's status gave that the payment no longer took.
 */
export async function keepSettledNotice(
  db: Queryable,
  at: string,
  provider: string,
  notice: PaymentNotice,
  paymentId: string,
  outcome: NoticeOutcome,
): Promise<string> {
  const result = await db.query<{ id: string }>(
    `INSERT INTO payment_notices (received_at, provider, kind, reference, provider_reference, payment_id, outcome, notice)
     VALUES ($1, $2, 'payment', $3, $4, $5, $6, $7) RETURNING id::text`,
    [
      at,
      provider,
      notice.reference ?? null,
      notice.providerReference ?? null,
      paymentId,
      outcome,
      JSON.stringify(notice),
    ],
  );
  return result.rows[0].id;
}

/** Payment notices that named this provider key before any payment of ours had it, oldest first. */
export async function unmatchedNotices(
  db: Queryable,
  provider: string,
  providerReference: string,
): Promise<UnmatchedNotice[]> {
  const result = await db.query<UnmatchedNotice>(
    `SELECT id::text, notice FROM payment_notices
      WHERE payment_id IS NULL AND provider = $1 AND provider_reference = $2 AND kind = 'payment'
      ORDER BY id`,
    [provider, providerReference],
  );
  return result.rows;
}

/** A payment's success notices waiting for its provider's status query, oldest first. */
export async function unverifiedNotices(db: Queryable, paymentId: string): Promise<UnmatchedNotice[]> {
  const result = await db.query<UnmatchedNotice>(
    `SELECT id::text, notice FROM payment_notices
      WHERE payment_id = $1 AND outcome = 'unverified' ORDER BY id`,
    [paymentId],
  );
  return result.rows;
}

/** Every notice kept for a payment, oldest first (for care). */
export async function noticesOf(
  db: Queryable,
  paymentId: string,
): Promise<{ outcome: NoticeOutcome; notice: ProviderNotice }[]> {
  const result = await db.query<{ outcome: NoticeOutcome; notice: ProviderNotice }>(
    'SELECT outcome, notice FROM payment_notices WHERE payment_id = $1 ORDER BY id',
    [paymentId],
  );
  return result.rows;
}

/** What `lostPaymentNotice` found: the one notice that fits, or how many notices and payments did. */
export type LostNoticeMatch =
  { found: true; notice: UnmatchedNotice } | { found: false; notices: number; payments: number };

/**
 * The unmatched success notice of a payment whose push answer (the provider's key) was never
 * written: same provider, payer number and amount, received inside the payment's window
 * (requested → expiry + `marginMs`), naming no key any payment holds (a faster callback of another push). Found
 * only when exactly one notice fits and exactly one open payment without a key fits that notice;
 * otherwise nothing, with the counts (a person must look). A notice without the payer's number
 * never fits: the amount alone is no proof.
 */
export async function lostPaymentNotice(
  db: Queryable,
  payment: Pick<PaymentRecord, 'provider' | 'payerMsisdn' | 'amount' | 'requestedAt' | 'expiresAt'>,
  marginMs: number,
): Promise<LostNoticeMatch> {
  const result = await db.query<UnmatchedNotice & { notices: string; payments: string }>(
    `WITH fits AS (
       SELECT n.id, n.notice, n.received_at FROM payment_notices n
        WHERE n.payment_id IS NULL AND n.outcome = 'unmatched' AND n.kind = 'payment' AND n.provider = $1
          AND n.notice ->> 'state' = 'successful' AND n.notice ->> 'payerMsisdn' = $2
          AND n.notice -> 'amount' ->> 'currency' = $3 AND (n.notice -> 'amount' ->> 'minor')::bigint = $4
          AND n.received_at >= $5::timestamptz AND n.received_at <= $6::timestamptz + $7 * interval '1 millisecond'
          AND NOT EXISTS (SELECT 1 FROM payments p
                           WHERE p.provider = n.provider AND p.provider_reference = n.provider_reference)
     )
     SELECT fits.id::text, fits.notice,
            (SELECT count(*) FROM fits)::text AS notices,
            (SELECT count(*) FROM payments p
              WHERE p.provider = $1 AND p.provider_reference IS NULL
                AND p.state IN ('requested', 'pending', 'unknown')
                AND p.payer_msisdn = $2 AND p.currency = $3 AND p.amount_minor = $4
                AND fits.received_at >= p.requested_at
                AND fits.received_at <= p.expires_at + $7 * interval '1 millisecond')::text AS payments
       FROM fits ORDER BY fits.id LIMIT 2`,
    [
      payment.provider,
      payment.payerMsisdn,
      payment.amount.currency,
      payment.amount.minor,
      payment.requestedAt,
      payment.expiresAt,
      marginMs,
    ],
  );
  const rows = result.rows;
  if (rows.length === 1 && rows[0].payments === '1')
    return { found: true, notice: { id: rows[0].id, notice: rows[0].notice } };
  return {
    found: false,
    notices: rows.length === 0 ? 0 : Number(rows[0].notices),
    payments: rows.length === 0 ? 0 : Number(rows[0].payments),
  };
}

/**
 * A success notice no payment of ours took: the provider says a buyer paid and nothing here will
 * confirm or refund it. What a person needs to find the money at the provider, never its secrets
 * nor the provider's free text (`detail`).
 */
export interface UnmatchedSuccess {
  id: string;
  provider: string;
  receivedAt: string;
  /**
   * Why no payment took it: `no_payment` (it names none of ours); or a payment of ours that is
   * `unknown` or `failed` did not take it: `mismatch` (another amount, currency or reference),
   * `overruled` (the provider's status said paid after a failure had decided the payment),
   * `unverified` (the provider's status never confirmed nor refuted the callback).
   */
  why: UntakenWhy;
  /** The payment it was for, and that payment's state now (null for `no_payment`). */
  paymentId: string | null;
  paymentState: string | null;
  /** The provider's key (Daraja's CheckoutRequestID, MoMo's X-Reference-Id), when it gave one. */
  providerReference: string | null;
  /** Our reference, when the provider echoed one (MoMo externalId, the generic provider). */
  reference: string | null;
  amount: Money | null;
  /** The provider's receipt for the money (the M-Pesa receipt a reversal needs). */
  receipt: string | null;
  payerMsisdn: string | null;
}

export type UntakenWhy = 'no_payment' | 'mismatch' | 'overruled' | 'unverified';

/**
 * The success notices care sees, on `payment_notices n` (the 0017 and 0029 partial indexes hold
 * exactly them): none of ours took it, or a payment of ours that the money did not decide
 * (`unknown`, `failed`) did not take it. `$AGE` is replaced by the cut-off parameter.
 */
const UNTAKEN = `n.kind = 'payment' AND n.notice ->> 'state' = 'successful' AND n.resolved_at IS NULL
  AND n.received_at < $AGE::timestamptz
  AND ((n.payment_id IS NULL AND n.outcome = 'unmatched')
    OR (n.payment_id IS NOT NULL AND n.outcome IN ('mismatch', 'overruled', 'unverified')
        AND EXISTS (SELECT 1 FROM payments p WHERE p.id = n.payment_id AND p.state IN ('unknown', 'failed'))))`;

const WHY = `CASE WHEN n.payment_id IS NULL THEN 'no_payment' ELSE n.outcome END`;
const PAYMENT_STATE = `(SELECT p.state FROM payments p WHERE p.id = n.payment_id)`;

/** A notice as care reads it from `payment_notices` (the listing's and the resolution's rows). */
interface NoticeRow {
  id: string;
  provider: string;
  why: UntakenWhy;
  payment_id: string | null;
  payment_state: string | null;
  received_at: Date | string;
  provider_reference: string | null;
  reference: string | null;
  amount: Money | null;
  receipt: string | null;
  payer_msisdn: string | null;
}

/**
 * Unmatched success notices received before `receivedBefore` and not resolved by care: the newest
 * `limit` of them, and how many there are in all (`limit` 0: only the count). They are few (most
 * are matched within seconds), and the partial index `payment_notices_unresolved` (migration
 * 0017) holds only them.
 */
export async function unmatchedSuccesses(
  db: Queryable,
  receivedBefore: string,
  limit: number,
): Promise<{ total: number; notices: UnmatchedSuccess[] }> {
  const result = await db.query<Omit<NoticeRow, 'id'> & { total: number; id: string | null }>(
    `WITH unmatched AS (
       SELECT n.id, n.received_at, n.provider, n.reference, n.provider_reference, n.notice,
              ${WHY} AS why, n.payment_id::text AS payment_id, ${PAYMENT_STATE} AS payment_state
         FROM payment_notices n
        WHERE ${UNTAKEN.replace('$AGE', '$1')}
     ), shown AS (
       SELECT * FROM unmatched ORDER BY received_at DESC, id DESC LIMIT $2
     )
     -- One row even when none is shown, to carry the count.
     SELECT (SELECT count(*) FROM unmatched)::int AS total, shown.id::text, shown.provider,
            shown.why, shown.payment_id, shown.payment_state,
            shown.received_at, shown.provider_reference, shown.reference, shown.notice -> 'amount' AS amount,
            shown.notice ->> 'receipt' AS receipt, shown.notice ->> 'payerMsisdn' AS payer_msisdn
       FROM (SELECT 1) AS one LEFT JOIN shown ON true
      ORDER BY shown.received_at DESC, shown.id DESC`,
    [receivedBefore, limit],
  );
  const total = Number(result.rows[0]?.total ?? 0);
  const notices = result.rows
    .filter((row) => row.id !== null)
    .map((row) => ({
      id: row.id as string,
      provider: row.provider,
      why: row.why,
      paymentId: row.payment_id,
      paymentState: row.payment_state,
      receivedAt: new Date(row.received_at).toISOString(),
      providerReference: row.provider_reference,
      reference: row.reference,
      amount: row.amount,
      receipt: row.receipt,
      payerMsisdn: row.payer_msisdn,
    }));
  return { total, notices };
}

/** An unmatched success notice care has closed: who closed it, when, and what was done. */
export interface ResolvedUnmatched extends UnmatchedSuccess {
  resolution: { by: string; at: string; note: string };
}

/** Why a notice was not resolved (nothing was changed). */
export type UnmatchedRefusal =
  /** No notice has that id. */
  | { refusal: 'not_found' }
  /** Care resolved it already. */
  | { refusal: 'already_resolved'; resolution: { by: string; at: string } }
  /** Not money nobody holds: a payment took it, or it is a decline or a refund's result. */
  | {
      refusal: 'not_unmatched_success';
      outcome: NoticeOutcome;
      kind: string;
      state: string | null;
      paymentId: string | null;
    }
  /** Received after `receivedBefore`: a payment of ours may still take it. */
  | { refusal: 'still_matchable'; receivedAt: string };

export type UnmatchedResolution =
  { resolved: true; notice: ResolvedUnmatched } | ({ resolved: false } & UnmatchedRefusal);

/** A notice id as the table has them (bigserial); anything else names no notice. */
const NOTICE_ID = /^[1-9]\d{0,17}$/;

interface ResolvedRow extends NoticeRow {
  resolved_at: Date | string;
  resolved_by: string;
  resolution: string;
}

/**
 * Close an unmatched success notice received before `receivedBefore`: one compare-and-set on all
 * its conditions (no payment, `unmatched`, a payment's success, not resolved yet), so two
 * operators, or an operator and the payment that takes it, cannot both win. When nothing was
 * written, the notice is read again to say why.
 */
export async function resolveUnmatched(
  db: Queryable,
  input: { id: string; at: string; by: string; note: string; receivedBefore: string },
): Promise<UnmatchedResolution> {
  if (!NOTICE_ID.test(input.id)) return { resolved: false, refusal: 'not_found' };
  // A refused write is explained by the read after it; should that read find the notice
  // resolvable after all (it changed in between), the write is tried once more.
  for (let pass = 0; pass < 2; pass++) {
    const written = await db.query<ResolvedRow>(
      `UPDATE payment_notices n SET resolved_at = $2, resolved_by = $3, resolution = $4
        WHERE n.id = $1 AND ${UNTAKEN.replace('$AGE', '$5')}
       RETURNING n.id::text, n.provider, ${WHY} AS why, n.payment_id::text AS payment_id,
                 ${PAYMENT_STATE} AS payment_state, n.received_at, n.provider_reference, n.reference,
                 n.notice -> 'amount' AS amount, n.notice ->> 'receipt' AS receipt,
                 n.notice ->> 'payerMsisdn' AS payer_msisdn, n.resolved_at, n.resolved_by, n.resolution`,
      [input.id, input.at, input.by, input.note, input.receivedBefore],
    );
    const row = written.rows[0];
    if (row)
      return {
        resolved: true,
        notice: {
          id: row.id,
          provider: row.provider,
          why: row.why,
          paymentId: row.payment_id,
          paymentState: row.payment_state,
          receivedAt: new Date(row.received_at).toISOString(),
          providerReference: row.provider_reference,
          reference: row.reference,
          amount: row.amount,
          receipt: row.receipt,
          payerMsisdn: row.payer_msisdn,
          resolution: {
            by: row.resolved_by,
            at: new Date(row.resolved_at).toISOString(),
            note: row.resolution,
          },
        },
      };
    const refusal = await refusalOf(db, input.id, input.receivedBefore);
    if (refusal) return { resolved: false, ...refusal };
  }
  throw new Error(`payment notice ${input.id} could not be resolved nor its refusal read`);
}

/** Why notice `id` cannot be resolved now; null when it can (it changed since the write looked). */
async function refusalOf(
  db: Queryable,
  id: string,
  receivedBefore: string,
): Promise<UnmatchedRefusal | null> {
  const found = await db.query<{
    payment_id: string | null;
    outcome: NoticeOutcome;
    kind: string;
    state: string | null;
    received_at: Date | string;
    resolved_at: Date | string | null;
    resolved_by: string | null;
    early: boolean;
    untaken: boolean;
  }>(
    `SELECT n.payment_id::text, n.outcome, n.kind, n.notice ->> 'state' AS state, n.received_at,
            n.resolved_at, n.resolved_by, n.received_at >= $2::timestamptz AS early,
            (${UNTAKEN.replace('$AGE', "'infinity'")}) AS untaken
       FROM payment_notices n WHERE n.id = $1`,
    [id, receivedBefore],
  );
  const n = found.rows[0];
  if (!n) return { refusal: 'not_found' };
  if (n.resolved_at !== null)
    return {
      refusal: 'already_resolved',
      resolution: { by: n.resolved_by ?? '', at: new Date(n.resolved_at).toISOString() },
    };
  if (!n.untaken)
    return {
      refusal: 'not_unmatched_success',
      outcome: n.outcome,
      kind: n.kind,
      state: n.state,
      paymentId: n.payment_id,
    };
  if (n.early) return { refusal: 'still_matchable', receivedAt: new Date(n.received_at).toISOString() };
  return null;
}
