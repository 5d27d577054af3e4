import type { Database } from '../records/database';
import type { Money } from '../vas/money';
import type { ProductType } from '../vas/port';
import { parseTokens, tokensForDisplay } from '../vas/tokens';
import type { PurchaseRecord, PurchaseState } from './types';
import { openRecord } from './store/sealed';

/**
 * A number's purchases as it sees them ("My purchases"): what was delivered (the
 * token), what is still on its way (its reference, since when) and what was not completed (why) —
 * not only the succeeded ones; and, before a Buy, the purchases for that identifier still without
 * an outcome, so nobody pays twice for a token that is only late.
 */

/**
 * No outcome the subscriber can act on yet: on its way (`created` — a paid one waiting for its
 * payment too — `confirming`, `unknown`, `reconciling`) or checked by a person (`needs_attention`:
 * its SMS says "do not pay again").
 */
export const IN_PROGRESS_STATES: readonly PurchaseState[] = [
  'created',
  'confirming',
  'unknown',
  'reconciling',
  'needs_attention',
];

/** How "My purchases" shows a purchase. */
export type PurchaseStatus = 'delivered' | 'in_progress' | 'not_completed';

export interface PurchaseView {
  purchaseId: string;
  status: PurchaseStatus;
  /** The record's own state, for a screen that says more. */
  state: PurchaseState;
  productType: ProductType;
  identifier: string;
  /** The provider-verified name on the quote, or null. */
  name: string | null;
  /** What was bought, before charges. */
  amount: Money;
  /** What was paid (charges included) when the service said; else null. */
  total: Money | null;
  /** The provider's reference once delivered, else ours (what the SMS and care use). */
  reference: string;
  /** ISO: when it was bought — for `in_progress`, "since". */
  createdAt: string;
  /** `delivered`: the tokens in the order to enter them (key-change first), with their descriptions. */
  tokens: { description: string | null; value: string }[];
  units: string | null;
  /**
   * `not_completed`: why — the failure code (`reason.<code>` in the catalogues, `payment_failed`,
   * `transaction_not_found`, …) or `resolved` (closed by customer care); `in_progress`: null, or
   * `manual_check` for a purchase a person is checking.
   */
  why: string | null;
  /** `not_completed`: true when no money moved, `unknown` when that is not known. */
  notCharged: boolean | 'unknown' | null;
  /** True when this number paid for it (false: it was bought for this number by another). */
  paidByThisNumber: boolean;
  /** Bought for another number (a gift): the beneficiary; else null. */
  beneficiary: string | null;
}

export const DEFAULT_RECENT = 5;
export const MAX_RECENT = 50;

type Row = { record: PurchaseRecord };

/** A purchase as "My purchases" shows it to `msisdn`. */
export function purchaseView(record: PurchaseRecord, msisdn: string): PurchaseView {
  const { intent } = record;
  const status: PurchaseStatus =
    record.state === 'succeeded'
      ? 'delivered'
      : IN_PROGRESS_STATES.includes(record.state)
        ? 'in_progress'
        : 'not_completed';
  const tokens =
    status === 'delivered'
      ? tokensForDisplay(parseTokens(record.result?.rawToken ?? null)).map((t) => ({
          description: t.description,
          value: t.value,
        }))
      : [];
  return {
    purchaseId: record.id,
    status,
    state: record.state,
    productType: intent.productType,
    identifier: intent.subscriberIdentifier,
    name: intent.subscriberDetails ?? null,
    amount: intent.amount,
    total: record.result?.total ?? null,
    reference: record.result?.reference || record.externalReference,
    createdAt: record.createdAt,
    tokens,
    units: status === 'delivered' ? (record.result?.units ?? null) : null,
    why:
      status === 'not_completed'
        ? record.state === 'resolved'
          ? 'resolved'
          : (record.failure?.code ?? 'failed')
        : record.state === 'needs_attention'
          ? 'manual_check'
          : null,
    notCharged: status !== 'not_completed' ? null : record.failure?.charged === false ? true : 'unknown',
    paidByThisNumber: intent.requesterMsisdn === msisdn,
    beneficiary: intent.beneficiaryMsisdn !== intent.requesterMsisdn ? intent.beneficiaryMsisdn : null,
  };
}

/** The queries behind "My purchases" and the "Buy again anyway?" question, on the records. */
export class PurchaseHistory {
  constructor(private readonly db: Database) {}

  /**
   * A number's last purchases, newest first, every state: those it paid for and those bought for
   * it (a gift), not a field agent's sales to others (`agentLastSales` lists those).
   */
  async recentPurchases(msisdn: string, limit = DEFAULT_RECENT): Promise<PurchaseView[]> {
    const n = Math.min(Math.max(1, Math.trunc(limit)), MAX_RECENT);
    const result = await this.db.query<Row>(
      `SELECT record FROM purchases
        WHERE (requester_msisdn = $1 AND agent_msisdn IS NULL) OR beneficiary_msisdn = $1
        ORDER BY created_at DESC, id DESC LIMIT $2`,
      [msisdn, n],
    );
    return result.rows.map((row) => purchaseView(openRecord(this.db.sealer, row.record), msisdn));
  }

  /**
   * Purchases `msisdn` made for `identifier` that have no outcome yet (newest first): the
   * dialogue asks "still in progress (ref …). Buy again anyway?" before a second Buy.
   */
  async purchasesInProgress(msisdn: string, identifier: string): Promise<PurchaseView[]> {
    const result = await this.db.query<Row>(
      `SELECT record FROM purchases
        WHERE subscriber_identifier = $2 AND requester_msisdn = $1 AND state = ANY($3)
        ORDER BY created_at DESC, id DESC LIMIT 10`,
      [msisdn, identifier, [...IN_PROGRESS_STATES]],
    );
    return result.rows.map((row) => purchaseView(openRecord(this.db.sealer, row.record), msisdn));
  }
}
