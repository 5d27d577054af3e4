import { keyPrefix } from '../../redis/keys';

/**
 * Every Redis key of the outbox, built here and nowhere else, all under `sms:` (beside the
 * notification records). Every key carries the hash tag `{outbox}`: the add script writes the
 * list of all entries and a recipient's list together, so all sit in one Redis Cluster slot
 * (the outbox is a development driver; one slot is plenty).
 */
export interface OutboxKeys {
  /** Marker that an entry id was stored (expires). */
  marker(id: string): string;
  /** All entries, newest first (capped list). */
  all(): string;
  /** One recipient's entries, newest first (capped list, expires). */
  recipient(msisdn: string): string;
}

export function outboxKeys(prefix: string): OutboxKeys {
  const base = `${keyPrefix(prefix)}sms:{outbox}`;
  return {
    marker: (id) => `${base}:id:${id}`,
    all: () => `${base}:entries`,
    recipient: (msisdn) => `${base}:to:${msisdn}`,
  };
}
