import { messageId } from '../../messaging/message';
import type { SmsQueue } from '../../messaging/queue';
import { transliterate, type Locales } from '../../i18n';
import { componentLogger } from '../../observability/logger';
import type { Database } from '../../records/database';
import { withCareLine } from '../notify/compose';
import type { PurchaseDesk, PurchaseRecord } from '../types';
import type { AuditTrail } from './audit';
import { CareInputError, CareNotFoundError, limitOf, noteOf } from './care';
import type { CareContact } from './settings';

/**
 * Complaint cases: a subscriber's "Report a problem" on a purchase opens a case in
 * the care queue beside the `needs_attention` purchases; its number goes to the subscriber by
 * SMS; an operator closes it with a note. Opening and closing are audited like every care action.
 * "Token not received" on a delivered purchase also sends the token again at once.
 */

const log = componentLogger('care');

export const CASE_REASONS = ['token_not_received', 'meter_rejects', 'wrong_meter', 'other'] as const;
export type CaseReason = (typeof CASE_REASONS)[number];
export type CaseState = 'open' | 'closed';

export interface CareCase {
  /** The case number the subscriber is told. */
  id: number;
  msisdn: string;
  purchaseId: string | null;
  reason: CaseReason;
  state: CaseState;
  /** The subscriber's words and the operators' notes, oldest first, one per line. */
  notes: string | null;
  createdBy: string;
  createdAt: string;
  closedBy: string | null;
  closedAt: string | null;
}

/** The case is not open (answer 409); nothing was changed. */
export class CaseStateError extends Error {
  constructor(
    readonly caseId: number,
    readonly state: CaseState,
  ) {
    super(`case ${caseId} is ${state}`);
    this.name = 'CaseStateError';
  }
}

/** No case with that number (answer 404). */
export class CaseNotFoundError extends Error {
  constructor(readonly caseId: string) {
    super(`no case ${caseId}`);
    this.name = 'CaseNotFoundError';
  }
}

type Row = {
  id: string;
  msisdn: string;
  purchase_id: string | null;
  reason: CaseReason;
  state: CaseState;
  notes: string | null;
  created_by: string;
  created_at: Date;
  closed_by: string | null;
  closed_at: Date | null;
};

const COLUMNS =
  'id::text AS id, msisdn, purchase_id, reason, state, notes, created_by, created_at, closed_by, closed_at';

const caseOf = (row: Row): CareCase => ({
  id: Number(row.id),
  msisdn: row.msisdn,
  purchaseId: row.purchase_id,
  reason: row.reason,
  state: row.state,
  notes: row.notes,
  createdBy: row.created_by,
  createdAt: new Date(row.created_at).toISOString(),
  closedBy: row.closed_by,
  closedAt: row.closed_at === null ? null : new Date(row.closed_at).toISOString(),
});

export interface OpenCase {
  /** E.164 digits of who reports (the purchase's payer or beneficiary). */
  msisdn: string;
  purchaseId?: string | null;
  reason: unknown;
  /** What the subscriber or the operator wrote, if anything. */
  note?: unknown;
  /** Who opened it: `subscriber:USSD`, `subscriber:SMS`, an admin token's label, `cli:<user>`. */
  actor: string;
}

export interface OpenedCase {
  case: CareCase;
  /** False when the same report was open already (sent twice): nothing new was sent. */
  opened: boolean;
  /** The token SMS was queued again ("Token not received" on a delivered purchase). */
  tokenResent: boolean;
}

export interface CaseDeskOptions {
  db: Database;
  purchases: Pick<PurchaseDesk, 'get' | 'resendSms'>;
  sms: Pick<SmsQueue, 'enqueue'>;
  locales: Locales;
  audit: Pick<AuditTrail, 'record'>;
  senderId?: string;
  /** `CARE_PHONE`/`CARE_HOURS`: the case SMS ends with them. */
  care?: CareContact | null;
}

export const DEFAULT_CASE_LIMIT = 50;
export const MAX_CASE_LIMIT = 500;

/** Complaint cases on the records (`care_cases`, migration 0008), shared by the dialogue, `/admin/cases` and the CLI. */
export class CaseDesk {
  constructor(private readonly options: CaseDeskOptions) {}

  /**
   * Open a case on a purchase of `msisdn` (its payer or beneficiary), send its number by SMS, and
   * for "Token not received" on a delivered purchase queue the token SMS again at once. The same
   * open report again answers the case it opened, sending nothing.
   */
  async open(input: OpenCase): Promise<OpenedCase> {
    const reason = reasonOf(input.reason);
    const note = noteOf(input.note ?? undefined, false); // null: no note, as unset
    const purchase = input.purchaseId ? await this.purchaseOf(input.purchaseId, input.msisdn) : null;
    const inserted = await this.options.db.query<Row>(
      `INSERT INTO care_cases (msisdn, purchase_id, reason, notes, created_by) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (msisdn, purchase_id, reason) WHERE state = 'open' AND purchase_id IS NOT NULL DO NOTHING
       RETURNING ${COLUMNS}`,
      [input.msisdn, purchase?.id ?? null, reason, note, input.actor],
    );
    if (inserted.rows.length === 0) {
      const existing = await this.options.db.query<Row>(
        `SELECT ${COLUMNS} FROM care_cases
          WHERE msisdn = $1 AND purchase_id = $2 AND reason = $3 AND state = 'open'`,
        [input.msisdn, purchase?.id ?? null, reason],
      );
      if (existing.rows.length === 1)
        return { case: caseOf(existing.rows[0]), opened: false, tokenResent: false };
      return this.open(input); // closed meanwhile: open a new one
    }
    const opened = caseOf(inserted.rows[0]);
    await this.options.audit.record({
      actor: input.actor,
      action: 'case_open',
      purchaseId: opened.purchaseId ?? undefined,
      note,
      detail: `case ${opened.id} ${reason}`,
    });
    let tokenResent = false;
    // A token masked after TOKEN_RETENTION_DAYS is not there to resend: the case goes to a person.
    if (
      purchase &&
      reason === 'token_not_received' &&
      purchase.state === 'succeeded' &&
      !purchase.tokenMaskedAt
    ) {
      // The care action "resend SMS", done for the subscriber at once and audited as such.
      const requestKey = `case-${opened.id}-resend`;
      await this.options.purchases.resendSms(purchase.id, requestKey);
      await this.options.audit.record({
        actor: input.actor,
        action: 'resend_sms',
        purchaseId: purchase.id,
        detail: requestKey,
      });
      tokenResent = true;
    }
    await this.tell(opened, purchase);
    log.warn('care case opened', { caseId: opened.id, purchaseId: opened.purchaseId, reason, tokenResent });
    return { case: opened, opened: true, tokenResent };
  }

