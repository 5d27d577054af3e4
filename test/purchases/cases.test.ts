import express from 'express';
import request from 'supertest';
import { EXIT, main } from '../../src/cli/main';
import { MemoryOutboxStore, OutboxSender } from '../../src/messaging/outbox/driver';
import { InProcessSmsQueue } from '../../src/messaging/queue';
import { SqlMessageStore } from '../../src/messaging/store/sql';
import { loadLocales } from '../../src/i18n';
import { SqlAuditTrail } from '../../src/purchases/care/audit-sql';
import { caseRoutes } from '../../src/purchases/care/case-routes';
import { CaseDesk, CaseStateError } from '../../src/purchases/care/cases';
import { CareInputError } from '../../src/purchases/care/care';
import { OutcomeHandOver } from '../../src/purchases/hand-over';
import { createNotifier } from '../../src/purchases/notify';
import { SqlPurchaseStore } from '../../src/purchases/store/sql';
import type { PurchaseIntent, PurchaseRecord, PurchaseState } from '../../src/purchases/types';
import { intent, record } from './fixtures';
import { testDatabase, type TestDatabase } from '../support/database';
import { until } from '../support/wait';

/** Complaint cases (issue 31 §5) on PostgreSQL: opened, told by SMS, closed, audited. */

const locales = loadLocales();
const care = { phone: '+267 390 0000', hours: 'Mon-Fri 08:00-17:00' };
let t: TestDatabase;
let outbox: MemoryOutboxStore;
let queue: InProcessSmsQueue;
let store: SqlPurchaseStore;
let cases: CaseDesk;
let audit: SqlAuditTrail;
beforeAll(async () => {
  t = await testDatabase('cases');
  outbox = new MemoryOutboxStore();
  queue = new InProcessSmsQueue({ sender: new OutboxSender(outbox), store: new SqlMessageStore(t.db) });
  store = new SqlPurchaseStore({ db: t.db });
  audit = new SqlAuditTrail(t.db);
  const notifier = createNotifier({ queue, locales, care });
  const handOver = new OutcomeHandOver({ store, notifier, now: () => new Date().toISOString() });
  cases = new CaseDesk({
    db: t.db,
    purchases: { get: (id) => store.get(id), resendSms: (id, key) => handOver.resend(id, key) },
    sms: queue,
    locales,
    audit,
    care,
  });
});
afterAll(async () => {
  await queue.close();
  await t.cleanup();
});

const TOKEN = '1234 5678 9012 3456 7890';

async function purchase(state: PurchaseState, overrides: Partial<PurchaseIntent>): Promise<PurchaseRecord> {
  const r = record({ intent: intent(overrides) });
  await store.create(r);
  const moved = await store.transition(r.id, ['created'], state, r.version, {
    settledAt: r.createdAt,
    ...(state === 'succeeded' && {
      result: {
        transactionId: 5,
        reference: 'BPC-REF-5',
        rawToken: TOKEN,
        units: '70.6 kWh',
        total: { currency: 'BWP', minor: 10150 },
        providerTransactionId: null,
      },
    }),
  });
  if (!moved.ok) throw new Error('not moved');
  return moved.record;
}

