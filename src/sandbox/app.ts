/**
 * The sandbox's HTTP surface: every endpoint of section 4 (v1 and legacy), the error envelopes
 * of section 7, rate limiting, and the operator extras under `/sandbox/`.
 */
import { randomBytes } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'winston';
import { meBody, TokenStore } from './auth';
import {
  decode,
  LEGACY_PURCHASE_RULES,
  LEGACY_RETRY_RULES,
  LOGIN_RULES,
  REFRESH_RULES,
  V1_PURCHASE_RULES,
  V1_RETRY_RULES,
  type Decoded,
} from './body';
import { ERROR_CODES, legacyErrorBody, SandboxError, v1ErrorBody } from './errors';
import {
  defaultCompletes,
  FAULT_ENDPOINTS,
  FAULT_KINDS,
  faultError,
  Faults,
  ProxyPage,
  Timers,
  type FaultEndpoint,
} from './faults';
import { CATALOGUE, type SandboxUser } from './fixtures';
import { Ledger, type Transaction } from './ledger';
import { formatMoney } from './money';
import { Purchases, type PurchaseInput } from './purchases';
import { accountView, ledgerRow, legacyTransaction, v1Transaction } from './render';
import { SCENARIOS, type ProductType } from './scenarios';

export interface AppConfig {
  accessIn: number;
  meterLock: boolean;
  delayMs: number;
  rateLimit: { limit: number; windowMs: number } | null;
}

type Handler = (req: Request, res: Response) => Promise<void> | void;

interface Locals {
  requestId: string;
  user?: SandboxUser;
  token?: string;
}

const MAX_REQUEST_ID = 128;

/** Fixed-window counter per key (access token, or client IP for login/refresh). */
class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(private readonly rule: { limit: number; windowMs: number } | null) {}

  hit(key: string): void {
    if (!this.rule) return;
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.rule.windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    if (window.count > this.rule.limit) {
      const retryAfter = Math.max(1, Math.ceil((window.start + this.rule.windowMs - now) / 1000));
      throw Object.assign(
        new SandboxError('rate_limited', `Rate limit exceeded; retry after ${retryAfter} s`),
        {
          retryAfter,
        },
      );
    }
  }
}

export interface SandboxApp {
  app: express.Express;
  timers: Timers;
}

