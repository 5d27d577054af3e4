import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../records/database';
import type { AuditTrail, OperatorAction } from '../purchases/care/audit';
import { componentLogger } from '../observability/logger';
import {
  decoyHash,
  hashPassword,
  newPasswordProblem,
  oneTimePassword,
  passwordMatches,
  type PasswordHash,
} from './password';
import { isRole, ROLES, type Role } from './roles';

/**
 * Named operator accounts (table `operators`, migration 0025): add (a one-time password, changed
 * at the first login), disable, enable, reset; log in with the lockout; console sessions that
 * end after idle time; personal API tokens. Session ids and tokens are random 32 bytes, kept
 * only as their SHA-256. Every change is written to the audit trail with who made it.
 */

const log = componentLogger('operators');

export const NAME = /^[a-z0-9][a-z0-9._-]{1,31}$/;

export interface OperatorsPolicy {
  /** Wrong passwords in a row that lock the account. */
  maxAttempts: number;
  /** How long a lockout lasts. */
  lockMs: number;
  /** A console session ends after this long without a request. */
  idleMs: number;
  /** …and after this long whatever it does. */
  maxSessionMs: number;
}

export const DEFAULT_OPERATORS_POLICY: OperatorsPolicy = {
  maxAttempts: 5,
  lockMs: 15 * 60_000,
  idleMs: 30 * 60_000,
  maxSessionMs: 12 * 3600_000,
};

export interface Operator {
  name: string;
  role: Role;
  status: 'active' | 'disabled';
  mustChangePassword: boolean;
  lockedUntil: string | null;
  createdAt: string;
}

/** The operator's input is unusable (400); nothing changed. */
export class OperatorInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'OperatorInputError';
  }
}

export class OperatorNotFoundError extends Error {
  constructor(name: string) {
    super(`no operator ${name}`);
    this.name = 'OperatorNotFoundError';
  }
}

export class OperatorExistsError extends Error {
  constructor(name: string) {
    super(`operator ${name} exists already`);
    this.name = 'OperatorExistsError';
  }
}

/** What a login came to. Wrong name, wrong password and disabled answer alike to the caller. */
export type LoginOutcome =
  | { kind: 'ok'; operator: Operator; sessionId: string }
  | { kind: 'refused' }
  | { kind: 'locked'; untilMs: number };

/** A live console session: who, and the token its changes must carry (derived from the id). */
export interface OperatorSession {
  operator: Operator;
  csrfToken: string;
}

const sha256 = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');
/** The CSRF token of a session: derived from its id (never stored), so only its cookie's holder knows it. */
export const csrfTokenOf = (sessionId: string): string =>
  createHash('sha256').update(`csrf:${sessionId}`, 'utf8').digest('base64url');
const TOKEN_PREFIX = 'opt_';

/**
 * An operator's columns, named: a statement prepared on `*` fails once a migration adds a column
 * (src/records/README.md, "Prepared statements").
 */
const OPERATOR =
  'name, role, status, password_hash, must_change_password, failed_attempts, locked_until, created_at';
const OPERATOR_O = OPERATOR.split(', ')
  .map((column) => `o.${column}`)
  .join(', ');

interface Row {
  name: string;
  role: string;
  status: 'active' | 'disabled';
  password_hash: PasswordHash;
  must_change_password: boolean;
  failed_attempts: number;
  locked_until: Date | string | null;
  created_at: Date | string;
}

const iso = (value: Date | string | null): string | null =>
  value === null ? null : new Date(value).toISOString();

function operatorOf(row: Row): Operator {
  return {
    name: row.name,
    role: row.role as Role,
    status: row.status,
    mustChangePassword: row.must_change_password,
    lockedUntil: iso(row.locked_until),
    createdAt: iso(row.created_at)!,
  };
}

export interface OperatorAccountsOptions {
  db: Database;
  pepper: Buffer;
  audit: Pick<AuditTrail, 'record'>;
  policy?: Partial<OperatorsPolicy>;
  clock?: () => number;
}

export class OperatorAccounts {
  readonly policy: OperatorsPolicy;
  private readonly db: Database;
  private readonly clock: () => number;

  constructor(private readonly options: OperatorAccountsOptions) {
    this.db = options.db;
    this.policy = { ...DEFAULT_OPERATORS_POLICY, ...options.policy };
    this.clock = options.clock ?? Date.now;
  }

  private now(): Date {
    return new Date(this.clock());
  }

  private async row(name: string): Promise<Row | undefined> {
    const result = await this.db.query<Row>(`SELECT ${OPERATOR} FROM operators WHERE name = $1`, [name]);
    return result.rows[0];
  }

  async get(name: string): Promise<Operator> {
    const row = await this.row(nameOf(name));
    if (!row) throw new OperatorNotFoundError(name);
    return operatorOf(row);
  }

  async list(): Promise<Operator[]> {
    const result = await this.db.query<Row>(`SELECT ${OPERATOR} FROM operators ORDER BY name`);
    return result.rows.map(operatorOf);
  }

