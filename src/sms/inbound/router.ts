import type { DeliveryReport } from '../../messaging/sender';
import express, { type Request, type Response, type Router } from 'express';
import { callbackGuard, malformedBody } from '../../http/callback-guard';
import { componentLogger } from '../../observability/logger';
import type { SmsIntake } from './intake';
import { isInboundParseError, type InboundSmsAdapter } from './types';

const log = componentLogger('sms-inbound');

export interface InboundSmsRouterOptions {
  adapters: InboundSmsAdapter[];
  intake: Pick<SmsIntake, 'accept'>;
  /** Records a delivery report on the SMS it is about. */
  deliveries: { record(report: DeliveryReport): Promise<unknown> };
  secret?: string;
  allowedIps?: string[];
}

/**
 * `POST /sms/<path>` (inbound messages) and `POST /sms/<path>/delivery` (delivery reports) for
 * every inbound adapter. Guarded like the USSD callbacks; a malformed body gets 400 naming the
 * field and changes nothing; an accepted message is answered 200 at once (processed in a job).
 */
export function inboundSmsRouter(options: InboundSmsRouterOptions): Router {
  const router = express.Router();
  const guard = callbackGuard({
    what: 'inbound SMS',
    secret: options.secret,
    allowedIps: options.allowedIps,
  });
  if (!options.secret) log.warn('inbound SMS routes are not protected by a secret (set SMS_CALLBACK_SECRET)');
  const bodies = [express.urlencoded({ extended: false, limit: '16kb' }), express.json({ limit: '16kb' })];

  for (const adapter of options.adapters) {
    router.post(`/sms/${adapter.path}`, guard, ...bodies, async (req: Request, res: Response) => {
      const sms = adapter.parseMessage(req);
      if (isInboundParseError(sms)) {
        log.warn('malformed inbound sms', { provider: adapter.name, reason: sms.error });
        res.status(400).type('text/plain').send(sms.error);
        return;
      }
      try {
        const outcome = await options.intake.accept(sms);
        res
          .status(200)
          .type('text/plain')
          .send(outcome === 'queued' ? 'OK' : 'OK (duplicate)');
      } catch (error) {
        // Not taken: an error answer makes the provider deliver it again.
        log.error('inbound sms could not be queued', { provider: adapter.name, error });
        res.status(503).type('text/plain').send('try again later');
      }
    });

    const parseDelivery = adapter.parseDelivery?.bind(adapter);
    if (!parseDelivery) continue;
    router.post(`/sms/${adapter.path}/delivery`, guard, ...bodies, async (req: Request, res: Response) => {
      const report = parseDelivery(req);
      if (isInboundParseError(report)) {
        log.warn('malformed delivery report', { provider: adapter.name, reason: report.error });
        res.status(400).type('text/plain').send(report.error);
        return;
      }
      try {
        await options.deliveries.record(report);
        res.status(200).type('text/plain').send('OK');
      } catch (error) {
        log.error('delivery report could not be recorded', { provider: adapter.name, error });
        res.status(503).type('text/plain').send('try again later');
      }
    });
  }

  router.use('/sms', malformedBody);
  return router;
}
