import axios from 'axios';
import request from 'supertest';
import { main } from '../../src/cli/main';
import type { Gateway } from '../../src/gateway/app';
import { expiresAt } from '../../src/purchases/store';
import { ledger, newPhone, startTestGateway, waitForSms } from '../e2e/harness';
import { testRecordsEnv } from '../support/database';
import { captureLogs } from '../support/logs';
import { testRedis, type TestRedis } from '../support/redis';
import { until } from '../support/wait';
import { newPurchaseRecord, type PurchaseRecord } from '../../src/purchases/types';
import { intent } from './fixtures';

/**
 * Customer care on a whole gateway (embedded sandbox over HTTP, its records in PostgreSQL, Redis,
 * the real admin routes): find, resolve, reconcile again, the audit trail, masks and reveals,
 * retention, metrics; the operator CLI on the same records.
 */

const ADMIN = 'care-admin-token-0123456789';
const ALICE = 'care-alice-token-0123456789';
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

let gateway: Gateway;
let redis: TestRedis;
/** The gateway's records: a schema of its own, which the CLI opens too. */
const records = testRecordsEnv('care');
let logs: ReturnType<typeof captureLogs>;
let seq = 0;

beforeAll(async () => {
  redis = testRedis('care');
  logs = captureLogs();
  gateway = await startTestGateway({
    ...records.env,
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    ADMIN_TOKEN: ADMIN,
    ADMIN_TOKENS: `alice:${ALICE}`,
    RECONCILE_DEADLINE_MS: '1000',
    // The sandbox's wallet holds BWP 1,000,000: under this alert.
    LOW_BALANCE_ALERT: 'BWP 2000000.00',
    BALANCE_POLL_INTERVAL_MS: '0',
  });
});
afterAll(async () => {
  await gateway.close();
  logs.stop();
  await redis.cleanup();
  await records.drop();
});

const api = () => request(gateway.url);

async function sandbox(path: string, method: 'POST' | 'DELETE', body?: object): Promise<void> {
  await axios({ url: `${gateway.purchaseServiceUrl}${path}`, method, data: body });
}

async function settledIn(id: string, states: string[]): Promise<PurchaseRecord> {
  return until(`purchase ${id} in ${states.join('|')}`, async () => {
    const r = await gateway.desk.get(id);
    return r && states.includes(r.state) && (r.state === 'resolved' || r.notifiedAt !== null) ? r : null;
  });
}

/** A purchase of `phone` the sandbox performed but whose outcome the gateway could not learn. */
async function needsAttention(phone: string, meter = '01234567890'): Promise<PurchaseRecord> {
  await sandbox('/sandbox/faults', 'POST', {
    endpoint: 'confirm',
    fault: 'provider_timeout',
    completes: true,
  });
  await sandbox('/sandbox/faults', 'POST', { endpoint: 'retry', fault: 'internal_error', count: 1000 });
  try {
    const created = await gateway.desk.create(
      intent({ beneficiaryMsisdn: phone, requesterMsisdn: phone, subscriberIdentifier: meter }),
      `care-${process.pid}-${++seq}`,
    );
    return await settledIn(created.id, ['needs_attention']);
  } finally {
    await sandbox('/sandbox/faults', 'DELETE');
  }
}

async function succeeded(phone: string): Promise<PurchaseRecord> {
  const created = await gateway.desk.create(
    intent({ beneficiaryMsisdn: phone, requesterMsisdn: phone }),
    `care-${process.pid}-${++seq}`,
  );
  return settledIn(created.id, ['succeeded']);
}

/** The token as the sandbox issued it, and its digits run together: neither may show masked. */
const tokenForms = (r: PurchaseRecord): string[] => {
  const raw = r.result!.rawToken!;
  return [raw, raw.replace(/\D/g, '')];
};

