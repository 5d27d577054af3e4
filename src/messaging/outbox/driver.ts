import { Router } from 'express';
import { smsParts } from '../../i18n/gsm';
import { componentLogger } from '../../observability/logger';
import { maskMsisdn } from '../../phone';
import type { OutboundSms, SendOutcome, SmsDriver, SmsSender } from '../sender';
import type { OutboxEntry, OutboxStore } from './store';

export { MemoryOutboxStore, RedisOutboxStore } from './store';
export type { OutboxEntry, OutboxQuery, OutboxStore, RedisOutboxOptions } from './store';

const log = componentLogger('sms-outbox');

/** `SMS_DRIVER=outbox`: no settings; messages go to the injected outbox store. */
export const outboxDriver: SmsDriver<Record<never, never>> = {
  settings: () => ({}),
  create: (_settings, deps) => new OutboxSender(deps.outbox, deps.now),
};

/** Keeps messages in a store instead of sending them: the embedded mode's "SMS provider". */
export class OutboxSender implements SmsSender {
  readonly name = 'outbox';

  constructor(
    private readonly store: OutboxStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async send(sms: OutboundSms): Promise<SendOutcome> {
    const { parts, encoding } = smsParts(sms.message);
    const entry: OutboxEntry = {
      id: sms.id,
      to: sms.to,
      from: sms.from ?? null,
      message: sms.message,
      parts,
      encoding,
      createdAt: this.now().toISOString(),
      purchaseId: sms.purchaseId ?? null,
    };
    try {
      const stored = await this.store.add(entry);
      log.info('sms kept in outbox', {
        smsId: sms.id,
        to: maskMsisdn(sms.to),
        parts,
        encoding,
        duplicate: !stored,
      });
      return { status: 'sent', providerMessageIds: [`outbox:${sms.id}`] };
    } catch (err) {
      // A store outage must not lose the message: the caller retries.
      log.warn('outbox store failed', {
        smsId: sms.id,
        to: maskMsisdn(sms.to),
        error: (err as Error).message,
      });
      return { status: 'retry', reason: `outbox store failed: ${(err as Error).message}` };
    }
  }
}

const MAX_LIMIT = 1000;

/** `GET /dev/sms?to=<E.164 digits>&limit=<n>` → `{ messages }`, newest first. */
export function outboxRouter(store: OutboxStore): Router {
  const router = Router();
  router.get('/dev/sms', async (req, res) => {
    const to = typeof req.query.to === 'string' ? req.query.to : undefined;
    const limitRaw = typeof req.query.limit === 'string' ? req.query.limit : undefined;
    if (req.query.to !== undefined && (to === undefined || !/^\d{6,15}$/.test(to))) {
      res
        .status(400)
        .json({ error: 'to must be an E.164 number as 6 to 15 digits, without + (e.g. 26771234567)' });
      return;
    }
    if (
      req.query.limit !== undefined &&
      (limitRaw === undefined || !/^\d+$/.test(limitRaw) || Number(limitRaw) < 1)
    ) {
      res.status(400).json({ error: `limit must be a whole number from 1 to ${MAX_LIMIT}` });
      return;
    }
    const limit = limitRaw === undefined ? undefined : Math.min(Number(limitRaw), MAX_LIMIT);
    let messages: OutboxEntry[];
    try {
      messages = await store.list({ to, limit });
    } catch (err) {
      // Never express's default error page (an HTML stack trace outside production).
      log.warn('outbox store failed while listing', { error: (err as Error).message });
      res.status(503).json({ error: 'the outbox store is unavailable; try again' });
      return;
    }
    res.json({ messages });
  });
  return router;
}