export function createSandboxApp(config: AppConfig, logger: Logger): SandboxApp {
  const app = express();
  const ledger = new Ledger();
  const purchases = new Purchases(ledger, config.meterLock);
  const tokens = new TokenStore(config.accessIn);
  const faults = new Faults();
  const timers = new Timers();
  const limiter = new RateLimiter(config.rateLimit);

  app.disable('x-powered-by');
  app.set('etag', false);

  // Correlation id (7.1): echo the caller's (at most 128 characters), otherwise generate one.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const started = Date.now();
    const given = req.get('X-Request-Id');
    const locals = res.locals as Locals;
    locals.requestId =
      given && given.length <= MAX_REQUEST_ID ? given : `req_${randomBytes(12).toString('hex')}`;
    res.setHeader('X-Request-Id', locals.requestId);
    res.on('finish', () =>
      logger.info('sandbox request', {
        method: req.method,
        path: req.path,
        status: res.statusCode,
        request_id: locals.requestId,
        ms: Date.now() - started,
      }),
    );
    if (given !== undefined && given.length > MAX_REQUEST_ID) {
      next(
        new SandboxError('invalid_argument', 'X-Request-Id must be at most 128 characters', 'X-Request-Id'),
      );
      return;
    }
    next();
  });
  app.use(express.json({ limit: '64kb' }));

  const authed = (res: Response): SandboxUser => (res.locals as Locals).user as SandboxUser;

  /** Bearer check, then the per-token rate limit. */
  const requireAuth = (req: Request, res: Response): void => {
    const { user, token } = tokens.authenticate(req.get('Authorization'));
    limiter.hit(`token:${token}`);
    Object.assign(res.locals as Locals, { user, token });
  };

  /** Applies an armed non-confirm fault: throws, sleeps, or drops; returns false when dropped. */
  const applyFault = async (endpoint: FaultEndpoint, req: Request): Promise<boolean> => {
    const fault = faults.take(endpoint);
    if (!fault) return true;
    if (fault.fault === 'slow') {
      await timers.sleep(fault.delayMs);
      return true;
    }
    if (fault.fault === 'drop') {
      req.socket.destroy();
      return false;
    }
    throw faultError(fault.fault);
  };

  const open = (res: Response): boolean => !res.writableEnded && !res.socket?.destroyed;

  /** Declares a path with its methods; other methods answer method_not_allowed. */
  const route = (path: string, methods: Partial<Record<'GET' | 'POST' | 'DELETE', Handler>>): void => {
    app.all(path, async (req: Request, res: Response) => {
      const handler = methods[req.method as 'GET' | 'POST' | 'DELETE'];
      if (!handler) {
        res.setHeader('Allow', Object.keys(methods).join(', '));
        throw new SandboxError('method_not_allowed', `${req.method} is not supported on ${req.path}`);
      }
      await handler(req, res);
    });
  };

  // --- Authentication (section 5) ---------------------------------------------------------
  route('/public/v1/auth/login', {
    POST: async (req, res) => {
      limiter.hit(`ip:${req.ip}`);
      if (!(await applyFault('login', req))) return;
      const body = decode(req.body, LOGIN_RULES) as Record<string, string>;
      res.json(tokens.login(body));
    },
  });
  route('/public/v1/auth/refresh', {
    POST: async (req, res) => {
      limiter.hit(`ip:${req.ip}`);
      if (!(await applyFault('refresh', req))) return;
      const body = decode(req.body, REFRESH_RULES);
      res.json(tokens.refreshAccess(body.refresh_token as string));
    },
  });
  route('/public/v1/auth/me', {
    GET: (req, res) => {
      requireAuth(req, res);
      res.json(meBody(authed(res)));
    },
  });

  // --- Catalogue and accounts (2.6, 2.7) -------------------------------------------------
  route('/public/v1/vas-products', {
    GET: async (req, res) => {
      requireAuth(req, res);
      if (!(await applyFault('vas-products', req))) return;
      res.json(CATALOGUE);
    },
  });
  route('/public/v1/accounts', {
    GET: async (req, res) => {
      requireAuth(req, res);
      if (!(await applyFault('accounts', req))) return;
      res.json(ledger.accountsOf(authed(res).id).map(accountView));
    },
  });
  route('/public/v1/accounts/:id', {
    GET: async (req, res) => {
      requireAuth(req, res);
      if (!(await applyFault('accounts', req))) return;
      const id = /^[0-9]{1,15}$/.test(String(req.params.id)) ? Number(req.params.id) : NaN;
      const account = ledger.account(id);
      if (!account || account.ownerId !== authed(res).id) {
        throw new SandboxError('resource_not_found', `Account ${String(req.params.id)} not found`, 'id');
      }
      res.json(accountView(account));
    },
  });

  // --- Purchases (4.1 v1, 4.2 legacy) ----------------------------------------------------
  const v1Input = (body: unknown): PurchaseInput => {
    const d = decode(body, V1_PURCHASE_RULES);
    return toInput(
      d,
      'v1',
      d.product_type as ProductType,
      d.provider_code as string,
      d.subscriber_identifier as string,
    );
  };
  const legacyInput = (body: unknown): PurchaseInput => {
    const d = decode(body, LEGACY_PURCHASE_RULES);
    return toInput(d, 'legacy', 'ELECTRICITY', 'BPC', d.meter_number as string);
  };

  /** The signed-in user, refused unless its role may make purchases (`action` words the refusal). */
  const purchaser = (res: Response, action: string): SandboxUser => {
    const user = authed(res);
    if (!user.canPurchase) throw new SandboxError('missing_permission', `Your role may not ${action}`);
    return user;
  };
  const transactionOf = (origin: 'v1' | 'legacy', t: Transaction): object =>
    origin === 'v1' ? v1Transaction(t) : legacyTransaction(t);

  const validate =
    (origin: 'v1' | 'legacy'): Handler =>
    async (req, res) => {
      requireAuth(req, res);
      if (!(await applyFault('validate', req))) return;
      const user = purchaser(res, 'make purchases');
      const input = origin === 'v1' ? v1Input(req.body) : legacyInput(req.body);
      res.json(transactionOf(origin, purchases.validate(user, input)));
    };

  const confirm =
    (origin: 'v1' | 'legacy'): Handler =>
    async (req, res) => {
      requireAuth(req, res);
      const fault = faults.take('confirm');
      const user = purchaser(res, 'make purchases');
      const input = origin === 'v1' ? v1Input(req.body) : legacyInput(req.body);
      const completes = fault ? fault.fault === 'slow' || fault.completes : true;
      if (fault && !completes) {
        if (fault.fault === 'drop') {
          req.socket.destroy();
          return;
        }
        try {
          purchases.confirm(user, input, true); // recorded FAILED: a later retry answers the real failure
        } catch {
          // the fault answer hides the real refusal, as an unreachable provider would
        }
        throw faultError(fault.fault);
      }
      let transaction: Transaction | null = null;
      let failure: unknown = null;
      try {
        transaction = purchases.confirm(user, input);
      } catch (err) {
        if (!fault) throw err;
        failure = err;
      }
      if (transaction && transaction.status === 'PENDING') {
        // Scenario 6: the purchase completes on the server whether or not the caller is still there.
        await timers.sleep(config.delayMs);
        purchases.complete(transaction);
      }
      if (fault) {
        if (fault.fault === 'slow') await timers.sleep(fault.delayMs);
        else if (fault.fault === 'drop') {
          req.socket.destroy();
          return;
        } else throw faultError(fault.fault);
        if (failure) throw failure;
      }
      if (!open(res) || !transaction) return;
      res.json(transactionOf(origin, transaction));
    };

  const retry =
    (origin: 'v1' | 'legacy'): Handler =>
    async (req, res) => {
      requireAuth(req, res);
      if (!(await applyFault('retry', req))) return;
      const user = purchaser(res, 'retry purchases');
      const d = decode(req.body, origin === 'v1' ? V1_RETRY_RULES : LEGACY_RETRY_RULES);
      const subscriber = (origin === 'v1' ? d.subscriber_identifier : d.meter_number) as string;
      const original = purchases.retry(user, subscriber, d.external_reference as string);
      res.json(transactionOf(origin, original));
    };

  route('/public/v1/purchases/validate', { POST: validate('v1') });
  route('/public/v1/purchases/confirm', { POST: confirm('v1') });
  route('/public/v1/purchases/retry', { POST: retry('v1') });
  route('/api/topup/validate', { POST: validate('legacy') });
  route('/api/topup/confirm', { POST: confirm('legacy') });
  route('/api/topup/retry', { POST: retry('legacy') });

  // --- Operator extras (not part of the document; no auth) -------------------------------
  route('/sandbox/scenarios', { GET: (_req, res) => void res.json(SCENARIOS) });
  route('/sandbox/transactions', { GET: (_req, res) => void res.json(ledger.all().map(ledgerRow)) });
  route('/sandbox/accounts', {
    GET: (_req, res) =>
      void res.json(
        ledger
          .allAccounts()
          .map((a) => ({ ...accountView(a), owner_id: a.ownerId, managed_retries: a.managedRetries })),
      ),
  });
  // The wallet's movements (every debit, every adjustment), and money moved outside the interface.
  route('/sandbox/accounts/:id/movements', {
    GET: (req, res) => {
      const account = ledger.account(Number(req.params.id));
      if (!account) throw new SandboxError('resource_not_found', `Account ${req.params.id} not found`);
      res.json(
        ledger.movementsOf(account.id).map((m) => ({
          account_id: m.accountId,
          at: m.at.toISOString(),
          amount: formatMoney(m.amountMinor, account.currency),
          balance_after: formatMoney(m.balanceAfterMinor, account.currency),
          transaction_id: m.transactionId,
          note: m.note,
        })),
      );
    },
  });
  route('/sandbox/accounts/:id/adjust', {
    POST: (req, res) => {
      const account = ledger.account(Number(req.params.id));
      if (!account) throw new SandboxError('resource_not_found', `Account ${req.params.id} not found`);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const match =
        typeof body.amount === 'string' ? /^(-?)(\d{1,12})(?:\.(\d{1,2}))?$/.exec(body.amount.trim()) : null;
      if (!match)
        throw new SandboxError(
          'invalid_argument',
          'amount must be a decimal text such as "-50.00"',
          'amount',
        );
      const minor = (Number(match[2]) * 100 + Number((match[3] ?? '').padEnd(2, '0'))) * (match[1] ? -1 : 1);
      if (minor === 0) throw new SandboxError('invalid_argument', 'amount must not be zero', 'amount');
      const note =
        typeof body.note === 'string' && body.note.trim() ? body.note.trim().slice(0, 120) : 'adjustment';
      const m = ledger.adjust(account.id, minor, note);
      res.status(201).json({
        account_id: m.accountId,
        at: m.at.toISOString(),
        amount: formatMoney(m.amountMinor, account.currency),
        balance_after: formatMoney(m.balanceAfterMinor, account.currency),
        note: m.note,
      });
    },
  });
  route('/sandbox/errors', {
    GET: (_req, res) => void res.json(Object.entries(ERROR_CODES).map(([code, v]) => ({ code, ...v }))),
  });
  route('/sandbox/faults', {
    GET: (_req, res) => void res.json(faults.list()),
    POST: (req, res) => {
      const d = decode(req.body, [
        { name: 'endpoint', kind: 'string', required: true, values: FAULT_ENDPOINTS },
        { name: 'fault', kind: 'string', required: true, values: FAULT_KINDS },
        { name: 'count', kind: 'integer', required: false },
        { name: 'delayMs', kind: 'integer', required: false },
        { name: 'completes', kind: 'boolean', required: false },
      ]);
      const count = (d.count as number | undefined) ?? 1;
      const delayMs = (d.delayMs as number | undefined) ?? 2000;
      if (count < 1) throw new SandboxError('invalid_argument', 'count must be at least 1', 'count');
      if (delayMs < 0) throw new SandboxError('invalid_argument', 'delayMs must not be negative', 'delayMs');
      const kind = d.fault as (typeof FAULT_KINDS)[number];
      const fault = {
        fault: kind,
        remaining: count,
        delayMs,
        completes: (d.completes as boolean | undefined) ?? defaultCompletes(kind),
      };
      faults.arm(d.endpoint as FaultEndpoint, fault);
      res.status(201).json({ endpoint: d.endpoint, ...fault });
    },
    DELETE: (_req, res) => {
      faults.clear();
      res.status(204).end();
    },
  });

  // Unknown path → 404 resource_not_found.
  app.use((req: Request) => {
    throw new SandboxError('resource_not_found', `No endpoint at ${req.method} ${req.path}`);
  });

  app.use((raw: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (raw instanceof ProxyPage) {
      if (open(res) && !res.headersSent) res.status(raw.status).type('html').send(raw.body);
      return;
    }
    const err = toSandboxError(raw);
    if (err.code === 'internal_error' && !(raw instanceof SandboxError)) {
      logger.error('sandbox internal error', { error: raw instanceof Error ? raw.message : String(raw) });
    }
    if (!open(res) || res.headersSent) return;
    const retryAfter = (raw as { retryAfter?: number }).retryAfter;
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
    const legacy = req.path.startsWith('/api/topup');
    const docBase = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    res
      .status(err.status)
      .json(legacy ? legacyErrorBody(err) : v1ErrorBody(err, (res.locals as Locals).requestId, docBase));
  });

  return { app, timers };
}

