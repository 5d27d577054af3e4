import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import axios from 'axios';
import express from 'express';
import fc from 'fast-check';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { garbageValue, hugeText, oddText } from '../fuzz/generators';
import { newPhone, startTestGateway } from '../e2e/harness';
import { testRedis, type TestRedis } from '../support/redis';
import { until } from '../support/wait';

/**
 * Delivery reports whose optional fields are absent, null or odd, with Redis (the SMS records in
 * the gateway's PostgreSQL schema): a token SMS reported `Failed`, `Rejected` or `Expired` is always
 * sent again, whatever else the report lacks; a status that is not one of Africa's Talking's
 * (`__proto__`, `constructor`… included) gets 400 and no metric series.
 */

const ADMIN = 'delivery-fields-admin-token-0123456789';
const auth = { headers: { authorization: `Bearer ${ADMIN}` } };
const RUNS = Math.min(Number(process.env.FUZZ_RUNS ?? 60), 300);
let server: Server;
let gateway: Gateway;
let redis: TestRedis;
const sent: { to: string; message: string; messageId: string }[] = [];
let phone: string;
let purchaseId: string;

beforeAll(async () => {
  const at = express().use(express.urlencoded({ extended: false }));
  at.post('/version1/messaging', (req, res) => {
    const messageId = `ATXid_fields_${sent.length + 1}`;
    sent.push({ to: String(req.body.to).replace('+', ''), message: String(req.body.message), messageId });
    res.status(201).json({
      SMSMessageData: {
        Message: 'Sent to 1/1',
        Recipients: [
          { statusCode: 101, number: req.body.to, status: 'Success', cost: 'BWP 0.10', messageId },
        ],
      },
    });
  });
  server = await new Promise<Server>((resolve) => {
    const s = at.listen(0, '127.0.0.1', () => resolve(s));
  });
  redis = testRedis('dlr-fields');
  gateway = await startTestGateway({
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    SMS_DRIVER: 'africastalking',
    AT_USERNAME: 'sandbox',
    AT_API_KEY: 'atsk_test_key_0123456789',
    AT_SMS_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ADMIN_TOKEN: ADMIN,
    SMS_RETRY_BASE_MS: '10',
    SMS_RETRY_MAX_DELAY_MS: '20',
    SMS_RATE_PER_MIN: '100',
    SMS_REPLIES_PER_MIN: '100',
  });

  // One purchase by SMS; each test resends its token SMS as a new notification.
  phone = newPhone();
  const inbound = (text: string, id: string) =>
    axios.post(
      `${gateway.url}/sms/africastalking`,
      new URLSearchParams({ id, from: `+${phone}`, to: '12345', text, date: 'now' }),
    );
  await inbound(`ELEC ${TEST_METERS.active} 100`, `in-${phone}-1`);
  const quote = await until('the quote', () => sent.find((m) => m.to === phone) ?? null);
  await inbound(`YES ${/YES (\d{4})/.exec(quote.message)![1]}`, `in-${phone}-2`);
  await until('the token SMS', () => sent.find((m) => m.to === phone && /Token/.test(m.message)) ?? null);
  purchaseId = (await gateway.desk.listByMsisdn(phone))[0].id;
}, 30_000);

afterAll(async () => {
  await gateway?.close();
  await new Promise((resolve) => server.close(resolve));
  await redis.cleanup();
});

const tokenCopies = () => sent.filter((m) => m.to === phone && /Token/.test(m.message));

/**
 * A fresh token SMS (an operator's resend): its provider message id, as soon as the provider has
 * it (a report before the gateway wrote the send is kept until it has).
 */
async function freshTokenSms(): Promise<string> {
  const before = tokenCopies().length;
  await axios.post(`${gateway.url}/admin/purchases/${purchaseId}/resend-sms`, {}, auth);
  return (await until('the resent token SMS', () => tokenCopies()[before] ?? null)).messageId;
}

/** Posts a report as a form or JSON: the answer's status, and the size of the body sent. */
async function post(body: Record<string, unknown>, json: boolean): Promise<{ status: number; size: number }> {
  const form = new URLSearchParams();
  // A form has no null: absent instead; an array is the field repeated; anything else as JSON.
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    for (const one of Array.isArray(value) ? value : [value])
      form.append(name, typeof one === 'string' ? one : JSON.stringify(one));
  }
  const payload = json ? JSON.stringify(body) : form.toString();
  const response = await axios.post(`${gateway.url}/sms/africastalking/delivery`, payload, {
    headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
    validateStatus: () => true,
  });
  return { status: response.status, size: Buffer.byteLength(payload) };
}

const report = async (body: Record<string, unknown>, json: boolean) => (await post(body, json)).status;

const FAILED = ['Failed', 'Rejected', 'Expired'];

it('re-sends a token SMS reported failed without a failureReason (absent, empty, JSON null)', async () => {
  for (const [status, failureReason, json] of [
    ['Failed', undefined, false],
    ['Rejected', '', false],
    ['Expired', null, true],
    ['Failed', undefined, true],
  ] as const) {
    const id = await freshTokenSms();
    const copies = tokenCopies().length;
    expect({ status, failureReason, answer: await report({ id, status, failureReason }, json) }).toEqual({
      status,
      failureReason,
      answer: 200,
    });
    await until(`the token SMS sent again after ${status}`, () => tokenCopies().length > copies);
  }
});

it("answers 400 to a status named like Object.prototype's members, and counts no series for it", async () => {
  const id = await freshTokenSms();
  for (const status of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'])
    for (const json of [false, true])
      expect({ status, json, answer: await report({ id, status }, json) }).toEqual({
        status,
        json,
        answer: 400,
      });
  const metrics = String((await axios.get(`${gateway.url}/metrics`, { responseType: 'text' })).data);
  const states = [...metrics.matchAll(/sms_delivery_reports_total\{state="([^"]*)"\}/g)].map((m) => m[1]);
  expect(states.filter((s) => !['delivered', 'pending', 'failed'].includes(s))).toEqual([]);
});

it('fuzz: every optional field absent, null or odd — never 5xx, a failed token SMS always sent again', async () => {
  const optional = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.constant(''),
    oddText,
    hugeText,
    garbageValue,
  );
  const body = fc.record({
    status: fc.oneof(
      fc.constantFrom(...FAILED),
      fc.constantFrom('Success', 'Sent', 'Buffered'),
      fc.constantFrom('__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'),
      oddText,
    ),
    failureReason: optional,
    networkCode: optional,
    retryCount: optional,
    phoneNumber: optional,
  });
  await fc.assert(
    fc.asyncProperty(body, fc.boolean(), async (fields, json) => {
      const id = await freshTokenSms();
      const copies = tokenCopies().length;
      const { status: answer, size } = await post({ id, ...fields }, json);
      expect(answer).toBeLessThan(500);
      // Bodies past the routes' 16 kB limit are refused whole, before any field is read.
      if (size > 16 * 1024) return expect(answer).toBe(413);
      const known = ['Success', 'Sent', 'Buffered', ...FAILED].includes(fields.status);
      expect(answer).toBe(known ? 200 : 400);
      if (FAILED.includes(fields.status))
        await until(`the token SMS sent again after ${fields.status}`, () => tokenCopies().length > copies, {
          timeoutMs: 5000,
        });
    }),
    { numRuns: RUNS },
  );
}, 120_000);
