import request from 'supertest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import type { Database } from '../../src/records/database';
import { testDatabase } from '../support/database';
import { ADMIN_TOKEN, agentAdminApp } from './harness';

/**
 * A dealer's retailer registrations (src/agents/registrations.ts) on PostgreSQL, and their
 * `/admin/agents/registrations` routes: refusals change nothing, a request is kept once per key,
 * approving registers once however often (and however concurrently) it is asked, a rejection or a
 * disabled dealer registers nothing, and no row or answer but the approval's holds a PIN.
 */

let db: Database;
let cleanup: () => Promise<void>;
let sandbox: RunningSandbox;
beforeAll(async () => {
  ({ db, cleanup } = await testDatabase('agents_registrations'));
  sandbox = await startSandbox({ port: 0, silent: true });
});
afterAll(async () => {
  await sandbox.close();
  await cleanup();
});

const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const DEALER = '26771000001';
const SHOP = '26771000009';

async function setup() {
  await db.query('TRUNCATE agents, agent_registrations, float_accounts, float_entries, float_holds CASCADE');
  const made = agentAdminApp(db, sandbox.url);
  await made.agents.registry.add({ msisdn: DEALER, name: 'Dealer Ltd', funding: { kind: 'float' } });
  return made;
}

it('refuses a bad number, the dealer itself, an agent, a blocked number and a disabled dealer, keeping nothing', async () => {
  const { agents } = await setup();
  const { registrations, registry } = agents;
  await registry.add({ msisdn: '26771000002', name: 'Other', funding: { kind: 'float' } });
  const ask = (number: string, key: string, blocked?: (m: string) => Promise<boolean>) =>
    registrations.request(DEALER, { msisdn: number, name: 'Shop' }, key, blocked);
  expect(await ask('12', 'k1')).toEqual({ status: 'refused', reason: 'invalid_number' });
  expect(await ask('71000001', 'k2')).toEqual({ status: 'refused', reason: 'self' });
  expect(await ask('71000002', 'k3')).toEqual({ status: 'refused', reason: 'agent' });
  expect(await ask('71000009', 'k4', async (m) => m === SHOP)).toEqual({
    status: 'refused',
    reason: 'blocked',
  });
  expect(await registrations.request(DEALER, { msisdn: '71000009', name: ' ' }, 'k5')).toEqual({
    status: 'refused',
    reason: 'invalid_name',
  });
  await registry.disable(DEALER);
  expect(await ask('71000009', 'k6')).toEqual({ status: 'refused', reason: 'dealer_disabled' });
  expect(await registrations.list()).toEqual([]);
});

it('keeps a request once per key; a second for the number waits behind it; approving registers once', async () => {
  const { agents } = await setup();
  const { registrations, registry } = agents;
  const first = await registrations.request(DEALER, { msisdn: '71000009', name: 'Mpho Shop' }, 'key-1');
  expect(first).toMatchObject({ status: 'pending', registration: { msisdn: SHOP, dealerMsisdn: DEALER } });
  expect(await registrations.request(DEALER, { msisdn: '71000009', name: 'Mpho Shop' }, 'key-1')).toEqual(
    first,
  );
  expect(await registrations.request(DEALER, { msisdn: '71000009', name: 'Mpho' }, 'key-2')).toEqual({
    status: 'refused',
    reason: 'pending',
  });
  const id = (first as { registration: { id: number } }).registration.id;
  // Ten approvals at once: one registers, the others find it decided.
  const answers = await Promise.all(Array.from({ length: 10 }, () => registrations.approve(id, 'ops')));
  expect(answers.filter((a) => a.status === 'approved')).toHaveLength(1);
  expect(answers.filter((a) => a.status === 'already')).toHaveLength(9);
  expect(await registry.get(SHOP)).toMatchObject({ dealerMsisdn: DEALER, mustChangePin: true });
  expect((await registrations.get(id))?.state).toBe('approved');
  expect((await registrations.reject(id, 'ops', null)).status).toBe('already');
  // Registered: a request for it now is refused.
  expect(await registrations.request(DEALER, { msisdn: '71000009', name: 'x' }, 'key-3')).toEqual({
    status: 'refused',
    reason: 'agent',
  });
});

it('a dealer disabled before the approval: rejected with a note, nothing registered', async () => {
  const { agents } = await setup();
  const asked = await agents.registrations.request(DEALER, { msisdn: '71000009', name: 'Shop' }, 'k');
  await agents.registry.disable(DEALER);
  const id = (asked as { registration: { id: number } }).registration.id;
  expect(await agents.registrations.approve(id, 'ops')).toMatchObject({
    status: 'rejected',
    registration: { state: 'rejected', note: 'dealer disabled', decidedBy: 'ops' },
  });
  expect(await agents.registry.get(SHOP)).toBeNull();
});

it('/admin/agents/registrations: lists, approves once with the one-time PIN (no-store), rejects, 404s', async () => {
  const { app, agents } = await setup();
  const a = await agents.registrations.request(DEALER, { msisdn: '71000009', name: 'Shop A' }, 'a');
  const b = await agents.registrations.request(DEALER, { msisdn: '71000008', name: 'Shop B' }, 'b');
  const [idA, idB] = [a, b].map((x) => (x as { registration: { id: number } }).registration.id);
  const listed = await request(app).get('/admin/agents/registrations?reveal=true').set(auth);
  expect(listed.status).toBe(200);
  expect(listed.body.registrations.map((r: { id: number }) => r.id)).toEqual([idA, idB]);
  expect(JSON.stringify(listed.body)).not.toMatch(/pin/i);

  const approved = await request(app).post(`/admin/agents/registrations/${idA}/approve`).set(auth);
  expect(approved.status).toBe(200);
  expect(approved.headers['cache-control']).toBe('no-store');
  expect(approved.body).toMatchObject({ status: 'approved', oneTimePin: expect.stringMatching(/^\d{6}$/) });
  const again = await request(app).post(`/admin/agents/registrations/${idA}/approve`).set(auth);
  expect(again.body.status).toBe('already');
  expect(again.body.oneTimePin).toBeUndefined();

  const rejected = await request(app)
    .post(`/admin/agents/registrations/${idB}/reject`)
    .set(auth)
    .send({ note: 'unknown shop' });
  expect(rejected.body).toMatchObject({ status: 'rejected', registration: { note: 'unknown shop' } });
  expect(await agents.registry.get('26771000008')).toBeNull();
  expect((await request(app).post('/admin/agents/registrations/999999/approve').set(auth)).status).toBe(404);
  expect((await request(app).get('/admin/agents/registrations?state=maybe').set(auth)).status).toBe(400);

  // The rows keep no PIN: every column of every registration.
  const rows = await db.query('SELECT * FROM agent_registrations');
  expect(JSON.stringify(rows.rows)).not.toContain(approved.body.oneTimePin);
});
