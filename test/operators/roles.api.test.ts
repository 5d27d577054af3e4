import request from 'supertest';
import { main } from '../../src/cli/main';
import type { Gateway } from '../../src/gateway/app';
import { SqlAuditTrail } from '../../src/purchases/care/audit-sql';
import { newPhone, startTestGateway } from '../e2e/harness';
import { testRecordsEnv } from '../support/database';
import { until } from '../support/wait';

/**
 * The roles on the admin API of a whole gateway (records in PostgreSQL): each operator's personal
 * token and a console session are refused what their role may not do — the API refuses it, not
 * only the page — and every change, refused or done, is audited under the person's name.
 */

const ADMIN_TOKEN = 'roles-admin-token-0123456789';
/** The gateway's and the CLI's pepper, as an operator sets both. */
const PEPPER = { OPERATOR_PASSWORD_PEPPER: 'test-console-operator-password-pepper-0123' };
const records = testRecordsEnv('roles');
let gateway: Gateway;
const tokens: Record<string, string> = {};
let agent: string;

async function cli(...argv: string[]): Promise<string> {
  const out: string[] = [];
  const code = await main(['operator', ...argv], {
    stdout: (line) => out.push(line),
    stderr: () => undefined,
    env: { ...records.env, ...PEPPER, USER: 'tester' },
  });
  if (code !== 0) throw new Error(`operator ${argv.join(' ')}: exit ${code}`);
  return out.join('\n');
}

const api = () => request(gateway.url);
const as = (who: string) => ({ Authorization: `Bearer ${who === 'shared' ? ADMIN_TOKEN : tokens[who]}` });

beforeAll(async () => {
  gateway = await startTestGateway({ ...records.env, ...PEPPER, ADMIN_TOKEN });
  for (const role of ['viewer', 'care', 'finance', 'agents', 'admin']) {
    await cli('add', '--name', `${role}-1`, '--role', role);
    tokens[role] = /shown once: (\S+)/.exec(await cli('token', '--name', `${role}-1`))![1];
  }
  agent = newPhone();
  await api()
    .post('/admin/agents')
    .set(as('shared'))
    .send({ msisdn: agent, name: 'Shop', float: true })
    .expect(201);
});
afterAll(async () => {
  await gateway.close();
  await records.drop();
});

const CHANGES: Array<[string, 'post' | 'put' | 'delete', () => string, object]> = [
  [
    'adjust a float',
    'post',
    () => `/admin/agents/${agent}/adjustments`,
    { amount: 'BWP 1.00', reason: 'test' },
  ],
  ['credit a float', 'post', () => `/admin/agents/${agent}/credits`, { amount: 'BWP 1.00', reference: 'r' }],
  ['block an agent', 'post', () => `/admin/agents/${agent}/disable`, {}],
  ['resend an SMS', 'post', () => '/admin/purchases/no-such-purchase/resend-sms', {}],
  ['clear the notice', 'delete', () => '/admin/notice', {}],
  // No such mismatch or payment: one let through answers 404, refused ones 403 before looking.
  ['assign a mismatch', 'post', () => '/admin/reconciliation/mismatches/999999/assign', { assignee: 'x' }],
  ['note a mismatch', 'post', () => '/admin/reconciliation/mismatches/999999/note', { note: 'looked' }],
  [
    'close a mismatch',
    'post',
    () => '/admin/reconciliation/mismatches/999999/close',
    { decision: 'other', note: 'looked' },
  ],
  [
    'review an unknown payment',
    'post',
    () => '/admin/payments/unknown/00000000-0000-4000-8000-000000000000/review',
    { note: 'looked it up' },
  ],
];
/** Which roles each change above lets through. */
const ALLOWED: Record<string, string[]> = {
  'adjust a float': ['finance', 'admin'],
  'credit a float': ['finance', 'admin'],
  'block an agent': ['agents', 'admin'],
  'resend an SMS': ['care', 'admin'],
  'clear the notice': ['care', 'admin'],
  'assign a mismatch': ['finance', 'admin'],
  'note a mismatch': ['finance', 'admin'],
  'close a mismatch': ['finance', 'admin'],
  'review an unknown payment': ['finance', 'admin'],
};

describe.each(['viewer', 'care', 'finance', 'agents', 'admin'])('a %s', (role) => {
  it('reads every list, masked', async () => {
    const counts = await api().get('/admin/purchases/counts').set(as(role)).expect(200);
    expect(counts.body.byState).toHaveProperty('needs_attention');
    const agents = await api().get('/admin/agents').set(as(role)).expect(200);
    expect(JSON.stringify(agents.body)).not.toContain(agent);
  });

  it.each(CHANGES)('may %s only if its role says so', async (what, method, path, body) => {
    const answer = await api()[method](path()).set(as(role)).send(body);
    if (ALLOWED[what].includes(role)) {
      expect(answer.status).not.toBe(403);
      if (/mismatch|unknown payment/.test(what)) expect(answer.status).toBe(404);
    } else expect(answer.body).toMatchObject({ error: 'forbidden', role });
    if (answer.status === 200 && what === 'block an agent')
      await api().post(`/admin/agents/${agent}/enable`).set(as('shared')).expect(200);
  });

  it(`${role === 'viewer' ? 'may not' : 'may'} reveal numbers`, async () => {
    const answer = await api().get('/admin/agents?reveal=true').set(as(role));
    if (role === 'viewer') expect(answer.body).toMatchObject({ error: 'forbidden', needs: 'reveal' });
    else expect(JSON.stringify(answer.body)).toContain(agent);
  });
});

