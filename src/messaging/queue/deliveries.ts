import type { DeliveryReport } from '../sender';
import { componentLogger, maskMsisdn } from '../../observability/logger';
import type { DeliveryAction, DeliveryNote, MessageKind, MessageRecord } from '../message';
import type { MessageStore } from '../store/store';
import type { SmsQueue } from './queue';
import { smsRetryDelay, type SmsRetryPolicy } from './retry';

const log = componentLogger('sms-delivery');

/** A sent copy that did not reach the phone is sent again at most this many times. */
export const MAX_DELIVERY_RETRIES = 3;

/** A reply that did not reach the phone is only recorded: the subscriber asks again. */
const NOT_REDELIVERED: readonly MessageKind[] = ['sms-reply'];

/** What a delivery report did (`kept`: its message is not known yet, kept until it is). */
export type DeliveryOutcome = 'kept' | 'recorded' | 'retrying' | 'given-up';

/**
 * The rule for a report on the copy a message carries: a failed `sent` copy of a kind that is
 * re-delivered is sent again while failures stay within MAX_DELIVERY_RETRIES and attempts are
 * left, else given up; anything else is only noted. Shared by the report route and the write
 * that marks a copy sent (which applies a report that came first).
 */
export function deliveryAction(
  record: MessageRecord,
  delivery: Pick<DeliveryNote, 'state'>,
  attemptsLeft: boolean,
): DeliveryAction {
  if (delivery.state !== 'failed' || NOT_REDELIVERED.includes(record.kind) || record.status !== 'sent')
    return 'note';
  return (record.deliveryFailures ?? 0) + 1 <= MAX_DELIVERY_RETRIES && attemptsLeft ? 'retry' : 'giveup';
}

/** What to log of a message. */
const smsFields = (record: MessageRecord) => ({
  smsId: record.id,
  kind: record.kind,
  purchaseId: record.purchaseId,
  to: maskMsisdn(record.to),
});

/**
 * Delivery reports on outgoing SMS: kept on the message (the admin view shows them), and a
 * message the provider could not deliver (a token SMS, a receipt) is sent again within the retry
 * policy, then left `undelivered` for an operator. Replies to SMS commands are only recorded.
 * A report that comes before the gateway has written the provider's id of its message (the
 * provider reported before its answer to the send was read) is kept by the store and applied by
 * that write (`attemptDelivery`), so it is never dropped as unknown.
 */
export class DeliveryReports {
  constructor(
    private readonly store: MessageStore,
    private readonly queue: Pick<SmsQueue, 'redeliver'>,
    private readonly policy: SmsRetryPolicy,
    private readonly onReport: (state: DeliveryReport['state']) => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async record(report: DeliveryReport): Promise<DeliveryOutcome> {
    this.onReport(report.state);
    const at = this.now();
    const delivery: DeliveryNote = {
      state: report.state,
      providerStatus: report.providerStatus,
      failureReason: report.failureReason,
      at: at.toISOString(),
    };
    const result = await this.store.recordReport(
      report.providerMessageId,
      delivery,
      (record) => deliveryAction(record, delivery, record.attempts < this.policy.attempts),
      at,
    );
    if (result.kind === 'kept') {
      log.info('delivery report before its message was known: kept until its send is written', {
        provider: report.provider,
        state: report.state,
      });
      return 'kept';
    }
    const { record, action } = result;
    const fields = { ...smsFields(record), status: report.providerStatus };
    const failures = record.deliveryFailures ?? 0;
    if (action === 'retry' && record.status === 'queued') {
      log.warn('sms came back undelivered: sending it again', {
        ...fields,
        reason: report.failureReason,
        failures,
      });
      await this.queue.redeliver(record, smsRetryDelay(failures, this.policy));
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