describe('finding purchases', () => {
  it('by number (as typed locally), identifier and either reference; numbers and tokens masked', async () => {
    const phone = newPhone();
    const done = await succeeded(phone);
    const stuck = await needsAttention(phone, '04040404040');
    const local = phone.slice(3);

    const byPhone = await api().get(`/admin/purchases?msisdn=${local}`).set(as(ADMIN)).expect(200);
    expect(byPhone.body).toMatchObject({ by: 'msisdn', count: 2 });
    expect(byPhone.body.purchases.map((p: PurchaseRecord) => p.id)).toEqual([stuck.id, done.id]);
    const byMeter = await api().get('/admin/purchases?identifier=04040404040').set(as(ADMIN)).expect(200);
    expect(byMeter.body.purchases.map((p: PurchaseRecord) => p.id)).toContain(stuck.id);
    const byOurs = await api().get(`/admin/purchases?reference=${stuck.externalReference}`).set(as(ADMIN));
    expect(byOurs.body.purchases.map((p: PurchaseRecord) => p.id)).toEqual([stuck.id]);
    const byProvider = await api()
      .get(`/admin/purchases?reference=${encodeURIComponent(done.result!.reference!)}`)
      .set(as(ADMIN));
    expect(byProvider.body.purchases.map((p: PurchaseRecord) => p.id)).toEqual([done.id]);

    const shown = await api().get(`/admin/purchases/${done.id}`).set(as(ADMIN)).expect(200);
    expect(shown.body.sms.length).toBeGreaterThan(0);
    for (const res of [byPhone, byOurs, byProvider, shown]) {
      expect(res.text).not.toContain(phone);
      for (const form of tokenForms(done)) expect(res.text).not.toContain(form);
    }
    expect(byPhone.text).toMatch(new RegExp(`"beneficiaryMsisdn":"267\\*{4}${phone.slice(-4)}#[0-9a-f]{4}"`));
    // Masked by field: the provider's ids, references and dates are shown whole.
    expect(byProvider.body.purchases[0].result).toMatchObject({
      reference: done.result!.reference,
      providerTransactionId: done.result!.providerTransactionId,
    });
    expect(byProvider.body.purchases[0].settledAt).toBe(done.settledAt);
    expect(shown.body.purchase.result.rawToken).toBe(`****${tokenForms(done)[1].slice(-4)}`);
  });

  it('refuses a search by none or two keys, and a number that is not one, with a clear 400', async () => {
    const none = await api().get('/admin/purchases?limit=5').set(as(ADMIN));
    expect(none.status).toBe(400);
    const two = await api().get('/admin/purchases?msisdn=71234567&identifier=1').set(as(ADMIN));
    expect(two.status).toBe(400);
    expect(two.body.message).toMatch(/exactly one of: msisdn, identifier, reference/);
    const bad = await api().get('/admin/purchases?msisdn=12ab').set(as(ADMIN));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'invalid_request', field: 'msisdn' });
  });

  it('reveals numbers and tokens on request, and the reveal is in the audit trail first', async () => {
    const phone = newPhone();
    const done = await succeeded(phone);
    const revealed = await api().get(`/admin/purchases/${done.id}?reveal=true`).set(as(ALICE)).expect(200);
    expect(revealed.body.purchase.intent.beneficiaryMsisdn).toBe(phone);
    expect(revealed.text).toContain(done.result!.rawToken!);
    const trail = await api().get('/admin/purchases/audit').set(as(ADMIN)).expect(200);
    expect(trail.body.entries[0]).toMatchObject({
      actor: 'alice',
      action: 'reveal',
      detail: `GET /admin/purchases/${done.id}?reveal=true`,
    });
    expect(trail.text).not.toContain(phone);
    // …and in the purchase's own trail (#27 item 4).
    const own = await api().get(`/admin/purchases/${done.id}/audit`).set(as(ADMIN)).expect(200);
    expect(own.body.entries).toEqual([
      expect.objectContaining({ actor: 'alice', action: 'reveal', purchaseId: done.id }),
    ]);
  });

  it('a resend of the SMS is in the audit trail, with who asked (#27 item 4)', async () => {
    const done = await succeeded(newPhone());
    await api()
      .post(`/admin/purchases/${done.id}/resend-sms`)
      .set(as(ALICE))
      .set('Idempotency-Key', 'customer-called-1')
      .expect(202);
    const own = await api().get(`/admin/purchases/${done.id}/audit`).set(as(ADMIN)).expect(200);
    expect(own.body.entries).toEqual([
      expect.objectContaining({
        actor: 'alice',
        action: 'resend_sms',
        purchaseId: done.id,
        detail: 'admin-customer-called-1',
      }),
    ]);
  });
});