it('a care token refused a float adjustment changes nothing; a finance one is audited under its name', async () => {
  const before = (await api().get(`/admin/agents/${agent}`).set(as('shared'))).body.float;
  await api()
    .post(`/admin/agents/${agent}/adjustments`)
    .set(as('care'))
    .send({ amount: 'BWP 900.00', reason: 'x' })
    .expect(403);
  expect((await api().get(`/admin/agents/${agent}`).set(as('shared'))).body.float).toEqual(before);
  await api()
    .post(`/admin/agents/${agent}/adjustments`)
    .set(as('finance'))
    .send({ amount: 'BWP 2.00', reference: 'adj-1', note: 'bank charge refunded' })
    .expect(201);
  const trail = new SqlAuditTrail(gateway.records);
  const entries = await until('the adjustment in the audit trail', async () => {
    const found = (await trail.list({ limit: 500 })).filter((e) => /adjustments → 201$/.test(e.detail ?? ''));
    return found.length > 0 ? found : null;
  });
  expect(entries.map((e) => [e.actor, e.action])).toContainEqual(['finance-1', 'admin_change']);
  expect(JSON.stringify(entries)).not.toContain(agent);
  expect(
    (await trail.list({ limit: 500 })).filter(
      (e) => e.actor === 'care-1' && /adjustments/.test(e.detail ?? ''),
    ),
  ).toEqual([]);
});

it('an unknown, revoked or disabled token is a 401; ADMIN_TOKEN stays an admin', async () => {
  await api().get('/admin/purchases/counts').set({ Authorization: 'Bearer opt_nothing' }).expect(401);
  await cli('add', '--name', 'temp', '--role', 'admin');
  const temp = /shown once: (\S+)/.exec(await cli('token', '--name', 'temp'))![1];
  await api()
    .get('/admin/purchases/counts')
    .set({ Authorization: `Bearer ${temp}` })
    .expect(200);
  await cli('disable', '--name', 'temp');
  await api()
    .get('/admin/purchases/counts')
    .set({ Authorization: `Bearer ${temp}` })
    .expect(401);
  await api()
    .post(`/admin/agents/${agent}/credits`)
    .set(as('shared'))
    .send({ amount: 'BWP 1.00', reference: 'shared-1' })
    .expect(201);
});

describe('a console session', () => {
  async function session(): Promise<{ cookie: string; csrf: string }> {
    const password = /one-time password: (\S+)/.exec(
      await cli('add', '--name', `s-${Date.now()}`, '--role', 'care'),
    )![1];
    const name = /^(s-\d+)/.exec(
      await cli('list').then((l) =>
        l
          .split('\n')
          .filter((x) => x.startsWith('s-'))
          .at(-1)!,
      ),
    )![1];
    const login = await api().post('/console/api/login').send({ name, password }).expect(200);
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    expect(String(login.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    const me = await api().get('/console/api/me').set('Cookie', cookie).expect(200);
    // The one-time password first: nothing else is served.
    await api().get('/admin/purchases/counts').set('Cookie', cookie).expect(403);
    await api()
      .post('/console/api/password')
      .set({ Cookie: cookie, 'X-CSRF-Token': me.body.csrfToken })
      .send({ current: password, password: 'a long enough passphrase' })
      .expect(200);
    return { cookie, csrf: me.body.csrfToken };
  }

  it('needs the CSRF token and our origin for every change', async () => {
    const { cookie, csrf } = await session();
    await api().get('/admin/purchases/counts').set('Cookie', cookie).expect(200);
    const noToken = await api().delete('/admin/notice').set('Cookie', cookie);
    expect(noToken.status).toBe(403);
    expect(noToken.body.error).toBe('csrf');
    await api().delete('/admin/notice').set({ Cookie: cookie, 'X-CSRF-Token': 'forged' }).expect(403);
    await api()
      .delete('/admin/notice')
      .set({ Cookie: cookie, 'X-CSRF-Token': csrf, Origin: 'https://evil.example' })
      .expect(403);
    // A login from another site's page is refused too.
    await api()
      .post('/console/api/login')
      .set('Origin', 'https://evil.example')
      .send({ name: 'x', password: 'y' })
      .expect(403);
    const done = await api().delete('/admin/notice').set({ Cookie: cookie, 'X-CSRF-Token': csrf });
    expect(done.status).toBeLessThan(300);
    // The role holds for a session as for a token.
    const refused = await api()
      .post(`/admin/agents/${agent}/adjustments`)
      .set({ Cookie: cookie, 'X-CSRF-Token': csrf })
      .send({ amount: 'BWP 1.00', reason: 'x' });
    expect(refused.body).toMatchObject({ error: 'forbidden', needs: 'finance' });
  });

  it('ends at logout, on the server', async () => {
    const { cookie, csrf } = await session();
    await api().post('/console/api/logout').set({ Cookie: cookie, 'X-CSRF-Token': csrf }).expect(200);
    await api().get('/admin/purchases/counts').set('Cookie', cookie).expect(401);
  });
});

it("the CLI refuses to make a password against PostgreSQL without the gateway's pepper", async () => {
  const err: string[] = [];
  const code = await main(['operator', 'add', '--name', 'nopepper', '--role', 'care'], {
    stdout: () => undefined,
    stderr: (line) => err.push(line),
    env: { ...records.env, USER: 'tester' },
  });
  expect(code).toBe(2);
  expect(err.join('\n')).toMatch(/set OPERATOR_PASSWORD_PEPPER as the gateway has it/);
  expect(await cli('list')).not.toContain('nopepper');
});