  async get(id: unknown): Promise<CareCase> {
    const n = caseNumber(id);
    const found = await this.options.db.query<Row>(`SELECT ${COLUMNS} FROM care_cases WHERE id = $1`, [n]);
    if (found.rows.length === 0) throw new CaseNotFoundError(String(id));
    return caseOf(found.rows[0]);
  }

  /** Open cases oldest first (the queue), or closed ones newest first; `msisdn` narrows to one number. */
  async list(options: { state?: unknown; msisdn?: string; limit?: unknown } = {}): Promise<CareCase[]> {
    const state = options.state ?? 'open';
    if (state !== 'open' && state !== 'closed')
      throw new CareInputError('state', 'state must be open or closed');
    const limit = limitOf(options.limit, DEFAULT_CASE_LIMIT, MAX_CASE_LIMIT);
    const values: unknown[] = [state, limit];
    let where = 'state = $1';
    if (options.msisdn !== undefined) {
      values.push(options.msisdn);
      where += ` AND msisdn = $${values.length}`;
    }
    const order = state === 'open' ? 'created_at, id' : 'closed_at DESC, id DESC';
    const result = await this.options.db.query<Row>(
      `SELECT ${COLUMNS} FROM care_cases WHERE ${where} ORDER BY ${order} LIMIT $2`,
      values,
    );
    return result.rows.map(caseOf);
  }

  /** How many cases are open (the care queue's count beside `needs_attention`). */
  async countOpen(): Promise<number> {
    const result = await this.options.db.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM care_cases WHERE state = 'open'",
    );
    return Number(result.rows[0]?.n ?? 0);
  }

  /** Close an open case with a note (what was found and done). Audited (`case_close`). */
  async close(id: unknown, note: unknown, actor: string): Promise<CareCase> {
    const n = caseNumber(id);
    const text = noteOf(note, true)!;
    const closed = await this.options.db.query<Row>(
      `UPDATE care_cases SET state = 'closed', closed_by = $2, closed_at = now(),
              notes = concat_ws(E'\\n', notes, $3::text)
        WHERE id = $1 AND state = 'open' RETURNING ${COLUMNS}`,
      [n, actor, text],
    );
    if (closed.rows.length === 0) {
      const now = await this.get(n);
      throw new CaseStateError(now.id, now.state);
    }
    const done = caseOf(closed.rows[0]);
    await this.options.audit.record({
      actor,
      action: 'case_close',
      purchaseId: done.purchaseId ?? undefined,
      note: text,
      detail: `case ${done.id}`,
    });
    log.warn('care case closed', { caseId: done.id, actor });
    return done;
  }

  /** The purchase reported on: it must exist and be the reporter's (payer or beneficiary). */
  private async purchaseOf(id: string, msisdn: string): Promise<PurchaseRecord> {
    const purchase = await this.options.purchases.get(id);
    if (!purchase) throw new CareNotFoundError(id);
    if (purchase.intent.requesterMsisdn !== msisdn && purchase.intent.beneficiaryMsisdn !== msisdn)
      throw new CareInputError('purchaseId', 'the purchase is not one of this number');
    return purchase;
  }

  /** The case number by SMS, in the purchase's language (English without one), with the care line. */
  private async tell(opened: CareCase, purchase: PurchaseRecord | null): Promise<void> {
    const { locales, care, sms, senderId } = this.options;
    const lang = locales.resolve(purchase?.intent.language);
    const text = purchase
      ? locales.t(lang, 'sms.caseOpened', {
          case: opened.id,
          product: locales.t(lang, `product.${purchase.intent.productType}`),
          identifier: purchase.intent.subscriberIdentifier,
          reference: purchase.result?.reference || purchase.externalReference,
        })
      : locales.t(lang, 'sms.caseOpenedGeneral', { case: opened.id });
    await sms.enqueue({
      id: messageId(purchase?.id ?? 'case', `case-${opened.id}`, opened.msisdn),
      ...(purchase ? { kind: 'purchase-outcome', purchaseId: purchase.id } : { kind: 'sms-reply' }),
      to: opened.msisdn,
      message: transliterate(withCareLine(text, care, locales, lang)),
      ...(senderId !== undefined && { from: senderId }),
    });
  }
}

function reasonOf(raw: unknown): CaseReason {
  if (typeof raw === 'string' && (CASE_REASONS as readonly string[]).includes(raw)) return raw as CaseReason;
  throw new CareInputError('reason', `reason must be one of: ${CASE_REASONS.join(', ')}`);
}

function caseNumber(raw: unknown): number {
  const n =
    typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new CaseNotFoundError(String(raw));
  return n;
}
