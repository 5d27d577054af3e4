import { componentLogger, maskMsisdn } from '../../observability/logger';
import type { SendOutcome, SmsSender } from '../../channels/sms/outbound/sender';
import type { NotificationStore } from './store';
import type { SmsNotification } from './types';
import { FINAL_NOTIFICATION_STATUSES } from './types';

const log = componentLogger('sms-notify');

/** What the queue should do after one attempt. */
export type AttemptResult =
  | { kind: 'done'; status: 'sent' | 'rejected' | 'undelivered' | 'already-final' }
  | { kind: 'retry'; reason: string; retryAfterMs?: number };

export interface AttemptContext {
  sender: SmsSender;
  store: NotificationStore;
  /** True when this is the last attempt the policy allows: a `retry` outcome then gives up. */
  lastAttempt: boolean;
  now?: () => Date;
}

async function sendSafely(sender: SmsSender, notification: SmsNotification): Promise<SendOutcome> {
  try {
    return await sender.send({
      id: notification.id,
      to: notification.to,
      from: notification.from,
      message: notification.message,
      purchaseId: notification.purchaseId,
    });
  } catch (err) {
    // Drivers promise not to throw; one that does is treated as a transient failure, never a loss.
    return { status: 'retry', reason: `driver threw: ${(err as Error).message}` };
  }
}

/**
 * One delivery attempt of a notification, shared by both queues. The status is written
 * `sending` before the driver is called and `sent` right after it accepts, so a job that runs
 * again (a retry, or a stalled job after a crash) never re-sends a notification the store knows
 * was sent. The window left is a crash between the provider accepting and `sent` being written:
 * the next run sends again with the same `OutboundSms.id`, which drivers pass on for de-duplication.
 */
export async function attemptDelivery(
  notification: SmsNotification,
  ctx: AttemptContext,
): Promise<AttemptResult> {
  const now = ctx.now ?? (() => new Date());
  const fields = {
    smsId: notification.id,
    purchaseId: notification.purchaseId,
    to: maskMsisdn(notification.to),
  };
  const before = await ctx.store.get(notification.id);
  if (before && FINAL_NOTIFICATION_STATUSES.includes(before.status)) {
    log.info('sms notification already final, not sending', { ...fields, status: before.status });
    return { kind: 'done', status: 'already-final' };
  }
  if (before?.status === 'sending') {
    log.warn(
      'sms notification was being sent when its worker stopped; sending again with the same id',
      fields,
    );
  }
  const attempts = (before?.attempts ?? 0) + 1;
  await ctx.store.update(notification.id, { status: 'sending', attempts }, now());

  const outcome = await sendSafely(ctx.sender, notification);
  switch (outcome.status) {
    case 'sent':
      await ctx.store.update(
        notification.id,
        {
          status: 'sent',
          providerMessageId: outcome.providerMessageId ?? null,
          sentAt: now().toISOString(),
          lastError: null,
        },
        now(),
      );
      if (outcome.providerMessageId)
        await ctx.store.linkProviderMessage(outcome.providerMessageId, notification.id);
      log.info('sms notification sent', { ...fields, attempts, driver: ctx.sender.name });
      return { kind: 'done', status: 'sent' };
    case 'rejected':
      await ctx.store.update(notification.id, { status: 'rejected', lastError: outcome.reason }, now());
      log.error(
        'SMS NOTIFICATION REJECTED by the provider: the subscriber did not get it; resend after fixing',
        {
          ...fields,
          attempts,
          driver: ctx.sender.name,
          reason: outcome.reason,
        },
      );
      return { kind: 'done', status: 'rejected' };
    case 'retry':
      if (ctx.lastAttempt) {
        await ctx.store.update(notification.id, { status: 'undelivered', lastError: outcome.reason }, now());
        log.error('SMS NOTIFICATION UNDELIVERED after every retry: the subscriber did not get it; resend', {
          ...fields,
          attempts,
          driver: ctx.sender.name,
          reason: outcome.reason,
        });
        return { kind: 'done', status: 'undelivered' };
      }
      await ctx.store.update(notification.id, { status: 'queued', lastError: outcome.reason }, now());
      log.warn('sms notification not sent yet, will retry', {
        ...fields,
        attempts,
        driver: ctx.sender.name,
        reason: outcome.reason,
        retryAfterMs: outcome.retryAfterMs,
      });
      return { kind: 'retry', reason: outcome.reason, retryAfterMs: outcome.retryAfterMs };
  }
}
