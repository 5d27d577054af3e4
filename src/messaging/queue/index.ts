export { type SmsQueue, DurableSmsQueue, MAX_SMS_REVIVALS } from './queue';
export { InProcessSmsQueue, type InProcessSmsQueueOptions } from './in-process';
export { BullmqSmsQueue, SMS_QUEUE_NAME, type BullmqSmsQueueOptions } from './bullmq';
export { DeliveryReports, MAX_DELIVERY_RETRIES, type DeliveryOutcome } from './deliveries';
export { DEFAULT_SMS_RETRY_POLICY, smsRetryDelay, type SmsRetryPolicy } from './retry';
