import express, {
  Router,
  type ErrorRequestHandler,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { operatorOf, requireBearer, type AdminCredential } from '../../http/secrets';
import { componentLogger } from '../../observability/logger';
import { AgentConflictError, AgentExistsError, AgentInputError, AgentNotFoundError } from '../errors';
import { AccountCheckError, type AgentDesk } from './desk';

const log = componentLogger('admin');
const MAX_IDEMPOTENCY_KEY = 128;

export interface AgentAdminRouterOptions {
  desk: AgentDesk;
  /** Bearer token operators send; undefined = no routes at all (404). */
  adminToken: string | readonly AdminCredential[] | undefined;
}

/** The client's `Idempotency-Key`, checked; undefined when none was sent. */
function idempotencyKeyOf(req: Request): string | undefined {
  const key = req.get('idempotency-key');
  if (key === undefined) return undefined;
  if (key.trim() === '' || key.length > MAX_IDEMPOTENCY_KEY)
    throw new AgentInputError(
      'Idempotency-Key',
      `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY} characters`,
    );
  return key.trim();
}

/** An answer carrying a one-time PIN: shown once, never cached by anything in between. */
function withPin(res: Response, status: number, body: object): void {
  res.status(status).set('Cache-Control', 'no-store').json(body);
}

type Handler = (req: Request, res: Response) => Promise<void>;
/** Express 5 passes a rejected handler's error to the error handler below. */
const route =
  (handler: Handler): RequestHandler =>
  (req, res) =>
    handler(req, res);

/**
 * `/admin/agents` for operators: register, list, show, disable/enable, reset a PIN, credit
 * or adjust a float (`Idempotency-Key` makes a retried top-up apply once), print a statement.
 * Without `adminToken` the router is empty, so every path is a plain 404. No answer holds a
 * PIN hash; a one-time PIN only the answer of the call that set it.
 */
export function createAgentAdminRouter(options: AgentAdminRouterOptions): Router {
  const router = Router();
  const token = options.adminToken;
  // An empty list: no shared token, the gate of `/admin` (src/operators/admin-auth.ts) names the caller.
  if (token === undefined || token === '') return router;
  const { desk } = options;

  const admin = Router();
  admin.use(requireBearer(token));
  admin.use(express.json({ limit: '16kb' }));
  const body = (req: Request) => (req.body ?? {}) as Record<string, unknown>;

  admin.get(
    '/',
    route(async (req, res) => {
      const agents = await desk.list({ limit: req.query.limit, offset: req.query.offset });
      res.json({ count: agents.length, agents });
    }),
  );
  admin.post(
    '/',
    route(async (req, res) => {
      const created = await desk.add(body(req));
      log.info('admin registered an agent', { msisdn: created.agent.msisdn });
      withPin(res, 201, created);
    }),
  );
  /** An operator's queue: listed (`state`, pending by default), each item approved or rejected. */
  const queue = <Outcome extends { status: string }>(
    path: 'deposits' | 'registrations',
    what: string,
    list: (query: Request['query']) => Promise<unknown[]>,
    decide: (id: unknown, decision: 'approve' | 'reject', by: string, note: unknown) => Promise<Outcome>,
    answer: (res: Response, outcome: Outcome) => void,
  ): void => {
    admin.get(
      `/${path}`,
      route(async (req, res) => {
        const items = await list(req.query);
        res.json({ count: items.length, [path]: items });
      }),
    );
    for (const decision of ['approve', 'reject'] as const)
      admin.post(
        `/${path}/:id/${decision}`,
        route(async (req, res) => {
          const outcome = await decide(req.params.id, decision, operatorOf(res), body(req).note);
          log.info(`admin ${decision === 'approve' ? 'approved' : 'rejected'} ${what}`, {
            id: req.params.id,
            status: outcome.status,
          });
          answer(res, outcome);
        }),
      );
  };
  // The queues before '/:msisdn', which would take 'deposits' for a number.
  queue(
    'deposits',
    'an agent deposit',
    (query) => desk.deposits({ state: query.state, msisdn: query.msisdn }),
    (...decision) => desk.decideDeposit(...decision),
    (res, outcome) => res.json(outcome),
  );
  // Retailers dealers asked to add by USSD (DEALER_REGISTRATION=approve).
  queue(
    'registrations',
    'a retailer registration',
    (query) => desk.registrations({ state: query.state, dealer: query.dealer }),
    (...decision) => desk.decideRegistration(...decision),
    // An approval's answer holds the retailer's one-time PIN: never cached.
    (res, outcome) => withPin(res, 200, outcome),
  );
  admin.post(
    '/:msisdn/assistants',
    route(async (req, res) => {
      const created = await desk.addAssistant({ ...body(req), agent: req.params.msisdn });
      log.info('admin registered an assistant', { msisdn: created.agent.msisdn });
      withPin(res, 201, created);
    }),
  );
  admin.get(
    '/:msisdn/network',
    route(async (req, res) => {
      res.json(await desk.network(req.params.msisdn));
    }),
  );
  admin.get(
    '/:msisdn',
    route(async (req, res) => {
      res.json(await desk.show(req.params.msisdn));
    }),
  );
  admin.post(
    '/:msisdn/disable',
    route(async (req, res) => {
      res.json({ agent: await desk.disable(req.params.msisdn) });
    }),
  );
  admin.post(
    '/:msisdn/enable',
    route(async (req, res) => {
      res.json({ agent: await desk.enable(req.params.msisdn) });
    }),
  );
  admin.post(
    '/:msisdn/dealer',
    route(async (req, res) => {
      res.json({ agent: await desk.setDealer(req.params.msisdn, body(req).dealer, operatorOf(res)) });
    }),
  );
  admin.post(
    '/:msisdn/reset-pin',
    route(async (req, res) => {
      withPin(res, 200, await desk.resetPin(req.params.msisdn));
    }),
  );
  admin.post(
    '/:msisdn/credits',
    route(async (req, res) => {
      const outcome = await desk.credit(req.params.msisdn, body(req), idempotencyKeyOf(req));
      res.status(outcome.applied ? 201 : 200).json(outcome);
    }),
  );
  admin.post(
    '/:msisdn/adjustments',
    route(async (req, res) => {
      const outcome = await desk.adjust(req.params.msisdn, body(req), idempotencyKeyOf(req));
      res.status(outcome.applied ? 201 : 200).json(outcome);
    }),
  );
  admin.get(
    '/:msisdn/statement',
    route(async (req, res) => {
      res.json(await desk.statement(req.params.msisdn, { from: req.query.from, to: req.query.to }));
    }),
  );

  const errors: ErrorRequestHandler = (err: Error & { status?: number; type?: string }, _req, res, _next) => {
    if (err instanceof AgentInputError) {
      res.status(400).json({ error: 'invalid_request', field: err.field, message: err.message });
      return;
    }
    if (err instanceof AgentNotFoundError) {
      res.status(404).json({ error: 'not_found', message: err.message });
      return;
    }
    if (err instanceof AgentExistsError) {
      res.status(409).json({ error: 'agent_exists', message: err.message });
      return;
    }
    if (err instanceof AgentConflictError) {
      res.status(409).json({ error: err.code, message: err.message });
      return;
    }
    if (err instanceof AccountCheckError) {
      res.status(502).json({ error: 'account_check_failed', message: err.message });
      return;
    }
    // The body parser's refusals: the client's mistake, named, never a 500.
    if (err.type === 'entity.too.large') {
      res.status(413).json({ error: 'bad_request', message: 'request body is larger than 16kb' });
      return;
    }
    if (err.type === 'entity.parse.failed') {
      res.status(400).json({ error: 'bad_request', message: 'request body must be JSON' });
      return;
    }
    if (typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
      res.status(err.status).json({ error: 'bad_request', message: 'malformed request (path or body)' });
      return;
    }
    log.error('admin agent request failed', { error: err.message });
    res.status(500).json({ error: 'internal', message: 'the request failed; see the logs' });
  };
  admin.use(errors);

  router.use('/admin/agents', admin);
  return router;
}