it('a case from open to closed: its number by SMS, in the queue while open, audited', async () => {
  const me = '26773330001';
  const p = await purchase('failed', { requesterMsisdn: me, beneficiaryMsisdn: me, language: 'tn-BW' });
  const opened = await cases.open({
    msisdn: me,
    purchaseId: p.id,
    reason: 'wrong_meter',
    note: 'I typed 0412',
    actor: 'subscriber:USSD',
  });
  expect(opened).toMatchObject({ opened: true, tokenResent: false });
  expect(opened.case).toMatchObject({
    msisdn: me,
    purchaseId: p.id,
    reason: 'wrong_meter',
    state: 'open',
    notes: 'I typed 0412',
    createdBy: 'subscriber:USSD',
    closedAt: null,
  });
  const id = opened.case.id;
  expect(id).toBeGreaterThanOrEqual(1001);
  const [sms] = await until('the case SMS', () =>
    outbox.list({ to: me }).then((l) => (l.length > 0 ? l : null)),
  );
  expect(sms.message).toBe(
    `Re amogetse pego ya gago ka Motlakase (01234567890), ref ${p.externalReference}. Nomoro ya kgetsi ya gago ke ${id}. Re tla ikgolaganya le wena.\nThuso: +267 390 0000 (Mon-Fri 08:00-17:00)`,
  );
  // The same report again (a double press): the same case, nothing sent again.
  expect(
    await cases.open({ msisdn: me, purchaseId: p.id, reason: 'wrong_meter', actor: 'subscriber:USSD' }),
  ).toMatchObject({ opened: false, case: { id } });
  expect((await cases.list()).map((c) => c.id)).toContain(id);
  expect(await cases.countOpen()).toBeGreaterThanOrEqual(1);

  const closed = await cases.close(String(id), 'meter number corrected, token sent by hand', 'alice');
  expect(closed).toMatchObject({
    state: 'closed',
    closedBy: 'alice',
    notes: 'I typed 0412\nmeter number corrected, token sent by hand',
  });
  expect(closed.closedAt).toEqual(expect.any(String));
  await expect(cases.close(id, 'again', 'alice')).rejects.toThrow(CaseStateError);
  expect((await cases.list()).map((c) => c.id)).not.toContain(id);
  expect((await cases.list({ state: 'closed' })).map((c) => c.id)).toContain(id);
  const trail = await audit.list({ purchaseId: p.id });
  expect(trail.map((e) => [e.actor, e.action, e.detail])).toEqual([
    ['alice', 'case_close', `case ${id}`],
    ['subscriber:USSD', 'case_open', `case ${id} wrong_meter`],
  ]);
  await expect(cases.close(id, undefined, 'alice')).rejects.toThrow(CareInputError);
  expect(await until('only one case SMS', async () => (await outbox.list({ to: me })).length === 1)).toBe(
    true,
  );
});

it('"Token not received" on a delivered purchase sends the token again at once and still opens the case', async () => {
  const me = '26773330002';
  const p = await purchase('succeeded', { requesterMsisdn: me, beneficiaryMsisdn: me });
  const opened = await cases.open({
    msisdn: me,
    purchaseId: p.id,
    reason: 'token_not_received',
    actor: 'subscriber:SMS',
  });
  expect(opened).toMatchObject({ opened: true, tokenResent: true, case: { state: 'open' } });
  const texts = await until('the token and the case SMS', async () => {
    const l = await outbox.list({ to: me });
    return l.length === 2 ? l.map((s) => s.message) : null;
  });
  expect(texts.some((m) => m.includes(TOKEN))).toBe(true);
  expect(texts.some((m) => m.includes(`Your case number is ${opened.case.id}`))).toBe(true);
  const actions = (await audit.list({ purchaseId: p.id })).map((e) => e.action);
  expect(actions.sort()).toEqual(['case_open', 'resend_sms']);
});

it('refuses a purchase that is not the reporter’s and an unknown reason', async () => {
  const p = await purchase('failed', { requesterMsisdn: '26773330003', beneficiaryMsisdn: '26773330003' });
  await expect(
    cases.open({ msisdn: '26773339999', purchaseId: p.id, reason: 'other', actor: 'x' }),
  ).rejects.toThrow('not one of this number');
  await expect(
    cases.open({ msisdn: '26773330003', purchaseId: p.id, reason: 'angry', actor: 'x' }),
  ).rejects.toThrow(CareInputError);
});

it('every failure SMS ends with the care line', async () => {
  const me = '26773330004';
  const p = await purchase('failed', { requesterMsisdn: me, beneficiaryMsisdn: me });
  await createNotifier({ queue, locales, care }).notify(p, 'settled', `settled:${p.id}`);
  const [sms] = await until('the failure SMS', () =>
    outbox.list({ to: me }).then((l) => (l.length > 0 ? l : null)),
  );
  expect(sms.message.endsWith('\nHelp: +267 390 0000 (Mon-Fri 08:00-17:00)')).toBe(true);
});

