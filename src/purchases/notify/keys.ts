import { keyPart, keyPrefix } from '../../redis/keys';
import { purchaseIdOf } from './types';

/**
 * Every Redis key of the notification store, built here and nowhere else, all under `sms:`
 * (beside the outbox). A notification and its purchase's index share the purchase id as hash
 * tag, so the create script touches one Redis Cluster slot.
 */
export interface NotificationKeys {
  /** One notification (JSON string); its id names its purchase. */
  record(id: string): string;
  /** The purchase's notifications (sorted set, score = creation ms). */
  byPurchase(purchaseId: string): string;
  /**
   * Notifications not yet final (sorted set of ids, score = creation ms), for the sweep. Its own
   * slot: it is only ever written by single-key commands, before a create and after a final update.
   */
  open(): string;
  /** The notification a provider's message id belongs to (for delivery reports). */
  byProviderId(providerMessageId: string): string;
}

export function notificationKeys(prefix: string): NotificationKeys {
  const base = `${keyPrefix(prefix)}sms:`;
  return {
    record: (id) => `${base}{${purchaseIdOf(id)}}:notification:${id}`,
    byPurchase: (purchaseId) => `${base}{${purchaseId}}:notifications`,
    open: () => `${base}{notifications}:open`,
    byProviderId: (providerMessageId) => `${base}dlr:{${keyPart(providerMessageId)}}`,
  };
}
