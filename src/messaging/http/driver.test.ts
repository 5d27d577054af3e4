import type { AddressInfo } from 'node:net';
import express from 'express';
import type { SendOutcome } from '../sender';
import { HttpSmsSender } from './driver';

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}
let reply: Reply = { status: 200 };
const seen: { headers: Record<string, unknown>; body: unknown }[] = [];
let url = '';
let server: ReturnType<ReturnType<typeof express>['listen']>;

beforeAll(async () => {
  const app = express().use(express.json());
  app.post('/sms', (req, res) => {
    seen.push({ headers: req.headers, body: req.body });
    res.status(reply.status).set(reply.headers ?? {});
    if (typeof reply.body === 'string') res.type('text/plain').send(reply.body);
    else if (reply.body === undefined) res.end();
    else res.json(reply.body);
  });
  await new Promise<void>((resolve) => {
    server = app.listen(0, '127.0.0.1', () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sms`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
});

const sms = { id: 'n1', to: '26771234567', message: 'Token 1234', purchaseId: 'p1' };

describe('generic HTTP driver', () => {
  it('posts { id, to, from, message } with the bearer token', async () => {
    reply = { status: 202 };
    await new HttpSmsSender({ url, bearerToken: 's3cret', from: 'POWER', timeoutMs: 1000 }).send(sms);
    expect(seen).toEqual([
      {
        headers: expect.objectContaining({
          authorization: 'Bearer s3cret',
          'content-type': 'application/json',
        }),
        body: { id: 'n1', to: '26771234567', from: 'POWER', message: 'Token 1234' },
      },
    ]);
  });

  it('sends no authorization header without a token, and from null without a sender', async () => {
    reply = { status: 200 };
    await new HttpSmsSender({ url, timeoutMs: 1000 }).send(sms);
    expect(seen[0].headers.authorization).toBeUndefined();
    expect(seen[0].body).toEqual({ id: 'n1', to: '26771234567', from: null, message: 'Token 1234' });
  });

  test.each<[string, Reply, SendOutcome]>([
    ['200 empty', { status: 200 }, { status: 'sent' }],
    [
      '201 with messageId',
      { status: 201, body: { messageId: 'abc-1' } },
      { status: 'sent', providerMessageIds: ['abc-1'] },
    ],
    [
      '202 with numeric id',
      { status: 202, body: { id: 42 } },
      { status: 'sent', providerMessageIds: ['42'] },
    ],
    [
      '400',
      { status: 400, body: 'bad number 26771234567' },
      { status: 'rejected', reason: 'sms webhook HTTP 400: bad number 267****4567' },
    ],
    [
      '400 echoing the message, token included',
      { status: 400, body: 'message too long: Token: 0243 6178 2717 1264 0323 for 71234567' },
      { status: 'rejected', reason: 'sms webhook HTTP 400: message too long: Token: ****0323 for ******67' },
    ],
    [
      '400 echoing a token run together',
      { status: 400, body: 'bad: 02436178271712640323' },
      { status: 'rejected', reason: 'sms webhook HTTP 400: bad: ****0323' },
    ],
    [
      '401',
      { status: 401, body: 'no' },
      { status: 'retry', reason: 'sms webhook refused our credentials (HTTP 401)' },
    ],
    ['403', { status: 403 }, { status: 'retry', reason: 'sms webhook refused our credentials (HTTP 403)' }],
    [
      '422',
      { status: 422, body: 'invalid' },
      { status: 'rejected', reason: 'sms webhook HTTP 422: invalid' },
    ],
    ['404', { status: 404, body: '' }, { status: 'rejected', reason: 'sms webhook HTTP 404: ' }],
    ['408', { status: 408 }, { status: 'retry', reason: 'sms webhook HTTP 408' }],
    [
      '429 Retry-After seconds',
      { status: 429, headers: { 'Retry-After': '30' } },
      { status: 'retry', reason: 'sms webhook HTTP 429', retryAfterMs: 30000 },
    ],
    ['500', { status: 500, body: 'oops' }, { status: 'retry', reason: 'sms webhook HTTP 500' }],
    [
      '503 Retry-After',
      { status: 503, headers: { 'Retry-After': '2' } },
      { status: 'retry', reason: 'sms webhook HTTP 503', retryAfterMs: 2000 },
    ],
  ])('%s', async (_label, r, expected) => {
    reply = r;
    expect(await new HttpSmsSender({ url, timeoutMs: 1000 }).send(sms)).toEqual(expected);
  });

  it('retries when the webhook is unreachable', async () => {
    const closed = express().listen(0, '127.0.0.1');
    await new Promise((resolve) => closed.once('listening', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const sender = new HttpSmsSender({ url: `http://127.0.0.1:${port}/sms`, timeoutMs: 1000 });
    expect(await sender.send(sms)).toEqual({
      status: 'retry',
      reason: 'sms webhook unreachable: ECONNREFUSED',
    });
  });
});
