import path from 'node:path';
import express, { Router, type Request, type Response } from 'express';
import type { AdminCredential } from '../http/secrets';
import { componentLogger } from '../observability/logger';
import { OperatorInputError, OperatorNotFoundError, type OperatorAccounts } from '../operators/accounts';
import {
  CSRF_HEADER,
  cookieOf,
  identify,
  sameOrigin,
  SESSION_COOKIE,
  type Caller,
} from '../operators/admin-auth';
import { permissionsOf } from '../operators/roles';
import { sameSecret } from '../http/secrets';

/**
 * The operators' console: the page at `GET /console` and its own files (no CDN: the page loads
 * nothing from elsewhere, a strict CSP says so), and the login endpoints under `/console/api`
 * (log in, who am I, change the password, log out). Everything the page shows or changes goes
 * through the admin API (`/admin/…`) with the session cookie: the console has no other way to
 * change anything.
 */

const log = componentLogger('console');

export const CONSOLE_PUBLIC = path.join(__dirname, 'public');
const FILES = new Set(['console.js', 'console.css']);

export interface ConsoleOptions {
  accounts: OperatorAccounts;
  credentials: readonly AdminCredential[];
  /** Cookies marked Secure (behind TLS; `NODE_ENV=production`). */
  secureCookies: boolean;
  /**
   * The IANA zone the books keep their days in (`TZ`): the console's "today" is that zone's, not
   * the browser's (staff elsewhere, or a laptop's clock in another zone, would see another day).
   */
  timeZone: string;
}

function pageHeaders(res: Response): void {
  res.set({
    'Cache-Control': 'no-store',
    'Content-Security-Policy':
      "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  });
}

export function consoleRouter(options: ConsoleOptions): Router {
  const { accounts } = options;
  const router = Router();

  router.get('/console', (_req, res) => {
    pageHeaders(res);
    res.sendFile(path.join(CONSOLE_PUBLIC, 'index.html'));
  });
  router.get('/console/:file', (req, res, next) => {
    const file = String(req.params.file);
    if (!FILES.has(file)) return next();
    pageHeaders(res);
    res.sendFile(path.join(CONSOLE_PUBLIC, file));
  });

  const api = Router();
  api.use(express.json({ limit: '4kb' }));
  api.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  const cookie = (res: Response, value: string, maxAgeS: number): void => {
    const parts = [
      `${SESSION_COOKIE}=${value}`,
      'Path=/',
      'HttpOnly',
      'SameSite=Strict',
      `Max-Age=${maxAgeS}`,
      ...(options.secureCookies ? ['Secure'] : []),
    ];
    res.append('Set-Cookie', parts.join('; '));
  };
  const body = (req: Request) => (req.body ?? {}) as Record<string, unknown>;
  const about = (
    caller: Pick<Caller, 'name' | 'role' | 'mustChangePassword'>,
    csrfToken: string | undefined,
  ) => ({
    operator: {
      name: caller.name,
      role: caller.role,
      mustChangePassword: caller.mustChangePassword ?? false,
    },
    permissions: permissionsOf(caller.role),
    csrfToken,
    timeZone: options.timeZone,
  });

  api.post('/login', async (req, res) => {
    if (!sameOrigin(req)) {
      res.status(403).json({ error: 'csrf', message: 'log in from the console page' });
      return;
    }
    const { name, password } = body(req);
    const outcome = await accounts.login(name, password);
    if (outcome.kind === 'locked') {
      res.status(423).json({
        error: 'locked',
        message: `too many wrong passwords: locked until ${new Date(outcome.untilMs).toISOString()}`,
        until: new Date(outcome.untilMs).toISOString(),
      });
      return;
    }
    if (outcome.kind === 'refused') {
      log.warn('console login refused', { ip: req.ip });
      res.status(401).json({ error: 'refused', message: 'wrong name or password' });
      return;
    }
    cookie(res, outcome.sessionId, Math.ceil(accounts.policy.maxSessionMs / 1000));
    const { operator } = outcome;
    res.json(about({ ...operator }, undefined));
  });

  /** The session's caller, its change checked for the CSRF token; answers and returns undefined when not. */
  const sessionCaller = async (req: Request, res: Response, change: boolean): Promise<Caller | undefined> => {
    const caller = req.get('authorization') ? undefined : await identify(req, accounts, options.credentials);
    if (caller === undefined || caller === 'bad_token' || caller.via !== 'session') {
      res.status(401).json({ error: 'unauthorized', message: 'log in first' });
      return undefined;
    }
    if (
      change &&
      (!sameOrigin(req) ||
        !sameSecret(req.get(CSRF_HEADER) ?? '', caller.csrfToken ?? '') ||
        !req.get(CSRF_HEADER))
    ) {
      res
        .status(403)
        .json({ error: 'csrf', message: 'this change did not come from the console page: reload it' });
      return undefined;
    }
    return caller;
  };

  // Not logged in is an answer here, not an error: the page asks this first.
  api.get('/me', async (req, res) => {
    const caller = await identify(req, accounts, options.credentials);
    if (caller === undefined || caller === 'bad_token' || caller.via !== 'session')
      res.json({ operator: null });
    else res.json(about(caller, caller.csrfToken));
  });

  api.post('/password', async (req, res) => {
    const caller = await sessionCaller(req, res, true);
    if (!caller) return;
    try {
      const operator = await accounts.changePassword(caller.name, body(req).current, body(req).password);
      res.json(about({ ...operator }, caller.csrfToken));
    } catch (error) {
      if (error instanceof OperatorInputError) {
        res.status(400).json({ error: 'invalid_request', field: error.field, message: error.message });
        return;
      }
      if (error instanceof OperatorNotFoundError) {
        res.status(401).json({ error: 'unauthorized', message: 'log in first' });
        return;
      }
      throw error;
    }
  });

  api.post('/logout', async (req, res) => {
    const caller = await sessionCaller(req, res, true);
    if (!caller) return;
    await accounts.logout(cookieOf(req, SESSION_COOKIE)!, caller.name);
    cookie(res, '', 0);
    res.json({ loggedOut: true });
  });

  api.use((error: Error & { type?: string }, _req: Request, res: Response, _next: express.NextFunction) => {
    if (error.type === 'entity.parse.failed') {
      res.status(400).json({ error: 'bad_request', message: 'request body must be JSON' });
      return;
    }
    log.error('console request failed', { error });
    res.status(500).json({ error: 'internal', message: 'the request failed; see the logs' });
  });
  router.use('/console/api', api);
  return router;
}
