import { africasTalkingDriver } from './africastalking/driver';
import { httpDriver } from './http/driver';
import { outboxDriver } from './outbox/driver';
import type { SmsConfig, SmsDriver, SmsSender, SmsSenderDeps } from './sender';
import type { SmsDriverName } from './settings';
import { smppDriver } from './smpp/driver';

/**
 * Every outbound SMS driver, by its `SMS_DRIVER` name: one line each. The keys must be exactly
 * the names the config accepts (`SMS_DRIVERS` in settings.ts), so a name without a driver, or a
 * driver without a name, does not compile.
 */
export const smsDrivers = {
  outbox: outboxDriver,
  africastalking: africasTalkingDriver,
  smpp: smppDriver,
  http: httpDriver,
} satisfies Record<SmsDriverName, DriverRow>;

/** Any row of the table, whatever its settings. */
interface DriverRow {
  settings(sms: SmsConfig): object;
  create(settings: never, deps: SmsSenderDeps): SmsSender;
}

type Drivers = typeof smsDrivers;

/** A driver's name and its settings, e.g. `{ driver: 'smpp', host, port, ... }`. */
export type SmsSenderConfig = {
  [Name in SmsDriverName]: { driver: Name } & ReturnType<Drivers[Name]['settings']>;
}[SmsDriverName];

/** Driver settings from the application config, with the timeouts the config does not carry. */
export function smsSenderConfigFrom(sms: SmsConfig): SmsSenderConfig {
  return { driver: sms.driver, ...smsDrivers[sms.driver].settings(sms) } as SmsSenderConfig;
}

/** The configured driver. An SMPP sender starts connecting at once; call `close()` on shutdown. */
export function createSmsSender(config: SmsSenderConfig, deps: SmsSenderDeps): SmsSender {
  const { driver, ...settings } = config;
  // The union is correlated by `driver`; TypeScript cannot follow it through the index.
  const row = smsDrivers[driver] as SmsDriver<typeof settings>;
  return row.create(settings, deps);
}
