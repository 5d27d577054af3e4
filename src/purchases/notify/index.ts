export { composeOutcomeSms, type ComposedSms } from './compose';
export { createNotifier, type NotifierOptions } from './notifier';
export { PurchaseNotSettledError, type PurchaseNotifier, type NotifyReason } from '../lifecycle';
export { InProcessSmsQueue, type InProcessSmsQueueOptions, type SmsJobQueue } from './queue';
export { BullmqSmsQueue, SMS_QUEUE_NAME, type BullmqSmsQueueOptions } from './bullmq-queue';
export { MemoryNotificationStore, RedisNotificationStore, type NotificationStore } from './store';
export { DEFAULT_SMS_RETRY_POLICY, smsRetryDelay, type SmsRetryPolicy } from './retry';
export {
  notificationId,
  type NotificationRecord,
  type NotificationStatus,
  type SmsNotification,
} from './types';
