import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { EMBEDDED_CALLBACK_SECRET } from '../../src/payments/setup';
import { startTestGateway } from '../e2e/harness';
import { testRecordsEnv } from '../support/database';

/**
 * The payment callback routes as a provider meets them on a real gateway (its embedded M-Pesa
 * sandbox, records in a schema of the test PostgreSQL), served on `node:http` ahead of express:
 * the guard before the body, the answers' shapes, express's path matching (case, a trailing
 * slash), the request id echoed, and every other method or path left to express.
 */

const records = testRecordsEnv('callback_route');
const open = { validateStatus: () => true };
let gateway: Gateway;

/** A Daraja STK callback naming no payment of ours (kept unmatched). */
const stkCallback = (checkout: string) => ({
  Body: {
    stkCallback: {
      MerchantRequestID: `m-${checkout}`,
      CheckoutRequestID: checkout,
      ResultCode: 1032,
      ResultDesc: 'Request cancelled by user',
    },
  },
});

beforeAll(async () => {
  gateway = await startTestGateway(records.env);
});

afterAll(async () => {
  await gateway?.close();
  await records.drop();
});

it('a callback with the secret is kept and answered as Daraja expects, with its request id', async () => {
  const answer = await axios.post(
    `${gateway.url}/payments/callback/payment?key=${EMBEDDED_CALLBACK_SECRET}`,
    stkCallback('ws_CO_route1'),
    { ...open, headers: { 'X-Request-Id': 'route-test-1' } },
  );
  expect(answer.status).toBe(200);
  expect(answer.data).toEqual({ ResultCode: 0, ResultDesc: 'Accepted', outcome: 'unmatched' });
  expect(answer.headers['x-request-id']).toBe('route-test-1');
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
});

it('matches the path as express did: any case, a trailing slash; the secret also as X-Callback-Key', async () => {
  const answer = await axios.post(`${gateway.url}/Payments/Callback/Payment/`, stkCallback('ws_CO_route2'), {
    ...open,
    headers: { 'X-Callback-Key': EMBEDDED_CALLBACK_SECRET },
  });
  expect(answer.status).toBe(200);
  expect(answer.data).toMatchObject({ outcome: 'unmatched' });
  expect(answer.headers['x-request-id']).toMatch(/^gw-/);
});

it('turns away a callback without the secret, or with a wrong one, before reading it', async () => {
  for (const url of ['/payments/callback/payment', '/payments/callback/payment?key=wrong']) {
    const answer = await axios.post(`${gateway.url}${url}`, stkCallback('ws_CO_route3'), open);
    expect(answer.status).toBe(401);
    expect(answer.data).toBe('unauthorised');
  }
});

it('answers 400 for a body that is not JSON or not a result, 413 for one too large', async () => {
  const url = `${gateway.url}/payments/callback/payment?key=${EMBEDDED_CALLBACK_SECRET}`;
  const notJson = await axios.post(url, 'not json', { ...open, headers: { 'Content-Type': 'text/plain' } });
  expect(notJson.status).toBe(400);
  expect(notJson.data).toEqual({ error: 'the body is not JSON' });
  const noResult = await axios.post(url, { hello: 'world' }, open);
  expect(noResult.status).toBe(400);
  const tooLarge = await axios.post(url, { pad: 'x'.repeat(70 * 1024) }, open);
  expect(tooLarge.status).toBe(413);
});

it('leaves other methods and paths to express (404)', async () => {
  const get = await axios.get(
    `${gateway.url}/payments/callback/payment?key=${EMBEDDED_CALLBACK_SECRET}`,
    open,
  );
  expect(get.status).toBe(404);
  const other = await axios.post(
    `${gateway.url}/payments/callback/other?key=${EMBEDDED_CALLBACK_SECRET}`,
    stkCallback('ws_CO_route4'),
    open,
  );
  expect(other.status).toBe(404);
});
