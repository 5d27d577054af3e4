import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { maskTokens } from '../../src/purchases/store/sql';
import { TEST_METERS } from '../../src/sandbox';
import { dumpSchema } from '../agents/pin-scan';
import { until } from '../support/wait';
import {
  dialogue,
  hop,
  newPhone,
  OUTBOX_ADMIN_TOKEN,
  outbox,
  startTestGateway,
  waitForSms,
} from '../e2e/harness';

/**
 * #36 item 3: a purchase over a real gateway on PostgreSQL leaves no token in clear in any
 * column of any row of any table (a dump of the database hands out none), while the token SMS,
 * the "TOKEN" SMS reply, a care resend, My purchases over USSD and the care view (revealed)
 * still show it.
 */

const auth = { headers: { authorization: `Bearer ${OUTBOX_ADMIN_TOKEN}` } };
let gateway: Gateway;
beforeAll(async () => {
  gateway = await startTestGateway({ ADMIN_TOKEN: OUTBOX_ADMIN_TOKEN, SMS_REPLIES_PER_MIN: '50' });
});
afterAll(() => gateway.close());

/** The SMS to `to` once there are more than `before`, newest first. */
async function nextSms(to: string, before: number, what: string): Promise<string> {
  return until(what, async () => {
    const messages = await outbox(gateway, to);
    return messages.length > before ? messages[0].message : null;
  });
}

it('keeps no token in clear in the records, and every reader still shows it', async () => {
  const phone = newPhone();
  const bought = await dialogue(gateway, `rest-${phone}`, phone, ['1', TEST_METERS.active, '1', '100', '1']);
  expect(bought[5].end).toBe(true);
  const tokenSms = await until('the token SMS', async () =>
    (await outbox(gateway, phone)).find((m) => /Token/.test(m.message)),
  );
  const spaced = /Token: ([\d ]{10,}\d)/.exec(tokenSms.message)?.[1];
  if (!spaced) throw new Error(`no token in ${tokenSms.message}`);
  const digits = spaced.replace(/ /g, '');
  expect(digits.length).toBeGreaterThanOrEqual(16);

  // The SMS reply to TOKEN: the last purchase's token.
  const sent = (await outbox(gateway, phone)).length;
  await axios.post(`${gateway.url}/sms/inbound`, {
    id: `rest-token-${phone}`,
    from: phone,
    to: '1',
    text: 'TOKEN',
    receivedAt: 'now',
  });
  expect((await nextSms(phone, sent, 'the TOKEN reply')).replace(/\s/g, '')).toContain(digits);

  // A care resend of the purchase's SMS.
  const found = await axios.get(`${gateway.url}/admin/purchases`, { ...auth, params: { msisdn: phone } });
  const purchaseId: string = found.data.purchases[0].id;
  const before = (await outbox(gateway, phone)).length;
  const resent = await axios.post(`${gateway.url}/admin/purchases/${purchaseId}/resend-sms`, null, {
    headers: { ...auth.headers, 'idempotency-key': `rest-resend-${phone}` },
  });
  expect(resent.status).toBeLessThan(300);
  expect((await nextSms(phone, before, 'the resent SMS')).replace(/\s/g, '')).toContain(digits);

  // My purchases over USSD: the list, then the purchase with its token.
  const menu = await hop(gateway, `rest-mine-${phone}`, phone, '');
  const mine = menu.screen
    .split('\n')
    .find((line) => / My purchases$/.test(line))!
    .split(' ')[0];
  const list = await hop(gateway, `rest-mine-${phone}`, phone, mine);
  expect(list.screen).toContain(TEST_METERS.active);
  const detail = await hop(gateway, `rest-mine-${phone}`, phone, `${mine}*1`);
  expect(detail.screen.replace(/\s/g, '')).toContain(digits);

  // The care view: masked, and whole when revealed (audited).
  const view = await axios.get(`${gateway.url}/admin/purchases/${purchaseId}`, auth);
  expect(JSON.stringify(view.data)).not.toContain(digits);
  const revealed = await axios.get(`${gateway.url}/admin/purchases/${purchaseId}`, {
    ...auth,
    params: { reveal: 'true' },
  });
  expect(JSON.stringify(revealed.data.purchase.result)).toContain(spaced.split(' ')[0]);
  expect(revealed.data.purchase.result.rawToken.replace(/\D/g, '')).toContain(digits);

  // Every row of every table: no token, spaced or not; the SMS texts and the token are sealed.
  await waitForSms(gateway, phone, 3);
  const { tables, text } = await dumpSchema(gateway.records);
  expect(tables).toEqual(
    expect.arrayContaining(['purchases', 'purchase_transitions', 'sms_messages', 'care_audit']),
  );
  expect(text).toContain(purchaseId);
  expect({ digits: text.includes(digits), spaced: text.includes(spaced) }).toEqual({
    digits: false,
    spaced: false,
  });
  const texts = await gateway.records.query<{ message: string }>(
    'SELECT message FROM sms_messages WHERE recipient = $1',
    [phone],
  );
  expect(texts.rows.length).toBeGreaterThanOrEqual(3);
  for (const { message } of texts.rows) expect(message).toMatch(/^sealed:v1:[0-9a-f]{8}:/);
  const kept = await gateway.records.query<{ token: string }>(
    `SELECT record -> 'result' ->> 'rawToken' AS token FROM purchases WHERE id = $1`,
    [purchaseId],
  );
  expect(kept.rows[0].token).toMatch(/^sealed:v1:[0-9a-f]{8}:/);

  // Past TOKEN_RETENTION_DAYS the token is gone: a resend is refused rather than sent without it.
  expect(await maskTokens(gateway.records, new Date(Date.now() + 60_000))).toBeGreaterThanOrEqual(1);
  const refused = await axios.post(`${gateway.url}/admin/purchases/${purchaseId}/resend-sms`, null, {
    headers: { ...auth.headers, 'idempotency-key': `rest-resend-2-${phone}` },
    validateStatus: () => true,
  });
  expect(refused.status).toBe(409);
  expect(refused.data.error).toBe('token_masked');
}, 120_000);
