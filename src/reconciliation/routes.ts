import express, { Router, type Request } from 'express';
import { adminErrors } from '../http/admin-errors';
import { operatorOf, requireBearer, type AdminCredential } from '../http/secrets';
import { careAnswer } from '../purchases/care/routes';
import { MismatchNotFoundError, MismatchStateError } from './queue';
import { checkDay, ReconcileInputError } from './reconcile';
import type { Reconciliation } from './service';
import { StatementFormatError } from './statements/types';
import { mismatchesCsv } from './csv';

const body = (req: Request) => (req.body ?? {}) as Record<string, unknown>;

/** A day's statement of a busy account is a few MB; the cap keeps a mistaken upload from filling memory. */
const STATEMENT_LIMIT = '64mb';

/**
 * `/admin/reconciliation` (bearer ADMIN_TOKEN; answers masked like every admin answer):
 *
 * - `GET /?date=YYYY-MM-DD[&format=csv]`: reconcile the day (again: the same answer) — counts and
 *   totals per ledger, matched, mismatches by reason, `status` closed or open;
 * - `POST /statements` (the file as the body, any content type): import a statement; 201, or 200
 *   when this file was imported before (nothing changed); 400 with what was expected otherwise;
 * - `POST /pull {date}`: pull a day by Daraja's Pull API, where it is set up;
 * - `POST /balances`: record the debit account's balance now;
 * - `POST /wallet-topups {accountId, amount, at?, note}`: money the operator moved on the wallet;
 * - the queue: `GET /mismatches?state=&reason=&day=&limit=`, `GET /mismatches/:id`,
 *   `POST /mismatches/:id/assign {assignee}`, `…/note {note}`, `…/close {decision, note}` (audited).
 */
export function reconciliationRoutes(
  reconciliation: Reconciliation,
  credentials: string | readonly AdminCredential[],
): Router {
  const router = Router();
  const admin = Router();
  admin.use(requireBearer(credentials));

  admin.get('/', async (req, res) => {
    const { date, format } = req.query;
    if (format !== undefined && format !== 'csv' && format !== 'json')
      throw new ReconcileInputError('format is csv or json');
    const day = await reconciliation.day(checkDay(date));
    if (format === 'csv') {
      const rows = [
        ...(await reconciliation.queue.list({ state: 'open', day: day.day, limit: 500 })),
        ...(await reconciliation.queue.list({ state: 'closed', day: day.day, limit: 500 })),
      ];
      res.type('text/csv').set('Content-Disposition', `attachment; filename="reconciliation-${day.day}.csv"`);
      res.send(mismatchesCsv(rows));
      return;
    }
    res.json(day);
  });
  admin.post('/statements', express.raw({ type: () => true, limit: STATEMENT_LIMIT }), async (req, res) => {
    const content = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const result = await reconciliation.importStatement(content, operatorOf(res));
    res.status(result.duplicate ? 200 : 201).json(result);
  });
  admin.use(express.json({ limit: '16kb' }));
  admin.post('/pull', async (req, res) => {
    const result = await reconciliation.pull(checkDay(body(req).date), operatorOf(res));
    if (!result)
      throw new ReconcileInputError(
        "no pull: Daraja's Pull Transactions API is not set up (RECONCILIATION_PULL)",
      );
    res.status(result.duplicate ? 200 : 201).json(result);
  });
  admin.post('/balances', async (_req, res) => {
    res.status(201).json(await reconciliation.recordBalance(`admin ${operatorOf(res)}`));
  });
  admin.post('/wallet-topups', async (req, res) => {
    res.status(201).json(await reconciliation.declareTopUp(body(req) as never, operatorOf(res)));
  });
  admin.get('/mismatches', async (req, res) => {
    const { state, reason, day, limit } = req.query;
    const list = await reconciliation.queue.list({ state, reason, day, limit });
    res.json({ state: state ?? 'open', count: list.length, mismatches: list });
  });
  admin.get('/mismatches/:id', async (req, res) => {
    res.json({ mismatch: await reconciliation.queue.get(req.params.id) });
  });
  admin.post('/mismatches/:id/assign', async (req, res) => {
    res.json({
      mismatch: await reconciliation.queue.assign(req.params.id, body(req).assignee, operatorOf(res)),
    });
  });
  admin.post('/mismatches/:id/note', async (req, res) => {
    res.json({ mismatch: await reconciliation.queue.note(req.params.id, body(req).note, operatorOf(res)) });
  });
  admin.post('/mismatches/:id/close', async (req, res) => {
    const { decision, note } = body(req);
    res.json({ mismatch: await reconciliation.queue.close(req.params.id, decision, note, operatorOf(res)) });
  });

  admin.use(
    adminErrors('reconciliation', (err) => {
      if (err instanceof StatementFormatError)
        return { status: 400, body: { error: 'unknown_format', message: err.message } };
      if (err instanceof ReconcileInputError)
        return { status: 400, body: { error: 'invalid_request', message: err.message } };
      if (err instanceof MismatchNotFoundError)
        return { status: 404, body: { error: 'not_found', message: err.message } };
      if (err instanceof MismatchStateError)
        return { status: 409, body: { error: 'wrong_state', state: err.state, message: err.message } };
      return careAnswer(err);
    }),
  );
  router.use('/admin/reconciliation', admin);
  return router;
}
