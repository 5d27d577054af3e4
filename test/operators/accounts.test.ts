import { SqlAuditTrail } from '../../src/purchases/care/audit-sql';
import { OperatorAccounts, OperatorExistsError, OperatorInputError } from '../../src/operators/accounts';
import { testDatabase, type TestDatabase } from '../support/database';

/**
 * Operator accounts on the real PostgreSQL, with a clock the test moves: one-time passwords,
 * the lockout and its end, idle sessions, tokens, and what is (not) stored.
 */

let database: TestDatabase;
let now = Date.parse('2026-12-01T08:00:00Z');
let accounts: OperatorAccounts;
const pepper = Buffer.from('p'.repeat(32));

beforeAll(async () => {
  database = await testDatabase('operators');
  accounts = new OperatorAccounts({
    db: database.db,
    pepper,
    audit: new SqlAuditTrail(database.db),
    policy: { maxAttempts: 3, lockMs: 60_000, idleMs: 10 * 60_000 },
    clock: () => now,
  });
});
afterAll(() => database.cleanup());

it('adds an operator with a one-time password kept only as a peppered scrypt hash', async () => {
  const { operator, password } = await accounts.add('Thabo', 'care', 'cli:root');
  expect(operator).toMatchObject({ name: 'thabo', role: 'care', status: 'active', mustChangePassword: true });
  expect(password).toMatch(/^[A-Za-z2-9]{4}(-[A-Za-z2-9]{4}){3}$/);
  const row = (
    await database.db.query<{ password_hash: object }>(
      "SELECT password_hash FROM operators WHERE name = 'thabo'",
    )
  ).rows[0];
  expect(JSON.stringify(row)).not.toContain(password);
  expect(row.password_hash).toMatchObject({ N: 32768, r: 8 });
  await expect(accounts.add('thabo', 'admin', 'cli:root')).rejects.toThrow(OperatorExistsError);
  await expect(accounts.add('x', 'care', 'cli:root')).rejects.toThrow(OperatorInputError);
  await expect(accounts.add('mpho', 'boss', 'cli:root')).rejects.toThrow(/role must be one of/);
  // Another pepper: the same password does not match (the pepper lives outside the database).
  const other = new OperatorAccounts({
    db: database.db,
    pepper: Buffer.from('q'.repeat(32)),
    audit: new SqlAuditTrail(database.db),
    clock: () => now,
  });
  expect((await other.login('thabo', password)).kind).toBe('refused');
  expect((await accounts.login('thabo', password)).kind).toBe('ok');
});

it('locks after the wrong passwords in a row, for a while only', async () => {
  const { password } = await accounts.add('lesedi', 'viewer', 'cli:root');
  expect((await accounts.login('lesedi', 'nope-1')).kind).toBe('refused');
  expect((await accounts.login('lesedi', 'nope-2')).kind).toBe('refused');
  const locked = await accounts.login('lesedi', 'nope-3');
  expect(locked).toEqual({ kind: 'locked', untilMs: now + 60_000 });
  expect((await accounts.login('lesedi', password)).kind).toBe('locked');
  now += 60_001;
  expect((await accounts.login('lesedi', password)).kind).toBe('ok');
  // An unknown name answers as a wrong password does.
  expect((await accounts.login('nobody', password)).kind).toBe('refused');
});

it('changes the one-time password: the current one needed, a weak one refused', async () => {
  const { password } = await accounts.add('naledi', 'finance', 'cli:root');
  await expect(accounts.changePassword('naledi', 'wrong', 'a much better passphrase')).rejects.toThrow(
    /current password/,
  );
  await expect(accounts.changePassword('naledi', password, 'short')).rejects.toThrow(/at least 12/);
  await expect(accounts.changePassword('naledi', password, 'naledi-is-my-name')).rejects.toThrow(/your name/);
  const changed = await accounts.changePassword('naledi', password, 'a much better passphrase');
  expect(changed.mustChangePassword).toBe(false);
  expect((await accounts.login('naledi', password)).kind).toBe('refused');
  expect((await accounts.login('naledi', 'a much better passphrase')).kind).toBe('ok');
});

it('ends a session after idle time, at logout, and when its operator is disabled', async () => {
  const { password } = await accounts.add('kagiso', 'agents', 'cli:root');
  const login = await accounts.login('kagiso', password);
  if (login.kind !== 'ok') throw new Error('login failed');
  const stored = await database.db.query<{ id_hash: string }>(
    "SELECT id_hash FROM operator_sessions WHERE operator = 'kagiso'",
  );
  expect(stored.rows[0].id_hash).not.toBe(login.sessionId);
  expect(stored.rows[0].id_hash).toMatch(/^[0-9a-f]{64}$/);
  now += 9 * 60_000;
  expect((await accounts.session(login.sessionId))?.operator.name).toBe('kagiso');
  now += 9 * 60_000; // 9 minutes after the last request: still alive
  expect(await accounts.session(login.sessionId)).toBeDefined();
  now += 10 * 60_000 + 1;
  expect(await accounts.session(login.sessionId)).toBeUndefined();

  const again = await accounts.login('kagiso', password);
  if (again.kind !== 'ok') throw new Error('login failed');
  await accounts.disable('kagiso', 'cli:root');
  expect(await accounts.session(again.sessionId)).toBeUndefined();
  expect((await accounts.login('kagiso', password)).kind).toBe('refused');
});

it('personal tokens: stored hashed, stopped by a revoke or a disable', async () => {
  await accounts.add('boitumelo', 'care', 'cli:root');
  const { token } = await accounts.createToken('boitumelo', 'nightly script', 'cli:root');
  expect((await accounts.byToken(token))?.name).toBe('boitumelo');
  const rows = await database.db.query('SELECT * FROM operator_tokens');
  expect(JSON.stringify(rows.rows)).not.toContain(token);
  await accounts.revokeTokens('boitumelo', 'cli:root');
  expect(await accounts.byToken(token)).toBeUndefined();
  const second = await accounts.createToken('boitumelo', 'api', 'cli:root');
  await accounts.disable('boitumelo', 'cli:root');
  expect(await accounts.byToken(second.token)).toBeUndefined();
});

it('writes every account change to the audit trail with who made it', async () => {
  const entries = await new SqlAuditTrail(database.db).list({ limit: 200 });
  const seen = entries.map((e) => `${e.actor} ${e.action}`);
  expect(seen).toEqual(
    expect.arrayContaining([
      'cli:root operator_add',
      'cli:root operator_disable',
      'cli:root operator_token',
      'cli:root operator_token_revoke',
      'lesedi operator_lockout',
      'naledi operator_password',
      'kagiso operator_login',
    ]),
  );
});
