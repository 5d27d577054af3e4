import type { Request, RequestHandler, Response } from 'express';
import { credentialLabel, sameSecret, type AdminCredential } from '../http/secrets';
import { componentLogger, maskNumbersInText } from '../observability/logger';
import type { AuditTrail } from '../purchases/care/audit';
import type { OperatorAccounts } from './accounts';
import { auditsItself, isChange, permissionFor, roleMay, type Role } from './roles';

/**
 * The one gate of `/admin`: who asks, and whether their role may. A request is someone's by
 * `Authorization: Bearer` — a shared token (`ADMIN_TOKEN`/`ADMIN_TOKENS`, role `admin`, for the
 * CLI and automation) or an operator's personal token — or by the console's session cookie,
 * whose changes must also carry the session's CSRF token (`X-CSRF-Token`) from the same origin.
 * Every change done is written to the audit trail with who made it (by its domain, with what it
 * did, or here with the request), and every refusal logged.
 */

const log = componentLogger('operators');

export const SESSION_COOKIE = 'console_session';
export const CSRF_HEADER = 'x-csrf-token';

/** Who a request is, left in `res.locals` for the routes (`operatorOf`) and the masking. */
export interface Caller {
  name: string;
  role: Role;
  via: 'token' | 'session';
  csrfToken?: string;
  mustChangePassword?: boolean;
}

export const callerOf = (res: Response): Caller | undefined => res.locals.caller as Caller | undefined;

/** The cookie named `name` in a `Cookie` header. */
export function cookieOf(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A change from a page of another site is refused: its Origin (when sent) must be ours. */
export function sameOrigin(req: Request): boolean {
  const origin = req.get('origin');
  if (origin === undefined) return req.get('sec-fetch-site') !== 'cross-site';
  try {
    return new URL(origin).host === req.get('host');
  } catch {
    return false;
  }
}

/** Who calls: a bearer token's holder, or the console session's operator; undefined when neither. */
export async function identify(
  req: Request,
  accounts: OperatorAccounts,
  credentials: readonly AdminCredential[],
): Promise<Caller | 'bad_token' | undefined> {
  const header = req.get('authorization');
  if (header !== undefined) {
    const label = credentialLabel(header, credentials);
    if (label !== undefined) return { name: label, role: 'admin', via: 'token' };
    const presented = /^Bearer (.+)$/i.exec(header)?.[1]?.trim();
    const operator = presented ? await accounts.byToken(presented) : undefined;
    return operator ? { name: operator.name, role: operator.role, via: 'token' } : 'bad_token';
  }
  const session = await accounts.session(cookieOf(req, SESSION_COOKIE));
  if (!session) return undefined;
  return {
    name: session.operator.name,
    role: session.operator.role,
    via: 'session',
    csrfToken: session.csrfToken,
    mustChangePassword: session.operator.mustChangePassword,
  };
}

export interface AdminAuthOptions {
  accounts: OperatorAccounts;
  credentials: readonly AdminCredential[];
  audit: Pick<AuditTrail, 'record'>;
}

/** Mounted at `/admin` in front of every admin router. */
export function adminAuth(options: AdminAuthOptions): RequestHandler {
  return (req, res, next) => {
    void (async () => {
      const caller = await identify(req, options.accounts, options.credentials);
      if (caller === undefined || caller === 'bad_token') {
        log.warn('admin request refused: no valid token or session', { path: req.path, ip: req.ip });
        res.status(401).set('WWW-Authenticate', 'Bearer realm="admin"').json({
          error: 'unauthorized',
          message: 'send Authorization: Bearer <token>, or log in at /console',
        });
        return;
      }
      const change = isChange(req.method);
      // Every change done (2xx) that its domain does not audit itself, under the caller's name.
      if (change && !auditsItself(req.method, req.path))
        res.on('finish', () => {
          if (res.statusCode < 200 || res.statusCode >= 300) return;
          const detail = `${req.method} ${maskNumbersInText(req.originalUrl.split('?')[0])} → ${res.statusCode}`;
          options.audit
            .record({ actor: caller.name, action: 'admin_change', detail })
            .catch((error: unknown) =>
              log.error('AUDIT TRAIL WRITE FAILED after an admin change', {
                actor: caller.name,
                detail,
                error,
              }),
            );
        });
      if (caller.via === 'session') {
        if (change) {
          const sent = req.get(CSRF_HEADER) ?? '';
          if (!sameOrigin(req) || sent === '' || !sameSecret(sent, caller.csrfToken ?? '')) {
            log.warn('admin change refused: missing or wrong CSRF token', {
              operator: caller.name,
              path: req.path,
            });
            res
              .status(403)
              .json({ error: 'csrf', message: 'this change did not come from the console page: reload it' });
            return;
          }
        }
        if (caller.mustChangePassword) {
          res.status(403).json({
            error: 'password_change_required',
            message: 'change your one-time password first (/console)',
          });
          return;
        }
      }
      const reveal = req.query.reveal === 'true';
      const needs = permissionFor(req.method, req.path, reveal);
      const refused = !roleMay(caller.role, needs)
        ? needs
        : reveal && !roleMay(caller.role, 'reveal')
          ? 'reveal'
          : null;
      if (refused) {
        log.warn('admin request refused: the role may not', {
          operator: caller.name,
          role: caller.role,
          needs: refused,
          path: req.path,
        });
        res.status(403).json({
          error: 'forbidden',
          message: `a ${caller.role} may not do this (it needs ${refused})`,
          role: caller.role,
          needs: refused,
        });
        return;
      }
      res.locals.caller = caller;
      // What the routes' own audit entries and `operatorOf` name.
      res.locals.operator = caller.name;
      next();
    })().catch(next);
  };
}
