import type { Config } from '../../../config';
import { AfricasTalkingSender, type AfricasTalkingConfig } from './africastalking/driver';
import { HttpSmsSender, type HttpSmsConfig } from './http/driver';
import { OutboxSender, type OutboxStore } from './outbox/driver';
import type { SmsSender } from './sender';
import { SmppSender, type SmppConfig } from './smpp/driver';

export type { OutboundSms, SendOutcome, SmsSender } from './sender';
export { MemoryOutboxStore, RedisOutboxStore, outboxRouter, OutboxSender } from './outbox/driver';
export type { OutboxEntry, OutboxQuery, OutboxStore } from './outbox/driver';
export type { AfricasTalkingConfig } from './africastalking/driver';
export type { HttpSmsConfig } from './http/driver';
export type { DeliveryReceipt, SmppConfig } from './smpp/driver';
export { AfricasTalkingSender, HttpSmsSender, SmppSender };

/** `SMS_DRIVER` and that driver's settings. */
export type SmsSenderConfig =
  | { driver: 'outbox' }
  | ({ driver: 'africastalking' } & AfricasTalkingConfig)
  | ({ driver: 'smpp' } & SmppConfig)
  | ({ driver: 'http' } & HttpSmsConfig);

export interface SmsSenderDeps {
  /** Where the outbox driver keeps messages (memory in the embedded mode, Redis otherwise). */
  outbox: OutboxStore;
  now?: () => Date;
}

/** The configured driver. An SMPP sender starts connecting at once; call `close()` on shutdown. */
export function createSmsSender(config: SmsSenderConfig, deps: SmsSenderDeps): SmsSender {
  switch (config.driver) {
    case 'outbox':
      return new OutboxSender(deps.outbox, deps.now);
    case 'africastalking':
      return new AfricasTalkingSender(config);
    case 'smpp':
      return new SmppSender(config);
    case 'http':
      return new HttpSmsSender(config);
  }
}

/** Driver settings from the application config, with the timeouts the config does not carry. */
export function smsSenderConfigFrom(sms: Omit<Config['sms'], 'retry'>): SmsSenderConfig {
  const from = sms.senderId;
  const timeoutMs = 10_000;
  switch (sms.driver) {
    case 'outbox':
      return { driver: 'outbox' };
    case 'africastalking':
      if (!sms.africastalking) throw new Error('SMS_DRIVER=africastalking needs AT_USERNAME and AT_API_KEY');
      return { driver: 'africastalking', ...sms.africastalking, from, timeoutMs };
    case 'smpp':
      if (!sms.smpp) throw new Error('SMS_DRIVER=smpp needs SMPP_HOST, SMPP_SYSTEM_ID and SMPP_PASSWORD');
      return { driver: 'smpp', ...sms.smpp, sourceAddr: from ?? 'INFO', enquireLinkMs: 30_000 };
    case 'http':
      if (!sms.http) throw new Error('SMS_DRIVER=http needs SMS_HTTP_URL');
      return { driver: 'http', url: sms.http.url, bearerToken: sms.http.token, from, timeoutMs };
  }
}
