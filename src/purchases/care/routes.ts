import express, { Router, type Request } from 'express';
import { adminErrors, type ErrorAnswer } from '../../http/admin-errors';
import { operatorOf } from '../../http/secrets';
import { CareInputError, CareNotFoundError, CareStateError, type CustomerCare } from './care';

/** What a refusal of customer care answers (its cases add theirs): nothing was changed. */
export function careAnswer(err: Error): ErrorAnswer | undefined {
  if (err instanceof CareInputError)
    return { status: 400, body: { error: 'invalid_request', field: err.field, message: err.message } };
  if (err instanceof CareNotFoundError)
    return { status: 404, body: { error: 'not_found', message: err.message } };
  if (err instanceof CareStateError)
    return { status: 409, body: { error: 'wrong_state', state: err.state, message: err.message } };
  return undefined;
}

const body = (req: Request) => (req.body ?? {}) as Record<string, unknown>;

/**
 * Customer care under `/admin/purchases` (mounted by the purchases admin router, behind its guard):
 *
 * - `GET /?msisdn=|identifier=|reference=[&limit=]`: find purchases, newest first;
 * - `POST /:id/resolve {note, outcome}`: close a `needs_attention` purchase (`outcome` `sold` or
 *   `not_sold`: required for an agent's sale, whose float hold follows it);
 * - `POST /:id/reconcile {note?}`: reconcile it again (retry only);
 * - `GET /audit`, `GET /:id/audit`: the audit trail, newest first.
 */
export function careRoutes(care: CustomerCare): Router {
  const router = Router();
  router.use(express.json({ limit: '16kb' }));

  router.get('/', async (req, res, next) => {
    const { msisdn, identifier, reference, limit } = req.query;
    if (msisdn === undefined && identifier === undefined && reference === undefined) {
      next(); // a listing by state
      return;
    }
    const found = await care.find({ msisdn, identifier, reference, limit });
    res.json({ by: found.by, value: found.value, count: found.purchases.length, purchases: found.purchases });
  });

  router.get('/audit', async (req, res) => {
    const entries = await care.trail({ limit: req.query.limit });
    res.json({ count: entries.length, entries });
  });

  router.get('/:id/audit', async (req, res) => {
    await care.get(req.params.id);
    const entries = await care.trail({ purchaseId: req.params.id, limit: req.query.limit });
    res.json({ purchaseId: req.params.id, count: entries.length, entries });
  });

  router.post('/:id/resolve', async (req, res) => {
    const given = body(req);
    const purchase = await care.resolve(req.params.id, given.note, operatorOf(res), given.outcome);
    res.json({ purchase });
  });

  router.post('/:id/reconcile', async (req, res) => {
    const purchase = await care.reconcile(req.params.id, body(req).note, operatorOf(res));
    res.status(202).json({ purchase });
  });

  router.use(adminErrors('care', careAnswer));
  return router;
}
