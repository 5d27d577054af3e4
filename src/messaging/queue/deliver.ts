import { componentLogger, maskMsisdn } from '../../observability/logger';
import { FINAL_MESSAGE_STATUSES, type Message } from '../message';
import type { SendOutcome, SmsSender } from '../sender';
import type { MessageStore } from '../store/store';
import { deliveryAction } from './deliveries';

const log = componentLogger('sms-notify');

/** What the queue should do after one attempt. */
export type AttemptResult =
  | { kind: 'done'; status: 'sent' | 'rejected' | 'undelivered' | 'already-final' }
  | { kind: 'retry'; reason: string; retryAfterMs?: number };

export interface AttemptContext {
  sender: SmsSender;
  store: MessageStore;
  /** True when this is the last attempt the policy allows: a `retry` outcome then gives up. */
  lastAttempt: boolean;
  /**
   * The message's record was written claimed for this attempt (`SmsQueue.stage`): no claim of its
   * own. Only a first run of a staged message's job, never a retry or a revived job.
   */
  claimed?: boolean;
  now?: () => Date;
}

async function sendSafely(sender: SmsSender, sms: Message): Promise<SendOutcome> {
  try {
    return await sender.send({
      id: sms.id,
      to: sms.to,
      from: sms.from,
      message: sms.message,
      ...(sms.purchaseId !== undefined && { purchaseId: sms.purchaseId }),
    });
  } catch (err) {
    // Drivers promise not to throw; one that does is treated as a transient failure, never a loss.
    return { status: 'retry', reason: `driver threw: ${(err as Error).message}` };
  }
}

/**
 * One delivery attempt of a message, shared by both queues. The status is written `sending`
 * before the driver is called and `sent` right after it accepts, so a job that runs again (a
 * retry, or a stalled job after a crash) never re-sends a message the store knows was sent. The window left is a crash between the provider accepting and `sent` being written:
 * the next run sends again with the same `OutboundSms.id`, which drivers pass on for de-duplication.
 * A delivery report that came before `sent` was written was kept by the store and is applied by
 * that write: a failure makes this attempt a `retry` (the resend, scheduled here once).
 */
export async function attemptDelivery(sms: Message, ctx: AttemptContext): Promise<AttemptResult> {
  const now = ctx.now ?? (() => new Date());
  const fields = {
    smsId: sms.id,
    // A job queued before messages had kinds carries none (its record has one).
    kind: sms.kind,
    purchaseId: sms.purchaseId,
    to: maskMsisdn(sms.to),
  };
  // The read and the `sending` mark are one statement (one commit before the send), or were
  // written with the message (`claimed`: it committed with its outcome, `sending`).
  const { previous, record } = ctx.claimed
    ? { previous: 'queued' as const, record: null }
    : await ctx.store.claim(sms.id, now());
  if (previous && FINAL_MESSAGE_STATUSES.includes(previous)) {
    log.info('sms notification already final, not sending', { ...fields, status: previous });
    return { kind: 'done', status: 'already-final' };
  }
  if (previous === 'sending') {
    log.warn(
      'sms notification was being sent when its worker stopped; sending again with the same id',
      fields,
    );
  }
  const attempts = record?.attempts ?? 1;

  const outcome = await sendSafely(ctx.sender, sms);
  switch (outcome.status) {
    case 'sent': {
      // One write: `sent`, the provider's ids (each part's, when it reports per part) linked, and
      // the reports on them that came first (the provider reported before its answer was read)
      // applied — a failure of any part sends the whole SMS again.
      const { early } = await ctx.store.markSent(
        sms.id,
        outcome.providerMessageIds ?? [],
        (record, delivery) => deliveryAction(record, delivery, !ctx.lastAttempt),
        now(),
      );
      log.info('sms notification sent', { ...fields, attempts, driver: ctx.sender.name });
      if (early?.action === 'retry') {
        const reason = `delivery failed: ${early.delivery.failureReason || early.delivery.providerStatus}`;
        log.warn('sms came back undelivered before its send was written: sending it again', {
          ...fields,
          status: early.delivery.providerStatus,
          reason: early.delivery.failureReason,
        });
        return { kind: 'retry', reason };
      }
      if (early?.action === 'giveup') {
        log.error('SMS NOT DELIVERED to the phone after every retry: resend after checking the number', {
          ...fields,
          status: early.delivery.providerStatus,
          reason: early.delivery.failureReason,
        });
        return { kind: 'done', status: 'undelivered' };
      }
      return { kind: 'done', status: 'sent' };
    }
    case 'rejected':
      await ctx.store.update(sms.id, { status: 'rejected', lastError: outcome.reason }, now());
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
        await ctx.store.update(sms.id, { status: 'undelivered', lastError: outcome.reason }, now());
        log.error('SMS NOTIFICATION UNDELIVERED after every retry: the subscriber did not get it; resend', {
          ...fields,
          attempts,
          driver: ctx.sender.name,
          reason: outcome.reason,
        });
        return { kind: 'done', status: 'undelivered' };
      }
      await ctx.store.update(sms.id, { status: 'queued', lastError: outcome.reason }, now());
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