describe('/admin/cases and npm run cli -- cases', () => {
  const token = 'c'.repeat(32);
  const app = () => {
    const a = express();
    a.use(
      caseRoutes({
        cases,
        credentials: [{ label: 'erin', token }],
        region: 'BW',
        needsAttention: (limit) => store.listByState('needs_attention', { limit }),
      }),
    );
    return a;
  };
  const auth = { Authorization: `Bearer ${token}` };
  const cli = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['cases', ...argv], {
      stdout: (l) => out.push(l),
      stderr: (l) => err.push(l),
      env: { NODE_ENV: 'test', DATABASE_URL: t.url, DATABASE_SCHEMA: t.schema, USER: 'frank' },
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it('lists the care queue (open cases beside needs_attention), opens, shows and closes', async () => {
    const me = '26773330005';
    const p = await purchase('succeeded', { requesterMsisdn: me, beneficiaryMsisdn: me });
    const stuck = await purchase('needs_attention', { requesterMsisdn: me, beneficiaryMsisdn: me });
    await request(app()).get('/admin/cases').expect(401);
    const made = await request(app())
      .post('/admin/cases')
      .set(auth)
      .send({ msisdn: '73330005', purchaseId: p.id, reason: 'meter_rejects', note: 'called care' })
      .expect(201);
    const id = made.body.case.id as number;
    expect(made.body.case.createdBy).toBe('erin');
    const queue = await request(app()).get('/admin/cases').set(auth).expect(200);
    expect(queue.body.cases.map((c: { id: number }) => c.id)).toContain(id);
    expect(queue.body.needsAttention.purchases.map((r: PurchaseRecord) => r.id)).toContain(stuck.id);
    await request(app()).get(`/admin/cases/${id}`).set(auth).expect(200);
    await request(app()).get('/admin/cases/999999').set(auth).expect(404);
    await request(app()).post('/admin/cases').set(auth).send({ msisdn: me, reason: 'nope' }).expect(400);

    const listed = await cli(['list']);
    expect(listed.code).toBe(EXIT.ok);
    expect(listed.out).toContain(`${id}  open`);
    expect(listed.out).not.toContain(me);
    expect(listed.out).toMatch(/needs_attention purchases: \d+/);
    expect((await cli(['show', String(id)])).code).toBe(EXIT.ok);
    expect(await cli(['close', String(id)])).toMatchObject({ code: EXIT.usage });
    expect(await cli(['close', String(id), '--note', 'new meter programmed'])).toMatchObject({
      code: EXIT.ok,
      out: `case ${id} closed by cli:frank`,
    });
    expect((await cli(['close', String(id), '--note', 'x'])).code).toBe(EXIT.failed);
    await request(app()).post(`/admin/cases/${id}/close`).set(auth).send({ note: 'x' }).expect(409);
  });

  it('refuses a note or a limit it cannot take, naming the field, and changes nothing', async () => {
    const me = '26773330006';
    const open = (note: unknown) =>
      request(app()).post('/admin/cases').set(auth).send({ msisdn: me, reason: 'meter_rejects', note });
    const mine = async () => (await cases.list({ state: 'open', msisdn: me })).length;
    // A null note is no note, as an absent one; an empty or too long one is refused.
    const made = await open(null).expect(201);
    expect(made.body.case.notes).toBeNull();
    for (const note of ['  ', 'x'.repeat(501), 5])
      expect((await open(note).expect(400)).body).toMatchObject({ error: 'invalid_request', field: 'note' });
    expect(await mine()).toBe(1);
    // Closing needs a note.
    const id = made.body.case.id as number;
    for (const body of [{}, { note: null }, { note: '' }])
      expect(
        (await request(app()).post(`/admin/cases/${id}/close`).set(auth).send(body).expect(400)).body,
      ).toMatchObject({ field: 'note', message: 'note must be a non-empty text of at most 500 characters' });
    expect((await request(app()).get(`/admin/cases/${id}`).set(auth).expect(200)).body.case.state).toBe(
      'open',
    );
    // A limit from 1 to 500.
    for (const limit of ['0', '501', 'ten'])
      expect(
        (await request(app()).get(`/admin/cases?limit=${limit}`).set(auth).expect(400)).body,
      ).toMatchObject({
        field: 'limit',
        message: 'limit must be a whole number from 1 to 500',
      });
    await request(app()).get('/admin/cases?limit=500').set(auth).expect(200);
    const notJson = request(app()).post('/admin/cases').set(auth).set('Content-Type', 'application/json');
    expect((await notJson.send('{"msisdn":').expect(400)).body).toEqual({
      error: 'bad_request',
      message: 'request body must be JSON',
    });
    expect(await mine()).toBe(1);
  });
});
