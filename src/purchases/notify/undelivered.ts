import { createHash } from 'node:crypto';
import { componentLogger, maskMsisdn } from '../../observability/logger';
import { PurchaseNotFoundError } from '../hand-over';
import { messageId, type MessageRecord } from '../../messaging/message';
import type { MessageStore } from '../../messaging/store/store';

/**
 * The operator's view of SMS the subscriber did not get — refused by the provider (a 4xx while
 * it was misconfigured) or given up after every retry — and their resend in bulk once the
 * provider is fixed. Shared by `/admin/sms/undelivered` and `npm run cli -- sms`. The view is
 * the outgoing SMS store's; what is purchase-specific is the resend.
 *
 * A resend is the care action "resend the outcome SMS" (`desk.resendSms`) for the one
 * recipient that did not get it, under a request key derived from the failed SMS's id. So:
 * - the same failed SMS always resends as the same message id, which the store creates once:
 *   two operators resending at once, or a resend run again after a crash, queue it once and it
 *   is sent once;
 * - the resends go out oldest first, so a subscriber's tokens arrive in the order bought;
 * - the other recipients of the purchase (who got theirs) get nothing again.
 */

const log = componentLogger('sms-notify');

export const DEFAULT_UNDELIVERED_LIMIT = 50;
const NO_PURCHASE = 'no purchase to resend from (an SMS reply, or purged)';
export const MAX_UNDELIVERED_LIMIT = 500;

/** The care action this resends through: the purchase's outcome SMS, to these numbers only. */
export type ResendSms = (
  purchaseId: string,
  requestKey: string,
  recipients: readonly string[],
) => Promise<void>;

/** What a bulk resend did with each SMS of the view it read. */
export interface ResendReport {
  /** Queued again (the view no longer lists them). */
  resent: { smsId: string; purchaseId: string; to: string; resentAs: string }[];
  /** Taken out of the view without a resend: resent already, delivered since, or not a purchase's SMS. */
  skipped: { smsId: string; purchaseId?: string; to: string; reason: string }[];
  /** Left in the view: the resend could not be queued (try again). */
  failed: { smsId: string; purchaseId: string; to: string; error: string }[];
}

/** The request key of the resend of one failed SMS: always the same for it, short, of no secret. */
export function undeliveredResendKey(smsId: string): string {
  return `undelivered-${createHash('sha256').update(smsId).digest('hex').slice(0, 16)}`;
}

export class UndeliveredSms {
  constructor(
    private readonly store: Pick<
      MessageStore,
      'get' | 'listByPurchase' | 'listUndelivered' | 'countUndelivered' | 'dismissUndelivered'
    >,
    private readonly resendSms: ResendSms,
  ) {}

  /** The oldest `limit` SMS of the view, and how many it holds in all. */
  async list(limit = DEFAULT_UNDELIVERED_LIMIT): Promise<{ total: number; sms: MessageRecord[] }> {
    const [total, sms] = await Promise.all([
      this.store.countUndelivered(),
      this.store.listUndelivered(limit),
    ]);
    return { total, sms };
  }

  /** Resend the oldest `limit` SMS of the view, one after the other (their order is the tokens' order). */
  async resend(limit = DEFAULT_UNDELIVERED_LIMIT): Promise<ResendReport> {
    const report: ResendReport = { resent: [], skipped: [], failed: [] };
    for (const sms of await this.store.listUndelivered(limit)) {
      const purchaseId = sms.purchaseId;
      if (purchaseId === undefined) {
        // An SMS reply: no purchase to compose it from again.
        await this.store.dismissUndelivered(sms.id);
        report.skipped.push({ smsId: sms.id, to: sms.to, reason: NO_PURCHASE });
        continue;
      }
      const fields = { smsId: sms.id, purchaseId, to: sms.to };
      const requestKey = undeliveredResendKey(sms.id);
      const copyId = messageId(purchaseId, requestKey, sms.to);
      const skip = await this.noResendNeeded(sms, purchaseId, copyId);
      if (skip) {
        await this.store.dismissUndelivered(sms.id);
        report.skipped.push({ ...fields, reason: skip });
        continue;
      }
      try {
        await this.resendSms(purchaseId, requestKey, [sms.to]);
      } catch (error) {
        if (error instanceof PurchaseNotFoundError) {
          // A purchase past its retention.
          await this.store.dismissUndelivered(sms.id);
          report.skipped.push({ ...fields, reason: NO_PURCHASE });
          continue;
        }
        const message = (error as Error).message;
        report.failed.push({ ...fields, error: message });
        log.error('undelivered sms not resent: left in the view', {
          ...fields,
          to: maskMsisdn(sms.to),
          error: message,
        });
        continue;
      }
      if (!(await this.store.get(copyId))) {
        report.failed.push({ ...fields, error: 'the purchase has no SMS for this number to resend' });
        continue;
      }
      await this.store.dismissUndelivered(sms.id);
      report.resent.push({ ...fields, resentAs: copyId });
      log.warn('undelivered sms resent by an operator', {
        ...fields,
        to: maskMsisdn(sms.to),
        resentAs: copyId,
      });
    }
    return report;
  }

  /** Why this SMS needs no resend (its resend exists, or the number got a later copy), or null. */
  private async noResendNeeded(
    sms: MessageRecord,
    purchaseId: string,
    copyId: string,
  ): Promise<string | null> {
    if (await this.store.get(copyId)) return `resent already as ${copyId}`;
    const later = (await this.store.listByPurchase(purchaseId)).find(
      (other) => other.to === sms.to && other.status === 'sent' && other.createdAt > sms.createdAt,
    );
    return later ? `delivered since as ${later.id}` : null;
  }
}