function toInput(
  d: Decoded,
  origin: 'v1' | 'legacy',
  productType: ProductType,
  providerCode: string,
  subscriberIdentifier: string,
): PurchaseInput {
  return {
    origin,
    sourceChannel: d.source_channel as string,
    productType,
    providerCode,
    debitedAccountId: d.debited_account_id as number,
    beneficiaryPhone: d.beneficiary_phone_number as string,
    subscriberIdentifier,
    amountMinor: d.amount as number,
    currency: d.currency as string,
    chargesOnTop: (d.charges_on_top_flag as boolean | undefined) ?? true,
    comment: (d.comment as string | undefined) ?? null,
    externalReference: (d.external_reference as string | undefined) ?? null,
  };
}

/** Body-parser failures become 400 validation errors; anything unexpected is a 500. */
function toSandboxError(raw: unknown): SandboxError {
  if (raw instanceof SandboxError) return raw;
  const type = (raw as { type?: string } | null)?.type;
  if (type === 'entity.parse.failed') return new SandboxError('invalid_argument', 'Malformed JSON body');
  if (typeof type === 'string' && type.startsWith('entity.')) {
    return new SandboxError('invalid_argument', `Unreadable request body (${type})`);
  }
  if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
    return new SandboxError('invalid_argument', 'Unsupported body encoding');
  }
  return new SandboxError('internal_error', 'Unexpected server error');
}