  async count(): Promise<number> {
    const result = await this.db.query<{ n: string }>('SELECT count(*)::text AS n FROM operators');
    return Number(result.rows[0].n);
  }

  /** A new operator and its one-time password (shown once, to hand over). */
  async add(name: unknown, role: unknown, by: string): Promise<{ operator: Operator; password: string }> {
    const checked = nameOf(name);
    if (!isRole(role)) throw new OperatorInputError('role', `role must be one of: ${ROLES.join(', ')}`);
    const password = oneTimePassword();
    const hash = await hashPassword(password, this.options.pepper);
    const now = this.now();
    const inserted = await this.db.query<Row>(
      `INSERT INTO operators (name, role, password_hash, must_change_password, created_at, updated_at)
       VALUES ($1, $2, $3, true, $4, $4) ON CONFLICT (name) DO NOTHING RETURNING ${OPERATOR}`,
      [checked, role, JSON.stringify(hash), now],
    );
    if (inserted.rows.length === 0) throw new OperatorExistsError(checked);
    await this.audited(by, 'operator_add', `${checked} as ${role}`);
    return { operator: operatorOf(inserted.rows[0]), password };
  }

  /** A new one-time password; the lockout cleared, every session of the operator ended. */
  async reset(name: unknown, by: string): Promise<{ operator: Operator; password: string }> {
    const checked = nameOf(name);
    const password = oneTimePassword();
    const hash = await hashPassword(password, this.options.pepper);
    const updated = await this.db.query<Row>(
      `UPDATE operators SET password_hash = $2, must_change_password = true, failed_attempts = 0,
              locked_until = NULL, updated_at = $3
        WHERE name = $1 RETURNING ${OPERATOR}`,
      [checked, JSON.stringify(hash), this.now()],
    );
    if (updated.rows.length === 0) throw new OperatorNotFoundError(checked);
    await this.db.query('DELETE FROM operator_sessions WHERE operator = $1', [checked]);
    await this.audited(by, 'operator_reset', checked);
    return { operator: operatorOf(updated.rows[0]), password };
  }

  /** Disabled: its sessions end and its tokens stop working at once. */
  async disable(name: unknown, by: string): Promise<Operator> {
    const operator = await this.setStatus(nameOf(name), 'disabled');
    await this.db.query('DELETE FROM operator_sessions WHERE operator = $1', [operator.name]);
    await this.audited(by, 'operator_disable', operator.name);
    return operator;
  }

  async enable(name: unknown, by: string): Promise<Operator> {
    const operator = await this.setStatus(nameOf(name), 'active');
    await this.audited(by, 'operator_enable', operator.name);
    return operator;
  }

  private async setStatus(name: string, status: Operator['status']): Promise<Operator> {
    const updated = await this.db.query<Row>(
      `UPDATE operators SET status = $2, updated_at = $3 WHERE name = $1 RETURNING ${OPERATOR}`,
      [name, status, this.now()],
    );
    if (updated.rows.length === 0) throw new OperatorNotFoundError(name);
    return operatorOf(updated.rows[0]);
  }

  /**
   * A login: while locked no password is checked; `maxAttempts` wrong ones in a row lock the
   * account for `lockMs`. An unknown or disabled name costs the same scrypt and answers as a
   * wrong password does.
   */
  async login(name: unknown, password: unknown): Promise<LoginOutcome> {
    const given = typeof password === 'string' ? password : '';
    const row =
      typeof name === 'string' && NAME.test(name.trim().toLowerCase())
        ? await this.row(name.trim().toLowerCase())
        : undefined;
    const nowMs = this.clock();
    const lockedUntil = row?.locked_until ? Date.parse(iso(row.locked_until)!) : 0;
    if (row && lockedUntil > nowMs) return { kind: 'locked', untilMs: lockedUntil };
    const right = await passwordMatches(
      given,
      row?.password_hash ?? (await decoyHash(this.options.pepper)),
      this.options.pepper,
    );
    if (!row || row.status !== 'active') return { kind: 'refused' };
    if (!right) {
      const until = new Date(nowMs + this.policy.lockMs);
      const updated = await this.db.query<{ locked_until: Date | string | null; failed_attempts: number }>(
        `UPDATE operators
            SET failed_attempts = CASE WHEN failed_attempts + 1 >= $2 THEN 0 ELSE failed_attempts + 1 END,
                locked_until = CASE WHEN failed_attempts + 1 >= $2 THEN $3 ELSE locked_until END
          WHERE name = $1 RETURNING locked_until, failed_attempts`,
        [row.name, this.policy.maxAttempts, until],
      );
      const locked = updated.rows[0]?.locked_until ? Date.parse(iso(updated.rows[0].locked_until)!) : 0;
      if (locked > nowMs) {
        log.warn('operator locked out after wrong passwords', { operator: row.name, untilMs: locked });
        await this.audited(row.name, 'operator_lockout', `${this.policy.maxAttempts} wrong passwords`);
        return { kind: 'locked', untilMs: locked };
      }
      return { kind: 'refused' };
    }
    await this.db.query('UPDATE operators SET failed_attempts = 0, locked_until = NULL WHERE name = $1', [
      row.name,
    ]);
    const sessionId = randomBytes(32).toString('base64url');
    await this.db.query(
      'INSERT INTO operator_sessions (id_hash, operator, created_at, last_seen_at) VALUES ($1, $2, $3, $3)',
      [sha256(sessionId), row.name, new Date(nowMs)],
    );
    await this.audited(row.name, 'operator_login', null);
    return { kind: 'ok', operator: operatorOf(row), sessionId };
  }

