import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { newPhone, outbox, startTestGateway, waitForSms } from '../e2e/harness';

/**
 * The inbound SMS routes are guarded like the USSD callbacks, before anything else: the IP
 * allow-list (403), then the shared secret (401, header preferred, `?key=` accepted). A refused
 * request is not read, not de-duplicated, not answered: the same message sent properly is taken.
 */

const SECRET = 'sms-callback-secret-0123456789';
let open: Gateway;
let fenced: Gateway;

beforeAll(async () => {
  open = await startTestGateway({ SMS_CALLBACK_SECRET: SECRET, SMS_ALLOWED_IPS: '127.0.0.1,::1' });
  fenced = await startTestGateway({ SMS_CALLBACK_SECRET: SECRET, SMS_ALLOWED_IPS: '10.20.30.0/24' });
});
afterAll(async () => {
  await open.close();
  await fenced.close();
});

const form = (phone: string, id: string, text: string) =>
  new URLSearchParams({ id, from: `+${phone}`, to: '12345', text, date: 'now' });

async function post(
  gateway: Gateway,
  path: string,
  body: URLSearchParams | object | string,
  headers: Record<string, string> = {},
) {
  const response = await axios.post(`${gateway.url}${path}`, body, {
    headers,
    validateStatus: () => true,
    responseType: 'text',
  });
  return [response.status, response.data as string] as const;
}

it('refuses a missing or wrong secret with 401 before reading the body, and takes nothing', async () => {
  const phone = newPhone();
  const id = `guard-${phone}`;
  const message = form(phone, id, `ELEC ${TEST_METERS.active} 100`);
  expect(await post(open, '/sms/africastalking', message)).toEqual([401, 'unauthorised']);
  expect(await post(open, '/sms/africastalking', message, { 'x-callback-key': 'wrong' })).toEqual([
    401,
    'unauthorised',
  ]);
  // A malformed body without the secret: the guard answers, not the parser.
  expect(await post(open, '/sms/africastalking', 'id=', {})).toEqual([401, 'unauthorised']);
  expect(await post(open, '/sms/inbound', '{not json', { 'content-type': 'application/json' })).toEqual([
    401,
    'unauthorised',
  ]);
  expect(
    await post(open, '/sms/africastalking/delivery', new URLSearchParams({ id: 'x', status: 'Success' })),
  ).toEqual([401, 'unauthorised']);
  // Nothing was taken: the same message id with the secret is new, and answered once.
  expect(await post(open, '/sms/africastalking', message, { 'x-callback-key': SECRET })).toEqual([200, 'OK']);
  expect((await waitForSms(open, phone, 1))[0].message).toMatch(/Reply YES \d{4} to buy/);
  expect(await post(open, `/sms/africastalking?key=${SECRET}`, message)).toEqual([200, 'OK (duplicate)']);
});

it('accepts the secret as ?key= on every route', async () => {
  const phone = newPhone();
  expect(
    await post(open, `/sms/inbound?key=${SECRET}`, { from: phone, to: '1', text: 'HELP', receivedAt: 'now' }),
  ).toEqual([200, 'OK']);
  await waitForSms(open, phone, 1);
  expect(
    await post(
      open,
      `/sms/africastalking/delivery?key=${SECRET}`,
      new URLSearchParams({ id: 'x', status: 'Success' }),
    ),
  ).toEqual([200, 'OK']);
});

it('refuses an address off the allow-list with 403, even with the secret', async () => {
  const phone = newPhone();
  const headers = { 'x-callback-key': SECRET };
  expect(await post(fenced, '/sms/africastalking', form(phone, `f-${phone}`, 'HELP'), headers)).toEqual([
    403,
    'forbidden',
  ]);
  expect(
    await post(fenced, '/sms/inbound', { from: phone, to: '1', text: 'HELP', receivedAt: 'now' }, headers),
  ).toEqual([403, 'forbidden']);
  expect(await outbox(fenced, phone)).toEqual([]);
});
