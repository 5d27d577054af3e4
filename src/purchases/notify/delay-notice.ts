import { messageId } from '../../messaging/message';
import type { SmsQueue } from '../../messaging/queue';
import { transliterate, type Locales } from '../../i18n';
import { componentLogger } from '../../observability/logger';
import type { Database } from '../../records/database';
import { formatMoney } from '../../vas/money';
import type { PurchaseRecord, PurchaseState } from '../types';
import type { ComposedSms } from './compose';
import { openRecord } from '../store/sealed';

const log = componentLogger('sms-notify');

/** On their way, with nothing told yet (`needs_attention` has an SMS of its own). */
const WITHOUT_OUTCOME: readonly PurchaseState[] = ['created', 'confirming', 'unknown', 'reconciling'];

/** A claim whose SMS was not queued this long after is taken again (its sender died). */
export const STALE_CLAIM_MS = 60_000;

/** Purchases a sweep looks at, oldest first. */
const SWEEP_LIMIT = 200;

export interface DelayNoticeOptions {
  db: Database;
  queue: Pick<SmsQueue, 'enqueue'>;
  locales: Locales;
  senderId?: string;
  /** `DELAY_NOTICE_S` in ms: how long a purchase may go without an outcome before the SMS; 0: never. */
  afterMs: number;
  clock?: () => Date;
}

/**
 * The SMS to the buyer of a purchase still without an outcome after `DELAY_NOTICE_S`: "taking
 * longer than usual; do not pay again", in the purchase's language. Null when it is not a
 * purchase to tell (it has an outcome).
 */
export function composeDelayNotice(record: PurchaseRecord, locales: Locales): ComposedSms | null {
  if (!WITHOUT_OUTCOME.includes(record.state)) return null;
  const lang = locales.resolve(record.intent.language);
  const message = locales.t(lang, 'sms.delayNotice', {
    product: locales.t(lang, `product.${record.intent.productType}`),
    identifier: record.intent.subscriberIdentifier,
    amount: formatMoney(record.intent.amount),
    reference: record.externalReference,
  });
  return { kind: 'purchase-outcome', to: record.intent.requesterMsisdn, message: transliterate(message) };
}

/**
 * Tells the buyer once when a purchase is late, run by the workers' sweep. Once per
 * purchase, whatever the number of instances: a row of `delay_notices` is the claim (its primary
 * key refuses a second) and the SMS goes under a fixed message id (the queue records an id once),
 * so a claim whose sender died before queuing is taken again after a minute, still one SMS.
 */
export class DelayNotices {
  private readonly clock: () => Date;

  constructor(private readonly options: DelayNoticeOptions) {
    this.clock = options.clock ?? (() => new Date());
  }

  /** One pass: the late purchases not told yet; returns how many SMS it queued. */
  async sweep(): Promise<number> {
    const { db, afterMs } = this.options;
    if (afterMs <= 0) return 0;
    const now = this.clock();
    // A paid purchase is late from its first confirm (before it, the buyer is still paying).
    const late = await db.query<{ record: PurchaseRecord }>(
      `SELECT p.record FROM purchases p
        WHERE p.state = ANY($1)
          AND (CASE WHEN p.payment_required THEN (p.record ->> 'confirmSentAt')::timestamptz
                    ELSE p.created_at END) <= $2
          AND NOT EXISTS (SELECT 1 FROM delay_notices d WHERE d.purchase_id = p.id
                           AND (d.queued_at IS NOT NULL OR d.claimed_at > $3))
        ORDER BY p.created_at LIMIT $4`,
      [
        [...WITHOUT_OUTCOME],
        new Date(now.getTime() - afterMs).toISOString(),
        new Date(now.getTime() - STALE_CLAIM_MS).toISOString(),
        SWEEP_LIMIT,
      ],
    );
    let queued = 0;
    for (const { record } of late.rows) if (await this.tell(openRecord(db.sealer, record), now)) queued += 1;
    return queued;
  }

  /** Claim the purchase's notice (still without an outcome), then queue it; false when another has it. */
  private async tell(record: PurchaseRecord, now: Date): Promise<boolean> {
    const { db, queue, locales, senderId } = this.options;
    const claimed = await db.query(
      `INSERT INTO delay_notices (purchase_id, claimed_at)
       SELECT id, $2 FROM purchases WHERE id = $1 AND state = ANY($3)
       ON CONFLICT (purchase_id) DO UPDATE SET claimed_at = EXCLUDED.claimed_at
         WHERE delay_notices.queued_at IS NULL AND delay_notices.claimed_at <= $4
       RETURNING purchase_id`,
      [
        record.id,
        now.toISOString(),
        [...WITHOUT_OUTCOME],
        new Date(now.getTime() - STALE_CLAIM_MS).toISOString(),
      ],
    );
    if (claimed.rows.length === 0) return false;
    const sms = composeDelayNotice(record, locales);
    if (!sms) return false;
    await queue.enqueue({
      id: messageId(record.id, 'delay', sms.to),
      kind: sms.kind,
      purchaseId: record.id,
      to: sms.to,
      message: sms.message,
      ...(senderId !== undefined && { from: senderId }),
    });
    await db.query('UPDATE delay_notices SET queued_at = $2 WHERE purchase_id = $1', [
      record.id,
      now.toISOString(),
    ]);
    log.info('purchase taking longer: buyer told not to pay again', {
      purchaseId: record.id,
      state: record.state,
      externalReference: record.externalReference,
    });
    return true;
  }
}
