import { randomUUID } from 'node:crypto';
import { componentLogger, maskMsisdn } from '../../observability/logger';
import { textMarker } from '../mo/conversation';
import type { SeenKey, SmsMoStore } from '../mo/store';
import type { InboundJob, InboundSmsQueue } from './queue';
import type { InboundSms, ScreenedSms } from './types';

const log = componentLogger('sms-inbound');

/** Providers re-deliver an unacknowledged message for up to a day: ids are remembered 48 h. */
export const MESSAGE_ID_MEMORY_MS = 48 * 3600 * 1000;
/** Without an id, the same sender and text within this window is the same message. */
export const SAME_TEXT_WINDOW_MS = 10_000;

/**
 * The key a message is processed (and replied to) under, and the marker that de-duplicates it.
 * `sms` is the screened message: a marker derived from its text never holds a PIN.
 */
export function messageKey(sms: InboundSms): { key: string; marker: SeenKey } {
  if (sms.messageId !== null)
    return {
      key: `${sms.provider}:${sms.messageId}`,
      marker: { provider: sms.provider, messageId: sms.messageId },
    };
  // No id: each message is its own job, but the same text from the same sender within seconds
  // is a re-delivery (the marker is cleared once it is answered, so a second BAL is answered).
  return { key: `${sms.provider}:anon-${randomUUID()}`, marker: textMarker(sms.from, sms.text) };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * The message with every lone UTF-16 surrogate (a JSON `\ud800` escape, a spoilt UCS-2 PDU)
 * replaced by U+FFFD, as UTF-8 storage would: Redis's Lua JSON decoder refuses such an escape,
 * so a reply or receipt naming the message could never be stored.
 */
function wellFormed(sms: InboundSms): InboundSms {
  const fields = [sms.messageId, sms.from, sms.to, sms.text, sms.receivedAt];
  if (!fields.some((field) => field !== null && field.search(LONE_SURROGATE) !== -1)) return sms;
  const fix = (text: string) => text.replace(LONE_SURROGATE, '\ufffd');
  return {
    ...sms,
    messageId: sms.messageId === null ? null : fix(sms.messageId),
    from: fix(sms.from),
    to: fix(sms.to),
    text: fix(sms.text),
    receivedAt: fix(sms.receivedAt),
  };
}

/**
 * Where the inbound routes hand messages: de-duplicated, then queued for the conversation. A
 * re-delivered message is acknowledged and dropped: no second reply, no second purchase.
 */
export class SmsIntake {
  constructor(
    private readonly store: SmsMoStore,
    private readonly queue: InboundSmsQueue,
    /** Removes agents' PINs before anything is kept, checks them once the message is new (absent: messages pass as they are). */
    private readonly pins?: { screen(sms: InboundSms): Promise<ScreenedSms> },
  ) {}

  async accept(received: InboundSms): Promise<'queued' | 'duplicate'> {
    // The PINs go first: the duplicate marker of a message without an id is derived from its text.
    const clean = wellFormed(received);
    const screened = this.pins ? await this.pins.screen(clean) : { sms: clean, checked: async () => clean };
    const { sms } = screened;
    const { key, marker } = messageKey(sms);
    const byId = 'provider' in marker;
    const ttl = byId ? MESSAGE_ID_MEMORY_MS : SAME_TEXT_WINDOW_MS;
    if (!(await this.store.firstSight(marker, ttl))) {
      // The marker goes before the job (the PIN is checked once the message is known new), so a
      // process killed between them leaves a marker without its job: the provider's retry takes
      // it over. The job id is the message key and the queue keeps it as long as the marker, so
      // a message queued once — even if answered and gone — is never queued again.
      if (!byId || (await this.queue.has({ key, sms }))) {
        log.info('inbound sms already received: dropped', { smsKey: key, from: maskMsisdn(sms.from) });
        return 'duplicate';
      }
      log.warn('inbound sms seen but never queued (its intake stopped in between): queued now', {
        smsKey: key,
        from: maskMsisdn(sms.from),
      });
    }
    try {
      const safe = await screened.checked();
      await this.queue.enqueue({ key, sms: safe, ...(!byId && { marker }) });
    } catch (error) {
      // Not queued: forget it, so the provider's re-delivery (after our error answer) is taken.
      await this.store.forget(marker).catch(() => undefined);
      throw error;
    }
    return 'queued';
  }

  /** After a message was answered: a same-text marker is cleared (an id marker stays 48 h). */
  async answered(job: InboundJob): Promise<void> {
    if (job.marker) await this.store.forget(job.marker);
  }
}
