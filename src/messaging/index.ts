export { createSmsSender, smsDrivers, smsSenderConfigFrom, type SmsSenderConfig } from './drivers';
export type { OutboundSms, SendOutcome, SmsConfig, SmsDriver, SmsSender, SmsSenderDeps } from './sender';
export { MemoryOutboxStore, RedisOutboxStore, outboxRouter, OutboxSender } from './outbox/driver';
export type { OutboxEntry, OutboxQuery, OutboxStore } from './outbox/driver';
export { AfricasTalkingSender, type AfricasTalkingConfig } from './africastalking/driver';
export { HttpSmsSender, type HttpSmsConfig } from './http/driver';
export { SmppSender, type DeliveryReceipt, type SmppConfig } from './smpp/driver';
export {
  FINAL_MESSAGE_STATUSES,
  MESSAGE_KINDS,
  messageId,
  UNDELIVERED_STATUSES,
  type DeliveryNote,
  type Message,
  type MessageKind,
  type MessageRecord,
  type MessageStatus,
} from './message';
export * from './queue';
export type { MessagePatch, MessageStore } from './store/store';
export { SqlMessageStore } from './store/sql';
