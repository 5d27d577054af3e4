import { keyPart, keyPrefix } from '../../redis/keys';

/**
 * Every Redis key of the SMS-MO conversation, built here and nowhere else, all under `sms:mo:`.
 * A sender's keys share the hash tag `{<msisdn>}` (one Cluster slot per sender); an inbound
 * message id is tagged by itself.
 */
export interface SmsMoKeys {
  /** Marker that a provider's message id was processed (48 h). */
  seen(provider: string, messageId: string): string;
  /** Marker of a sender's recent text without a message id (seconds; cleared by the reply). */
  recent(msisdn: string, digest: string): string;
  /** Inbound messages of a sender in one minute window. */
  inbound(msisdn: string, minute: number): string;
  /** Replies to a sender in one minute window. */
  replies(msisdn: string, minute: number): string;
  /** The sender's conversation: the pending quote and the recently bought ones (JSON). */
  quotes(msisdn: string): string;
}

export function smsMoKeys(prefix: string): SmsMoKeys {
  const base = `${keyPrefix(prefix)}sms:mo:`;
  return {
    seen: (provider, messageId) => `${base}seen:{${provider}:${keyPart(messageId)}}`,
    recent: (msisdn, digest) => `${base}{${msisdn}}:recent:${digest}`,
    inbound: (msisdn, minute) => `${base}{${msisdn}}:in:${minute}`,
    replies: (msisdn, minute) => `${base}{${msisdn}}:out:${minute}`,
    quotes: (msisdn) => `${base}{${msisdn}}:quotes`,
  };
}