  /** The live session of a cookie's id, its idle time restarted; undefined when over, ended or disabled. */
  async session(sessionId: string | undefined): Promise<OperatorSession | undefined> {
    if (!sessionId || sessionId.length > 100) return undefined;
    const now = this.now();
    const result = await this.db.query<Row>(
      `UPDATE operator_sessions s SET last_seen_at = $2
         FROM operators o
        WHERE s.id_hash = $1 AND o.name = s.operator AND o.status = 'active'
          AND s.last_seen_at > $3 AND s.created_at > $4
        RETURNING ${OPERATOR_O}`,
      [
        sha256(sessionId),
        now,
        new Date(now.getTime() - this.policy.idleMs),
        new Date(now.getTime() - this.policy.maxSessionMs),
      ],
    );
    const row = result.rows[0];
    return row ? { operator: operatorOf(row), csrfToken: csrfTokenOf(sessionId) } : undefined;
  }

  async logout(sessionId: string, name: string): Promise<void> {
    await this.db.query('DELETE FROM operator_sessions WHERE id_hash = $1', [sha256(sessionId)]);
    await this.audited(name, 'operator_logout', null);
  }

  /** The operator's own change: the current password (the one-time one at first) and a new one. */
  async changePassword(name: string, current: unknown, next: unknown): Promise<Operator> {
    const row = await this.row(name);
    if (!row || row.status !== 'active') throw new OperatorNotFoundError(name);
    const right =
      typeof current === 'string' && (await passwordMatches(current, row.password_hash, this.options.pepper));
    if (!right) throw new OperatorInputError('current', 'the current password is not right');
    const problem = newPasswordProblem(next, name, current as string);
    if (problem) throw new OperatorInputError('password', problem);
    const hash = await hashPassword(next as string, this.options.pepper);
    const updated = await this.db.query<Row>(
      `UPDATE operators SET password_hash = $2, must_change_password = false, updated_at = $3
        WHERE name = $1 RETURNING ${OPERATOR}`,
      [name, JSON.stringify(hash), this.now()],
    );
    await this.audited(name, 'operator_password', null);
    return operatorOf(updated.rows[0]);
  }

  /** A personal API token (shown once): the admin API takes it as `Authorization: Bearer`. */
  async createToken(
    name: unknown,
    label: unknown,
    by: string,
  ): Promise<{ token: string; operator: Operator }> {
    const operator = await this.get(nameOf(name));
    const text = typeof label === 'string' && label.trim() !== '' ? label.trim().slice(0, 64) : 'api';
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    await this.db.query(
      'INSERT INTO operator_tokens (token_hash, operator, label, created_at) VALUES ($1, $2, $3, $4)',
      [sha256(token), operator.name, text, this.now()],
    );
    await this.audited(by, 'operator_token', `${operator.name}: ${text}`);
    return { token, operator };
  }

  /** Every token of an operator stops working. */
  async revokeTokens(name: unknown, by: string): Promise<number> {
    const checked = nameOf(name);
    const result = await this.db.query(
      'UPDATE operator_tokens SET revoked_at = $2 WHERE operator = $1 AND revoked_at IS NULL',
      [checked, this.now()],
    );
    await this.audited(by, 'operator_token_revoke', checked);
    return result.rowCount ?? 0;
  }

  /** The active operator a bearer token belongs to (a token that is not ours costs one lookup). */
  async byToken(token: string): Promise<Operator | undefined> {
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 100) return undefined;
    const result = await this.db.query<Row>(
      `UPDATE operator_tokens t SET last_used_at = $2 FROM operators o
        WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND o.name = t.operator AND o.status = 'active'
        RETURNING ${OPERATOR_O}`,
      [sha256(token), this.now()],
    );
    return result.rows[0] ? operatorOf(result.rows[0]) : undefined;
  }

  private async audited(actor: string, action: OperatorAction, detail: string | null): Promise<void> {
    await this.options.audit.record({ actor, action, detail });
  }
}

/** A name as stored: lower case, 2-32 of a-z 0-9 . _ - (it names the person in the audit trail). */
export function nameOf(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (!NAME.test(name))
    throw new OperatorInputError(
      'name',
      'name must be 2-32 characters of a-z 0-9 . _ - (starting with a letter or digit)',
    );
  return name;
}
