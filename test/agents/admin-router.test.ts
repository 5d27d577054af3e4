import express from 'express';
import request from 'supertest';
import { createAgentAdminRouter } from '../../src/agents/admin/router';
import { SANDBOX_ACCOUNTS, startSandbox, type RunningSandbox } from '../../src/sandbox';
import type { Database } from '../../src/records/database';
import { testDatabase } from '../support/database';
import { ADMIN_TOKEN, agentAdminApp } from './harness';

/** `/admin/agents` over HTTP, on the SQL stores (a test schema), with the sandbox answering `GET /accounts`. */

let db: Database;
let cleanup: () => Promise<void>;
let sandbox: RunningSandbox;
beforeAll(async () => {
  ({ db, cleanup } = await testDatabase('agents_admin'));
  sandbox = await startSandbox({ port: 0, silent: true });
});
afterAll(async () => {
  await sandbox.close();
  await cleanup();
});

const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
/** Each test its own agents: the agent tables emptied first. */
async function setup() {
  await db.query('TRUNCATE agents, float_accounts, float_entries, float_idempotency_keys, float_holds');
  return agentAdminApp(db, sandbox.url);
}

describe('/admin/agents', () => {
  it('refuses requests without the bearer token and serves nothing without ADMIN_TOKEN', async () => {
    const { app, desk } = await setup();
    expect((await request(app).get('/admin/agents')).status).toBe(401);
    const closed = express().use(createAgentAdminRouter({ desk, adminToken: undefined }));
    expect((await request(closed).get('/admin/agents').set(auth)).status).toBe(404);
    expect((await request(app).get('/admin/agents').set('Authorization', 'Bearer wrong')).status).toBe(401);
  });

  it('registers a float agent, shows the one-time PIN once and never the hash', async () => {
    const { app } = await setup();
    const created = await request(app).post('/admin/agents').set(auth).send({
      msisdn: '+267 71 234 567',
      name: 'Kgosi Stores',
      float: true,
      maxSale: 'BWP 500.00',
      maxDayCount: 20,
    });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.body.oneTimePin).toMatch(/^\d{6}$/);
    expect(created.body.agent).toMatchObject({
      msisdn: '26771234567',
      status: 'active',
      mustChangePin: true,
      funding: { kind: 'float' },
      limits: { maxSaleMinor: 50_000, maxDayCount: 20 },
    });
    const shown = await request(app).get('/admin/agents/71234567').set(auth);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      agent: { msisdn: '26771234567' },
      float: { availableMinor: 0, heldMinor: 0, entries: 0 },
      currency: 'BWP',
      allowance: {
        limits: { maxSaleMinor: 50_000, maxDayValueMinor: 2_000_000, maxDayCount: 20 },
        dayCountLeft: 20,
        availableMinor: 0,
      },
    });
    const listed = await request(app).get('/admin/agents').set(auth);
    expect(listed.body).toMatchObject({ count: 1, agents: [{ agent: { msisdn: '26771234567' } }] });
    for (const body of [shown.text, listed.text]) {
      expect(body).not.toContain(created.body.oneTimePin);
      expect(body).not.toMatch(/hash|salt/i);
    }
    expect(created.text).not.toMatch(/hash|salt/i);
  });

  it('checks a bound account against GET /accounts', async () => {
    const { app } = await setup();
    const ok = await request(app)
      .post('/admin/agents')
      .set(auth)
      .send({ msisdn: '26771234568', name: 'Bound', account: SANDBOX_ACCOUNTS.topup });
    expect(ok.status).toBe(201);
    expect(ok.body.agent.funding).toEqual({ kind: 'account', debitedAccountId: SANDBOX_ACCOUNTS.topup });
    const foreign = await request(app)
      .post('/admin/agents')
      .set(auth)
      .send({ msisdn: '26771234569', name: 'Foreign', account: SANDBOX_ACCOUNTS.otherUsers });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({ error: 'invalid_request', field: 'account' });
    expect((await request(app).get('/admin/agents/26771234569').set(auth)).status).toBe(404);
    // A float credit for an agent that sells from its own account is refused.
    const credit = await request(app)
      .post('/admin/agents/26771234568/credits')
      .set(auth)
      .send({ amount: 'BWP 10.00', reference: 'R' });
    expect(credit.status).toBe(409);
    expect(credit.body.error).toBe('not_float');
  });

  it('answers bad input with 400 naming the field and changes nothing', async () => {
    const { app } = await setup();
    const post = (body: object) => request(app).post('/admin/agents').set(auth).send(body);
    const cases: [object, string][] = [
      [{ name: 'A', float: true }, 'msisdn'],
      [{ msisdn: '123', name: 'A', float: true }, 'msisdn'],
      [{ msisdn: '26771234567', float: true }, 'name'],
      [{ msisdn: '26771234567', name: 'A' }, 'account'],
      [{ msisdn: '26771234567', name: 'A', float: true, account: 1001 }, 'account'],
      [{ msisdn: '26771234567', name: 'A', float: true, maxSale: 'BWP 1.234' }, 'maxSale'],
      [{ msisdn: '26771234567', name: 'A', float: true, maxSale: 'USD 10.00' }, 'maxSale'],
      [{ msisdn: '26771234567', name: 'A', float: true, maxDayCount: 0 }, 'maxDayCount'],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      expect({ status: res.status, field: res.body.field }).toEqual({ status: 400, field });
    }
    expect((await request(app).get('/admin/agents').set(auth)).body.count).toBe(0);
    const malformed = await request(app)
      .post('/admin/agents')
      .set(auth)
      .set('Content-Type', 'application/json')
      .send('{"msisdn":');
    expect(malformed.status).toBe(400);
    expect((await post({ msisdn: '26771234567', name: 'A', float: true })).status).toBe(201);
    expect((await post({ msisdn: '26771234567', name: 'B', float: true })).status).toBe(409);
  });

  it('credits once per Idempotency-Key and per reference, and prints the statement', async () => {
    const { app, time } = await setup();
    await request(app)
      .post('/admin/agents')
      .set(auth)
      .send({ msisdn: '26771234567', name: 'A', float: true });
    const credit = (body: object, key?: string) => {
      const req = request(app).post('/admin/agents/26771234567/credits').set(auth);
      return (key ? req.set('Idempotency-Key', key) : req).send(body);
    };
    const first = await credit({ amount: 'BWP 500.00', reference: 'BANK-77' }, 'retry-1');
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      applied: true,
      entry: { seq: 1, kind: 'credit', amountMinor: 50_000, balanceMinor: 50_000, reference: 'BANK-77' },
      balance: { availableMinor: 50_000, heldMinor: 0, entries: 1 },
    });
    const retried = await credit({ amount: 'BWP 500.00', reference: 'BANK-77' }, 'retry-1');
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({
      applied: false,
      entry: { seq: 1 },
      balance: { availableMinor: 50_000 },
    });
    expect((await credit({ amount: 'BWP 500.00', reference: 'BANK-77' })).body.applied).toBe(false);
    const reused = await credit({ amount: 'BWP 20.00', reference: 'BANK-78' }, 'retry-1');
    expect(reused.status).toBe(409);
    expect(reused.body.error).toBe('idempotency_key_used');
    expect((await credit({ amount: 'BWP 20.00', reference: 'BANK-77' })).body.error).toBe('reference_used');
    expect((await credit({ amount: 'BWP -5.00', reference: 'X' })).body).toMatchObject({ field: 'amount' });
    expect((await credit({ amount: 'BWP 5.00' })).body).toMatchObject({ field: 'reference' });

    time.set('2026-11-24T09:00:00.000Z');
    await credit({ amount: '250.50', reference: 'BANK-79' });
    const adjusted = await request(app)
      .post('/admin/agents/26771234567/adjustments')
      .set(auth)
      .send({ amount: 'BWP -0.50', reference: 'ADJ-1', note: 'bank fee' });
    expect(adjusted.status).toBe(201);
    const tooBig = await request(app)
      .post('/admin/agents/26771234567/adjustments')
      .set(auth)
      .send({ amount: 'BWP -1000.00', reference: 'ADJ-2', note: 'oops' });
    expect(tooBig.status).toBe(409);
    expect(tooBig.body.error).toBe('insufficient_float');

    const all = await request(app).get('/admin/agents/26771234567/statement').set(auth);
    expect(all.body).toMatchObject({
      currency: 'BWP',
      openingMinor: 0,
      closingMinor: 75_000,
      derivedMinor: 75_000,
      balance: { availableMinor: 75_000 },
    });
    expect(all.body.entries.map((e: { kind: string }) => e.kind)).toEqual(['credit', 'credit', 'adjustment']);
    // 2026-11-24 in Gaborone: the second day only.
    const day = await request(app)
      .get('/admin/agents/26771234567/statement?from=2026-11-24&to=2026-11-24')
      .set(auth);
    expect(day.body).toMatchObject({ openingMinor: 50_000, closingMinor: 75_000 });
    expect(day.body.entries.map((e: { seq: number }) => e.seq)).toEqual([2, 3]);
    const bad = await request(app).get('/admin/agents/26771234567/statement?from=yesterday').set(auth);
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('from');
  });

  it('disables, enables and resets a PIN', async () => {
    const { app, agents } = await setup();
    const created = await request(app)
      .post('/admin/agents')
      .set(auth)
      .send({ msisdn: '26771234567', name: 'A', float: true });
    const disabled = await request(app).post('/admin/agents/26771234567/disable').set(auth);
    expect(disabled.body.agent).toMatchObject({ status: 'disabled', disabledReason: 'operator' });
    expect(await agents.pins.verifyPin('26771234567', created.body.oneTimePin)).toEqual({
      status: 'disabled',
      reason: 'operator',
    });
    expect((await request(app).post('/admin/agents/26771234567/enable').set(auth)).body.agent.status).toBe(
      'active',
    );
    const reset = await request(app).post('/admin/agents/26771234567/reset-pin').set(auth);
    expect(reset.status).toBe(200);
    expect(reset.headers['cache-control']).toBe('no-store');
    expect(reset.body.oneTimePin).toMatch(/^\d{6}$/);
    expect(await agents.pins.verifyPin('26771234567', reset.body.oneTimePin)).toMatchObject({
      status: 'ok',
    });
    expect((await request(app).post('/admin/agents/26772999999/reset-pin').set(auth)).status).toBe(404);
  });
});
