import request from 'supertest';
import { SqlFloatStore } from '../../src/agents/ledger/sql';
import type { Gateway } from '../../src/gateway/app';
import { SqlAuditTrail } from '../../src/purchases/care';
import { startTestGateway } from '../e2e/harness';

/** `GET /admin/reports/daily` on a whole gateway: admin only, masked unless revealed (audited). */

const ADMIN = 'reports-admin-token-0123456789';
const AGENT = '26771000021';
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startTestGateway({ ADMIN_TOKEN: ADMIN });
  await new SqlFloatStore(gateway.records).credit(AGENT, {
    kind: 'credit',
    amountMinor: 25_000,
    reference: 'bank-1',
    at: new Date('2026-11-25T08:00:00.000Z'),
  });
});
afterAll(() => gateway.close());

const get = (path: string) => request(gateway.url).get(path).set('Authorization', `Bearer ${ADMIN}`);

it('answers the day as JSON, the agent masked; ?reveal=true shows it after auditing the reveal', async () => {
  const masked = await get('/admin/reports/daily?date=2026-11-25').expect(200);
  expect(masked.body).toMatchObject({
    date: '2026-11-25',
    timeZone: 'Africa/Gaborone',
    from: '2026-11-24T22:00:00.000Z',
    sales: [],
    agents: [{ floatIn: { currency: 'BWP', minor: 25_000 } }],
  });
  expect(masked.body.agents[0].msisdn).toMatch(/^267\*{4}0021#[0-9a-f]{4}$/);
  expect(masked.text).not.toContain(AGENT);

  const revealed = await get('/admin/reports/daily?date=2026-11-25&reveal=true').expect(200);
  expect(revealed.body.agents[0].msisdn).toBe(AGENT);
  expect((await new SqlAuditTrail(gateway.records).list())[0]).toMatchObject({
    actor: 'admin',
    action: 'reveal',
    detail: 'GET /admin/reports/daily?date=2026-11-25&reveal=true',
  });
});

it('answers CSV with format=csv, masked too unless revealed', async () => {
  const csv = await get('/admin/reports/daily?date=2026-11-25&format=csv').expect(200);
  expect(csv.headers['content-type']).toMatch(/^text\/csv/);
  expect(csv.text.split('\r\n')[0]).toMatch(/^section,date,/);
  expect(csv.text).toMatch(/\r\nagent,2026-11-25,,,,267\*{4}0021#[0-9a-f]{4},/);
  expect(csv.text).not.toContain(AGENT);
  const revealed = await get('/admin/reports/daily?date=2026-11-25&format=csv&reveal=true').expect(200);
  expect(revealed.text).toContain(`\r\nagent,2026-11-25,,,,${AGENT},`);
});

it('refuses a bad date or format (400) and a request without the admin token (401)', async () => {
  const bad = await get('/admin/reports/daily?date=25-11-2026').expect(400);
  expect(bad.body).toMatchObject({ error: 'invalid_request', field: 'date' });
  expect((await get('/admin/reports/daily').expect(400)).body.field).toBe('date');
  expect((await get('/admin/reports/daily?date=2026-11-25&format=xml').expect(400)).body.field).toBe(
    'format',
  );
  await request(gateway.url).get('/admin/reports/daily?date=2026-11-25').expect(401);
});
