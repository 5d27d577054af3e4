import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import winston from 'winston';
import { logger } from '../../observability/logger';
import type { SendOutcome } from '../sender';
import { AfricasTalkingSender } from './driver';

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  hang?: boolean;
}
interface Seen {
  path: string;
  headers: Record<string, unknown>;
  body: Record<string, string>;
}

const API_KEY = 'atsk_0123456789abcdefSECRET';
let reply: Reply = { status: 201 };
const seen: Seen[] = [];
const logLines: string[] = [];
let baseUrl = '';
let server: ReturnType<ReturnType<typeof express>['listen']>;
let capture: winston.transport;
let previousLevel = '';

beforeAll(async () => {
  const app = express().use(express.urlencoded({ extended: false }));
  app.post('/version1/messaging', (req, res) => {
    seen.push({ path: req.path, headers: req.headers, body: { ...req.body } });
    if (reply.hang) return; // never answers: the client's timeout must fire
    res.status(reply.status).set(reply.headers ?? {});
    if (typeof reply.body === 'string') res.type('text/plain').send(reply.body);
    else res.json(reply.body ?? {});
  });
  await new Promise<void>((resolve) => {
    server = app.listen(0, '127.0.0.1', () => resolve());
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  capture = new winston.transports.Stream({
    stream: new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
  });
  previousLevel = logger.level;
  logger.level = 'debug';
  for (const transport of logger.transports) transport.silent = true; // keep the console quiet
  logger.add(capture);
});

afterAll(async () => {
  logger.remove(capture);
  for (const transport of logger.transports) transport.silent = false;
  logger.level = previousLevel;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
});

const sender = () =>
  new AfricasTalkingSender({ baseUrl, username: 'gateway', apiKey: API_KEY, timeoutMs: 500 });
const sms = { id: 'n1', to: '26771234567', message: 'Token: 1234 5678 9012', purchaseId: 'p1' };

const recipients = (statusCode: number, status: string, messageId = 'ATXid_abc') => ({
  SMSMessageData: {
    Message: 'Sent to 1/1 Total Cost: BWP 0.2500',
    Recipients: [{ statusCode, number: '+26771234567', status, cost: 'BWP 0.2500', messageId }],
  },
});

describe('Africa’s Talking driver', () => {
  it('posts the documented form fields and headers', async () => {
    reply = { status: 201, body: recipients(101, 'Success') };
    await new AfricasTalkingSender({
      baseUrl,
      username: 'gateway',
      apiKey: API_KEY,
      from: 'POWER',
      timeoutMs: 500,
    }).send(sms);
    expect(seen).toHaveLength(1);
    expect(seen[0].path).toBe('/version1/messaging');
    expect(seen[0].body).toEqual({
      username: 'gateway',
      to: '+26771234567',
      message: 'Token: 1234 5678 9012',
      from: 'POWER',
      bulkSMSMode: '1',
    });
    expect(seen[0].headers).toMatchObject({
      apikey: API_KEY,
      accept: 'application/json',
      'content-type': 'application/x-www-form-urlencoded',
    });
  });

  it('uses the message’s own sender id over the default and omits from when neither is set', async () => {
    reply = { status: 201, body: recipients(101, 'Success') };
    await sender().send({ ...sms, from: '12345' });
    await sender().send(sms);
    expect(seen.map((s) => s.body.from)).toEqual(['12345', undefined]);
  });

  test.each<[string, Reply, SendOutcome]>([
    [
      '100 Processed',
      { status: 201, body: recipients(100, 'Processed') },
      { status: 'sent', providerMessageIds: ['ATXid_abc'] },
    ],
    [
      '101 Success',
      { status: 201, body: recipients(101, 'Success') },
      { status: 'sent', providerMessageIds: ['ATXid_abc'] },
    ],
    [
      '102 Queued',
      { status: 201, body: recipients(102, 'Queued') },
      { status: 'sent', providerMessageIds: ['ATXid_abc'] },
    ],
    [
      '401 RiskHold',
      { status: 201, body: recipients(401, 'RiskHold', 'None') },
      { status: 'retry', reason: 'africastalking 401 RiskHold' },
    ],
    [
      '402 InvalidSenderId',
      { status: 201, body: recipients(402, 'InvalidSenderId', 'None') },
      { status: 'retry', reason: 'africastalking 402 InvalidSenderId' },
    ],
    [
      '403 InvalidPhoneNumber',
      { status: 201, body: recipients(403, 'InvalidPhoneNumber', 'None') },
      { status: 'rejected', reason: 'africastalking 403 InvalidPhoneNumber' },
    ],
    [
      '404 UnsupportedNumberType',
      { status: 201, body: recipients(404, 'UnsupportedNumberType', 'None') },
      { status: 'rejected', reason: 'africastalking 404 UnsupportedNumberType' },
    ],
    [
      '405 InsufficientBalance',
      { status: 201, body: recipients(405, 'InsufficientBalance', 'None') },
      { status: 'retry', reason: 'africastalking 405 InsufficientBalance' },
    ],
    [
      '406 UserInBlacklist',
      { status: 201, body: recipients(406, 'UserInBlacklist', 'None') },
      { status: 'rejected', reason: 'africastalking 406 UserInBlacklist' },
    ],
    [
      '407 CouldNotRoute',
      { status: 201, body: recipients(407, 'CouldNotRoute', 'None') },
      { status: 'rejected', reason: 'africastalking 407 CouldNotRoute' },
    ],
    [
      '409 DoNotDisturbRejection',
      { status: 201, body: recipients(409, 'DoNotDisturbRejection', 'None') },
      { status: 'retry', reason: 'africastalking 409 DoNotDisturbRejection' },
    ],
    [
      '500 InternalServerError',
      { status: 201, body: recipients(500, 'InternalServerError', 'None') },
      { status: 'retry', reason: 'africastalking 500 InternalServerError' },
    ],
    [
      '502 RejectedByGateway',
      { status: 201, body: recipients(502, 'RejectedByGateway', 'None') },
      { status: 'retry', reason: 'africastalking 502 RejectedByGateway' },
    ],
    [
      'unknown status code',
      { status: 201, body: recipients(499, 'Mystery', 'None') },
      { status: 'retry', reason: 'africastalking 499 Mystery' },
    ],
    [
      'no recipients',
      { status: 201, body: { SMSMessageData: { Message: 'InvalidSenderId', Recipients: [] } } },
      { status: 'retry', reason: expect.stringContaining('without a recipient status') },
    ],
    [
      '201 with a non-JSON body',
      { status: 201, body: 'ok' },
      { status: 'retry', reason: 'africastalking reply without a recipient status: ok' },
    ],
    [
      'HTTP 401 bad key',
      { status: 401, body: 'The supplied authentication is invalid' },
      {
        status: 'retry',
        reason: 'africastalking refused our credentials (HTTP 401): check username and apiKey',
      },
    ],
    [
      'HTTP 400 bad request',
      { status: 400, body: 'Invalid phone number: +26771234567' },
      { status: 'rejected', reason: 'africastalking HTTP 400: Invalid phone number: +267****4567' },
    ],
    [
      'HTTP 429 with Retry-After',
      { status: 429, body: 'slow down', headers: { 'Retry-After': '7' } },
      { status: 'retry', reason: 'africastalking HTTP 429', retryAfterMs: 7000 },
    ],
    ['HTTP 500', { status: 500, body: 'boom' }, { status: 'retry', reason: 'africastalking HTTP 500' }],
    [
      'HTTP 503',
      { status: 503, body: 'maintenance' },
      { status: 'retry', reason: 'africastalking HTTP 503' },
    ],
    [
      'timeout',
      { status: 201, hang: true },
      { status: 'retry', reason: 'africastalking unreachable: ECONNABORTED' },
    ],
  ])('%s', async (_label, r, expected) => {
    reply = r;
    expect(await sender().send(sms)).toEqual(expected);
    expect(seen).toHaveLength(1);
  });

  it('retries when the API is unreachable', async () => {
    const closed = express().listen(0, '127.0.0.1');
    await new Promise((resolve) => closed.once('listening', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = new AfricasTalkingSender({
      baseUrl: `http://127.0.0.1:${port}`,
      username: 'u',
      apiKey: API_KEY,
      timeoutMs: 500,
    });
    expect(await down.send(sms)).toEqual({
      status: 'retry',
      reason: 'africastalking unreachable: ECONNREFUSED',
    });
  });

  it('never logs the api key nor the full number', () => {
    expect(logLines.length).toBeGreaterThan(5);
    const all = logLines.join('\n');
    expect(all).not.toContain(API_KEY);
    expect(all).not.toContain('26771234567');
    expect(all).toContain('267****4567');
  });
});
