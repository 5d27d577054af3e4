import express, { Router, type Request } from 'express';
import { adminErrors } from '../../http/admin-errors';
import { operatorOf, requireBearer, type AdminCredential } from '../../http/secrets';
import { maskMsisdn } from '../../observability/logger';
import { normaliseMsisdn, type CountryCode } from '../../phone';
import type { PurchaseRecord } from '../types';
import { CareInputError } from './care';
import { CaseNotFoundError, CaseStateError, DEFAULT_CASE_LIMIT, type CaseDesk } from './cases';
import { careAnswer } from './routes';

const body = (req: Request) => (req.body ?? {}) as Record<string, unknown>;

export interface CaseRoutesOptions {
  cases: CaseDesk;
  credentials: string | readonly AdminCredential[];
  /** Region of numbers typed without a country code (`DEFAULT_REGION`). */
  region: string;
  /** The `needs_attention` purchases, listed beside the open cases (the care queue). */
  needsAttention?: (limit: number) => Promise<PurchaseRecord[]>;
}

/**
 * `/admin/cases` (bearer ADMIN_TOKEN; answers masked like every admin answer):
 *
 * - `GET /?state=open|closed&msisdn=&limit=`: the care queue — open cases oldest first, with the
 *   `needs_attention` purchases beside them; or closed cases newest first;
 * - `GET /:id`: one case;
 * - `POST / {msisdn, purchaseId, reason, note?}`: open a case for a caller (its number goes by SMS);
 * - `POST /:id/close {note}`: close it with what was found and done.
 */
export function caseRoutes(options: CaseRoutesOptions): Router {
  const { cases } = options;
  const router = Router();
  const admin = Router();
  admin.use(requireBearer(options.credentials));
  admin.use(express.json({ limit: '16kb' }));

  const msisdnOf = (raw: unknown): string => {
    if (typeof raw !== 'string' || raw.trim() === '' || raw.length > 32)
      throw new CareInputError('msisdn', 'msisdn must be a phone number');
    const n = normaliseMsisdn(raw, options.region as CountryCode);
    if (!n.ok) throw new CareInputError('msisdn', `not a mobile number: ${maskMsisdn(raw)}`);
    return n.e164;
  };

  admin.get('/', async (req, res) => {
    const { state, msisdn, limit } = req.query;
    const list = await cases.list({
      state,
      limit,
      ...(msisdn !== undefined && { msisdn: msisdnOf(msisdn) }),
    });
    const queue = (state ?? 'open') === 'open' && msisdn === undefined && options.needsAttention;
    const purchases = queue ? await queue(DEFAULT_CASE_LIMIT) : undefined;
    res.json({
      state: state ?? 'open',
      count: list.length,
      cases: list,
      ...(purchases && { needsAttention: { count: purchases.length, purchases } }),
    });
  });

  admin.get('/:id', async (req, res) => {
    res.json({ case: await cases.get(req.params.id) });
  });

  admin.post('/', async (req, res) => {
    const { msisdn, purchaseId, reason, note } = body(req);
    if (purchaseId !== undefined && typeof purchaseId !== 'string')
      throw new CareInputError('purchaseId', 'purchaseId must be a purchase id');
    const opened = await cases.open({
      msisdn: msisdnOf(msisdn),
      purchaseId: purchaseId ?? null,
      reason,
      note,
      actor: operatorOf(res),
    });
    res.status(opened.opened ? 201 : 200).json(opened);
  });

  admin.post('/:id/close', async (req, res) => {
    res.json({ case: await cases.close(req.params.id, body(req).note, operatorOf(res)) });
  });

  admin.use(
    adminErrors('case', (err) => {
      if (err instanceof CaseNotFoundError)
        return { status: 404, body: { error: 'not_found', message: err.message } };
      if (err instanceof CaseStateError)
        return { status: 409, body: { error: 'wrong_state', state: err.state, message: err.message } };
      return careAnswer(err);
    }),
  );
  router.use('/admin/cases', admin);
  return router;
}
