import type { Locales } from '../../i18n';
import type { Queryable } from '../../records/database';
import { componentLogger } from '../../observability/logger';
import { PurchaseNotSettledError, type PurchaseNotifier } from '../hand-over';
import { SETTLED_STATES } from '../store/store';
import { composeAgentReceipt, composeOutcomeSms, type ComposedSms, type PaidWith } from './compose';
import type { Money } from '../../vas/money';
import type { PurchaseRecord } from '../types';
import type { CareContact } from '../care/settings';
import { messageId, type Message } from '../../messaging/message';
import type { SmsQueue } from '../../messaging/queue';

const log = componentLogger('sms-notify');

export interface NotifierOptions {
  queue: SmsQueue;
  locales: Locales;
  /** Sender id / short code put in `OutboundSms.from` (drivers fall back to their own). */
  senderId?: string;
  /**
   * A field agent's float for the receipt of its sale, read after the lifecycle settled the sale
   * (null: funded by an account). Absent: agents get no receipt.
   */
  floatOf?(msisdn: string): Promise<Money | null>;
  /** What a settled sale earned its agent, for the receipt (null: none). */
  commissionOf?(record: PurchaseRecord): Promise<Money | null>;
  /**
   * The buyer's mobile-money payment for a purchase (its SMS say what was paid or asked), or null;
   * `on`: read inside the outcome's transaction (no commit of its own).
   */
  paidWith?(purchaseId: string, on?: Queryable): Promise<PaidWith | null>;
  /** Customer care's number and hours every failure SMS ends with (`CARE_PHONE`); absent: none. */
  care?: CareContact | null;
}

/** Compose the outcome SMS per recipient and queue each under `<purchaseId>:<requestKey>:<recipient>`. */
export function createNotifier({
  queue,
  locales,
  senderId,
  floatOf,
  commissionOf,
  paidWith,
  care,
}: NotifierOptions): PurchaseNotifier {
  const paidOf = async (record: PurchaseRecord, on?: Queryable) =>
    record.intent.paymentRequired ? await paidWith?.(record.id, on) : null;
  /** What the outcome SMS say beyond the record and its payment (an agent's float): read first. */
  const factsOf = async (record: PurchaseRecord) => {
    const agent = record.intent.agent;
    const float = agent && floatOf ? await floatOf(agent.msisdn) : undefined;
    const commission = agent && floatOf ? ((await commissionOf?.(record)) ?? null) : null;
    return (settled: PurchaseRecord, paid: PaidWith | null | undefined) => {
      const messages = composeOutcomeSms(settled, locales, paid, care);
      if (float !== undefined) {
        const receipt = composeAgentReceipt(settled, locales, float, commission);
        if (receipt) messages.push(receipt);
      }
      return messages;
    };
  };
  const asMessage = (record: PurchaseRecord, requestKey: string, sms: ComposedSms) => ({
    id: messageId(record.id, requestKey, sms.to),
    kind: sms.kind,
    purchaseId: record.id,
    to: sms.to,
    ...(senderId !== undefined && { from: senderId }),
    message: sms.message,
  });
  const logQueued = (record: PurchaseRecord, reason: string, recipients: number, queued: number) =>
    log.info('purchase outcome sms queued', {
      purchaseId: record.id,
      state: record.state,
      reason,
      recipients,
      queued,
    });
  return {
    async notify(record, reason, requestKey, recipients) {
      if (!SETTLED_STATES.includes(record.state)) throw new PurchaseNotSettledError(record.id, record.state);
      if (requestKey === '') throw new Error('notify needs a non-empty requestKey');
      const messages = (await factsOf(record))(record, await paidOf(record));
      let queued = 0;
      const chosen = recipients ? messages.filter((sms) => recipients.includes(sms.to)) : messages;
      for (const sms of chosen) if (await queue.enqueue(asMessage(record, requestKey, sms))) queued += 1;
      logQueued(record, reason, chosen.length, queued);
    },
    async prepare(expected) {
      const compose = await factsOf(expected);
      return {
        async stage(record, requestKey, tx) {
          if (!SETTLED_STATES.includes(record.state))
            throw new PurchaseNotSettledError(record.id, record.state);
          const staged: Message[] = [];
          for (const sms of compose(record, await paidOf(record, tx))) {
            const message = asMessage(record, requestKey, sms);
            if (await queue.stage(message, tx)) staged.push(message);
          }
          return async () => {
            for (const message of staged) await queue.start(message);
            logQueued(record, 'settled', staged.length, staged.length);
          };
        },
      };
    },
  };
}
