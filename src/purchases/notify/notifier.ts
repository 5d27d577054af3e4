import type { Locales } from '../../i18n';
import { componentLogger } from '../../observability/logger';
import { PurchaseNotSettledError, type PurchaseNotifier } from '../lifecycle';
import { SETTLED_STATES } from '../store/store';
import { composeAgentReceipt, composeOutcomeSms } from './compose';
import type { PurchaseRecord } from '../types';
import type { Money } from '../../vas/money';
import type { SmsJobQueue } from './queue';
import { notificationId } from './types';

const log = componentLogger('sms-notify');

export interface NotifierOptions {
  queue: SmsJobQueue;
  locales: Locales;
  /** Sender id / short code put in `OutboundSms.from` (drivers fall back to their own). */
  senderId?: string;
  /**
   * Field agents' sales: settle (or release) the agent's float hold before anyone is told, and
   * the float after it for the agent's receipt (null: funded by an account).
   */
  agents?: { settle(record: PurchaseRecord): Promise<void>; floatOf(msisdn: string): Promise<Money | null> };
}

/** Compose the outcome SMS per recipient and queue each under `<purchaseId>:<requestKey>:<recipient>`. */
export function createNotifier({ queue, locales, senderId, agents }: NotifierOptions): PurchaseNotifier {
  return {
    async notify(record, reason, requestKey) {
      if (!SETTLED_STATES.includes(record.state)) throw new PurchaseNotSettledError(record.id, record.state);
      if (requestKey === '') throw new Error('notify needs a non-empty requestKey');
      const messages = composeOutcomeSms(record, locales);
      const agent = record.intent.agent;
      if (agent && agents) {
        // Idempotent per purchase: a notify run again (crash, resend) settles nothing twice.
        await agents.settle(record);
        const receipt = composeAgentReceipt(record, locales, await agents.floatOf(agent.msisdn));
        if (receipt) messages.push(receipt);
      }
      let queued = 0;
      for (const sms of messages) {
        const added = await queue.enqueue({
          id: notificationId(record.id, requestKey, sms.to),
          purchaseId: record.id,
          to: sms.to,
          ...(senderId !== undefined && { from: senderId }),
          message: sms.message,
        });
        if (added) queued += 1;
      }
      log.info('purchase outcome sms queued', {
        purchaseId: record.id,
        state: record.state,
        reason,
        recipients: messages.length,
        queued,
      });
    },
  };
}
