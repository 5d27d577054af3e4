import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import { componentLogger } from '../../observability/logger';
import { CareInputError, CareNotFoundError, CareStateError, type CustomerCare } from './care';

const log = componentLogger('admin');

/** Who acts: the label of the admin token (set by the router's bearer guard). */
const actorOf = (res: Response): string =>
  typeof res.locals.operator === 'string' ? res.locals.operator : 'admin';
const body = (req: Request) => (req.body ?? {}) as Record<string, unknown>;

/**
 * Customer care under `/admin/purchases` (mounted by the purchases admin router, behind its guard):
 *
 * - `GET /?msisdn=|identifier=|reference=[&limit=]`: find purchases, newest first;
 * - `POST /:id/resolve {note}`: close a `needs_attention` purchase;
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
    const purchase = await care.resolve(req.params.id, body(req).note, actorOf(res));
    res.json({ purchase });
  });

  router.post('/:id/reconcile', async (req, res) => {
    const purchase = await care.reconcile(req.params.id, body(req).note, actorOf(res));
    res.status(202).json({ purchase });
  });

  const errors: ErrorRequestHandler = (err: Error, _req, res, next) => {
    if (err instanceof CareInputError) {
      res.status(400).json({ error: 'invalid_request', field: err.field, message: err.message });
      return;
    }
    if (err instanceof CareNotFoundError) {
      res.status(404).json({ error: 'not_found', message: err.message });
      return;
    }
    if (err instanceof CareStateError) {
      res.status(409).json({ error: 'wrong_state', state: err.state, message: err.message });
      return;
    }
    log.error('care request failed', { error: err });
    next(err);
  };
  router.use(errors);
  return router;
}
