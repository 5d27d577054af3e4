import type { DeliveryReport } from '../../channels/sms/inbound/types';
import { componentLogger, maskMsisdn } from '../../observability/logger';
import type { SmsJobQueue } from './queue';
import { smsRetryDelay, type SmsRetryPolicy } from './retry';
import type { NotificationStore } from './store';
import type { DeliveryAction } from './types';

const log = componentLogger('sms-delivery');

/** A sent copy that did not reach the phone is sent again at most this many times. */
export const MAX_DELIVERY_RETRIES = 3;

/** What a delivery report did. */
export type DeliveryOutcome = 'unknown-message' | 'recorded' | 'retrying' | 'given-up';

/**
 * Delivery reports on outgoing SMS: kept on the notification (the admin view shows them), and a
 * token SMS the provider could not deliver is sent again within the retry policy, then left
 * `undelivered` for an operator. Replies to SMS commands are only recorded.
 */
export class DeliveryReports {
  constructor(
    private readonly store: NotificationStore,
    private readonly queue: Pick<SmsJobQueue, 'redeliver'>,
    private readonly policy: SmsRetryPolicy,
    private readonly onReport: (state: DeliveryReport['state']) => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async record(report: DeliveryReport): Promise<DeliveryOutcome> {
    this.onReport(report.state);
    const record = await this.store.findByProviderMessage(report.providerMessageId);
    if (!record) {
      log.info('delivery report for an unknown message', { provider: report.provider, state: report.state });
      return 'unknown-message';
    }
    const isReply = record.purchaseId.startsWith('mo:');
    const failures = (record.deliveryFailures ?? 0) + 1;
    const action: DeliveryAction =
      report.state !== 'failed' || isReply || record.status !== 'sent'
        ? 'note'
        : failures <= MAX_DELIVERY_RETRIES && record.attempts < this.policy.attempts
          ? 'retry'
          : 'giveup';
    const at = this.now();
    const updated = await this.store.recordDelivery(
      record.id,
      {
        state: report.state,
        providerStatus: report.providerStatus,
        failureReason: report.failureReason,
        at: at.toISOString(),
      },
      action,
      at,
    );
    const fields = {
      smsId: record.id,
      purchaseId: record.purchaseId,
      to: maskMsisdn(record.to),
      status: report.providerStatus,
    };
    if (action === 'retry' && updated?.status === 'queued') {
      log.warn('sms came back undelivered: sending it again', {
        ...fields,
        reason: report.failureReason,
        failures,
      });
      await this.queue.redeliver(updated, smsRetryDelay(failures, this.policy));
      return 'retrying';
    }
    if (action === 'giveup') {
      log.error('SMS NOT DELIVERED to the phone after every retry: resend after checking the number', {
        ...fields,
        reason: report.failureReason,
        failures,
      });
      return 'given-up';
    }
    return 'recorded';
  }
}