describe('acting on a needs_attention purchase', () => {
  it('resolves it with a note: audited with who, the record expires after the retention, a second resolve is refused', async () => {
    const stuck = await needsAttention(newPhone());
    const noNote = await api().post(`/admin/purchases/${stuck.id}/resolve`).set(as(ALICE)).send({});
    expect(noNote.status).toBe(400);
    expect((await gateway.desk.get(stuck.id))?.state).toBe('needs_attention');
    const retention = 1825 * 24 * 3600_000; // RECORD_RETENTION_DAYS' default
    expect(expiresAt((await gateway.desk.get(stuck.id))!, retention)).toBeNull();

    const resolved = await api()
      .post(`/admin/purchases/${stuck.id}/resolve`)
      .set(as(ALICE))
      .send({ note: 'service desk confirmed the debit; token read to the customer' })
      .expect(200);
    expect(resolved.body.purchase).toMatchObject({
      state: 'resolved',
      resolution: { by: 'alice', note: 'service desk confirmed the debit; token read to the customer' },
    });
    const again = await api().post(`/admin/purchases/${stuck.id}/resolve`).set(as(ADMIN)).send({ note: 'x' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'wrong_state', state: 'resolved' });

    const trail = await api().get(`/admin/purchases/${stuck.id}/audit`).set(as(ADMIN)).expect(200);
    expect(trail.body.entries).toEqual([
      expect.objectContaining({ actor: 'alice', action: 'resolve', purchaseId: stuck.id }),
    ]);
    // Resolved: kept for the retention (five years by default) from its resolution, then purged.
    const resolvedAt = Date.parse(resolved.body.purchase.resolution.at);
    expect(expiresAt((await gateway.desk.get(stuck.id))!, retention)).toBe(resolvedAt + retention);
  });

  it('reconciles it again (retry only): the success is found, its token sent, never a second confirm', async () => {
    const phone = newPhone();
    const stuck = await needsAttention(phone);
    const smsBefore = (await waitForSms(gateway, phone, 1)).length;
    const asked = await api()
      .post(`/admin/purchases/${stuck.id}/reconcile`)
      .set(as(ADMIN))
      .send({ note: 'customer called' })
      .expect(202);
    expect(asked.body.purchase.state).toBe('reconciling');
    const done = await settledIn(stuck.id, ['succeeded']);
    expect(done.result?.rawToken).toBeTruthy();
    const sms = await waitForSms(gateway, phone, smsBefore + 1);
    expect(sms[0].message).toContain(done.result!.rawToken!.slice(-4));
    const rows = (await ledger(gateway.purchaseServiceUrl)).filter(
      (r) => r.external_reference === stuck.externalReference,
    );
    expect(rows).toHaveLength(1);
    const trail = await api().get(`/admin/purchases/${stuck.id}/audit`).set(as(ADMIN)).expect(200);
    expect(trail.body.entries[0]).toMatchObject({
      actor: 'admin',
      action: 'reconcile',
      note: 'customer called',
    });
    const refused = await api().post(`/admin/purchases/${stuck.id}/reconcile`).set(as(ADMIN)).send({});
    expect(refused.status).toBe(409);
  });

  it('answers 404 for an unknown purchase and 401 without a valid token', async () => {
    expect(
      (await api().post('/admin/purchases/nope/resolve').set(as(ADMIN)).send({ note: 'x' })).status,
    ).toBe(404);
    const notJson = api()
      .post('/admin/purchases/nope/resolve')
      .set(as(ADMIN))
      .set('Content-Type', 'application/json');
    expect((await notJson.send('{"note":').expect(400)).body).toEqual({
      error: 'bad_request',
      message: 'request body must be JSON',
    });
    expect((await api().get('/admin/purchases/audit').set(as('not-a-token-0123456789'))).status).toBe(401);
    expect((await api().get('/admin/purchases/audit?reveal=true')).status).toBe(401);
  });
});

describe('every admin route masks numbers', () => {
  it('agents and the blocklist show numbers masked unless revealed', async () => {
    const agentPhone = newPhone();
    const added = await api()
      .post('/admin/agents')
      .set(as(ADMIN))
      .send({ msisdn: agentPhone, name: 'Care Test Agent', float: true });
    expect(added.status).toBe(201);
    expect(added.body.oneTimePin).toMatch(/^\d{4,6}$/);
    const blocked = newPhone();
    await api().post('/admin/blocklist').set(as(ADMIN)).send({ kind: 'msisdn', value: blocked }).expect(201);

    for (const path of ['/admin/agents', `/admin/agents/${agentPhone}`, '/admin/blocklist']) {
      const masked = await api().get(path).set(as(ADMIN)).expect(200);
      expect(masked.text).not.toContain(agentPhone);
      expect(masked.text).not.toContain(blocked);
    }
    expect(added.text).not.toContain(agentPhone);
    const revealed = await api().get('/admin/blocklist?reveal=true').set(as(ADMIN)).expect(200);
    expect(revealed.body.msisdn).toContain(blocked);
  });
});

describe('metrics', () => {
  it('shows purchases by state, money sold by product, the debit balance and its low alert (logged loudly)', async () => {
    await succeeded(newPhone());
    await gateway.balanceWatch.check();
    const metrics = await api().get('/metrics').expect(200);
    const counts = await gateway.desk.store.countByState();
    expect(metrics.text).toContain(`purchases_by_state{state="needs_attention"} ${counts.needs_attention}`);
    expect(metrics.text).toContain(`purchases_by_state{state="reconciling"} ${counts.reconciling}`);
    expect(metrics.text).toMatch(
      /purchase_amount_minor_total\{product="ELECTRICITY",currency="BWP"\} [1-9]\d*00\b/,
    );
    expect(metrics.text).toMatch(/debit_account_balance_minor\{account="1001",currency="BWP"\} \d+/);
    expect(metrics.text).toContain('debit_account_balance_low{account="1001",currency="BWP"} 1');
    expect(
      logs.lines.some((l) => l.includes('DEBIT ACCOUNT BALANCE LOW') && l.includes('"level":"error"')),
    ).toBe(true);
  });
});

