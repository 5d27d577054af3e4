import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { SqlSavedMeters } from '../../src/subscribers/saved-meters';
import { intent } from '../purchases/fixtures';
import { until } from '../support/wait';
import { newPhone, startTestGateway } from './harness';

/**
 * Issue 31's records side wired into the gateway: a success remembers its meter (the lifecycle's
 * settlement hook), /admin/notice and /admin/cases answer behind the admin token.
 */

const TOKEN = 'w'.repeat(32);
let gateway: Gateway;
beforeAll(async () => {
  gateway = await startTestGateway({ ADMIN_TOKEN: TOKEN, CARE_PHONE: '3900000' });
});
afterAll(() => gateway.close());

const admin = (method: 'get' | 'put' | 'post' | 'delete', path: string, data?: unknown) =>
  axios.request({
    method,
    url: `${gateway.url}${path}`,
    data,
    headers: { Authorization: `Bearer ${TOKEN}` },
    validateStatus: () => true,
  });

it('remembers the meter of a succeeded purchase for its buyer, and care answers on /admin', async () => {
  const phone = newPhone();
  const bought = await gateway.desk.create(
    intent({ requesterMsisdn: phone, beneficiaryMsisdn: phone, subscriberDetails: 'KABELO M' }),
    `wiring-${phone}`,
  );
  await until(
    'the purchase succeeded',
    async () => (await gateway.desk.get(bought.id))?.state === 'succeeded',
  );
  const meters = new SqlSavedMeters(gateway.records);
  const saved = await until('its meter saved', async () => (await meters.list(phone, 'ELECTRICITY'))[0]);
  expect(saved).toMatchObject({ identifier: bought.intent.subscriberIdentifier, name: 'KABELO M' });

  expect((await admin('put', '/admin/notice', { text: 'Tokens are slow today', until: '1h' })).status).toBe(
    200,
  );
  expect((await admin('get', '/admin/notice')).data.notice).toHaveLength(1);
  expect((await admin('delete', '/admin/notice')).data).toEqual({ cleared: true });

  const opened = await admin('post', '/admin/cases', {
    msisdn: phone,
    purchaseId: bought.id,
    reason: 'token_not_received',
  });
  expect(opened.status).toBe(201);
  expect(opened.data).toMatchObject({ opened: true, tokenResent: true });
  const queue = await admin('get', '/admin/cases');
  expect(queue.data.cases.map((c: { id: number }) => c.id)).toContain(opened.data.case.id);
  // Masked like every admin answer.
  expect(JSON.stringify(queue.data)).not.toContain(phone);
  expect(queue.data.needsAttention).toEqual({ count: 0, purchases: [] });
});