describe('operator CLI (npm run cli -- purchases)', () => {
  async function cli(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['purchases', ...argv], {
      stdout: (l) => out.push(l),
      stderr: (l) => err.push(l),
      env: {
        NODE_ENV: 'test',
        ...records.env,
        REDIS_URL: redis.url,
        REDIS_PREFIX: redis.prefix,
        USER: 'thabo',
      },
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('finds masked, reveals audited, resolves with a note; the gateway sees it all', async () => {
    const phone = newPhone();
    const done = await succeeded(phone);
    const stuck = await needsAttention(phone);

    const found = await cli('find', '--msisdn', phone.slice(3));
    expect(found.code).toBe(0);
    expect(found.out.split('\n')).toHaveLength(2);
    expect(found.out).toContain(stuck.id);
    expect(found.out).not.toContain(phone);
    const shown = await cli('show', done.id, '--json');
    for (const form of [phone, ...tokenForms(done)]) expect(shown.out).not.toContain(form);
    const revealed = await cli('show', done.id, '--reveal', '--json');
    expect(JSON.parse(revealed.out).result.rawToken).toBe(done.result!.rawToken);

    expect(await cli('resolve', stuck.id)).toMatchObject({ code: 2, err: expect.stringMatching(/--note/) });
    expect(await cli('resolve', stuck.id, '--note', 'refund issued by the service desk')).toMatchObject({
      code: 0,
      out: `${stuck.id} resolved by cli:thabo`,
    });
    expect((await gateway.desk.get(stuck.id))?.state).toBe('resolved');
    const trail = await api().get('/admin/purchases/audit?limit=5').set(as(ADMIN)).expect(200);
    expect(trail.body.entries.slice(0, 2)).toEqual([
      expect.objectContaining({ actor: 'cli:thabo', action: 'resolve', purchaseId: stuck.id }),
      expect.objectContaining({
        actor: 'cli:thabo',
        action: 'reveal',
        detail: `cli purchases show ${done.id} --json`,
      }),
    ]);
    expect((await cli('audit', stuck.id)).out).toMatch(/cli:thabo {2}resolve {2}\S+ {2}refund issued/);
  });

  it("reconciles again through the gateway's worker and refuses what it cannot do", async () => {
    const phone = newPhone();
    const stuck = await needsAttention(phone);
    const asked = await cli('reconcile', stuck.id, '--note', 'customer called');
    expect(asked).toMatchObject({ code: 0 });
    const done = await settledIn(stuck.id, ['succeeded']);
    expect(done.result?.rawToken).toBeTruthy();
    expect(await cli('reconcile', stuck.id)).toMatchObject({
      code: 1,
      err: expect.stringMatching(/is succeeded/),
    });
    expect(await cli('show', 'no-such-id')).toMatchObject({ code: 1 });
    expect(await cli('find')).toMatchObject({ code: 2 });
    // Nothing to reindex any more: the records are rows with their indexes (#29).
    expect(await cli('reindex')).toMatchObject({ code: 2 });
    const noDatabase = await main(['purchases', 'find', '--msisdn', phone], {
      stdout: () => undefined,
      stderr: () => undefined,
      env: { NODE_ENV: 'test' },
    });
    expect(noDatabase).toBe(2);
  });
});

describe('retention on a running gateway (the workers sweep)', () => {
  let small: Gateway;
  beforeAll(async () => {
    small = await startTestGateway({ RECORD_RETENTION_DAYS: '1', PURCHASE_SWEEP_INTERVAL_MS: '100' });
  });
  afterAll(() => small.close());

  it('deletes a succeeded purchase a day after it settled, keeps a needs_attention one however old', async () => {
    const phone = newPhone();
    const longAgo = new Date(Date.now() - 36 * 3600_000).toISOString();
    const base = (state: 'succeeded' | 'needs_attention') => ({
      ...newPurchaseRecord({
        id: `retained-${state}-${process.pid}`,
        idempotencyKey: `retained-${state}-${process.pid}`,
        externalReference: `GW-OLD-${state}`,
        intent: intent({ beneficiaryMsisdn: phone, requesterMsisdn: phone }),
        createdAt: longAgo,
      }),
      state,
      settledAt: longAgo,
      notifiedAt: longAgo,
    });
    await small.desk.store.create(base('needs_attention'));
    await small.desk.store.create(base('succeeded'));
    await until(
      'the old success purged',
      async () => !(await small.desk.get(`retained-succeeded-${process.pid}`)),
    );
    expect((await small.desk.listByMsisdn(phone)).map((r) => r.state)).toEqual(['needs_attention']);
  });
});
