import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import axios from 'axios';
import express from 'express';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { newPhone, startTestGateway } from '../e2e/harness';
import { until } from '../support/wait';

/**
 * Delivery reports end to end: the gateway sends through the Africa's Talking driver to a
 * stand-in of AT's messaging API (real HTTP), keeps each message id, and a delivery report
 * posted to `/sms/africastalking/delivery` is recorded on the SMS; a token SMS reported
 * `Failed` is sent again, and given up as `undelivered` after the retries. Each report is posted as
 * soon as the stand-in has answered the send: one that comes before the gateway has written its
 * answer is kept until it has (test/sms/delivery-report-races.test.ts for the races themselves).
 */

const ADMIN = 'delivery-admin-token-0123456789';
let server: Server;
let gateway: Gateway;
const sent: { to: string; message: string; messageId: string }[] = [];

beforeAll(async () => {
  const at = express().use(express.urlencoded({ extended: false }));
  at.post('/version1/messaging', (req, res) => {
    const messageId = `ATXid_out_${sent.length + 1}`;
    sent.push({ to: String(req.body.to), message: String(req.body.message), messageId });
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
  gateway = await startTestGateway({
    SMS_DRIVER: 'africastalking',
    AT_USERNAME: 'sandbox',
    AT_API_KEY: 'atsk_test_key_0123456789',
    AT_SMS_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ADMIN_TOKEN: ADMIN,
    SMS_RETRY_BASE_MS: '10',
    SMS_RETRY_MAX_DELAY_MS: '20',
  });
});

afterAll(async () => {
  await gateway.close();
  await new Promise((resolve) => server.close(resolve));
});

async function report(id: string, status: string, failureReason?: string): Promise<number> {
  const response = await axios.post(
    `${gateway.url}/sms/africastalking/delivery`,
    new URLSearchParams({ id, status, ...(failureReason && { failureReason }) }),
    { validateStatus: () => true },
  );
  return response.status;
}

const sentTo = (to: string) => sent.filter((m) => m.to.replace('+', '') === to);

async function notificationsOf(purchaseId: string): Promise<Record<string, unknown>[]> {
  const response = await axios.get(`${gateway.url}/admin/purchases/${purchaseId}`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  return response.data.sms as Record<string, unknown>[];
}

it('records Success on the SMS, and re-sends a token SMS reported Failed until it gives up', async () => {
  const phone = newPhone();
  const inbound = (text: string, id: string) =>
    axios.post(
      `${gateway.url}/sms/africastalking`,
      new URLSearchParams({ id, from: `+${phone}`, to: '12345', text, date: 'now' }),
    );
  await inbound(`ELEC ${TEST_METERS.active} 100`, `in-${phone}-1`);
  const quote = await until('the quote', () => sentTo(phone)[0] ?? null);
  await inbound(`YES ${/YES (\d{4})/.exec(quote.message)![1]}`, `in-${phone}-2`);
  const token = await until(
    'the token SMS',
    () => sentTo(phone).find((m) => /Token/.test(m.message)) ?? null,
  );

  // The quote reached the phone: recorded, nothing else happens.
  expect(await report(quote.messageId, 'Success')).toBe(200);
  const [purchase] = await gateway.desk.listByMsisdn(phone);

  // Buffered by the network: recorded on the token SMS, visible to the operator, nothing re-sent.
  expect(await report(token.messageId, 'Buffered')).toBe(200);
  await until('Buffered recorded on the token SMS', async () =>
    (await notificationsOf(purchase.id)).find(
      (n) =>
        n.providerMessageId === token.messageId &&
        n.status === 'sent' &&
        (n.delivery as { providerStatus?: string } | undefined)?.providerStatus === 'Buffered',
    ),
  );
  expect(await notificationsOf(purchase.id)).toContainEqual(
    expect.objectContaining({
      status: 'sent',
      delivery: expect.objectContaining({ state: 'pending', providerStatus: 'Buffered' }),
    }),
  );

  // The token SMS came back Failed or Expired: sent again (a new provider message id), three
  // times at most.
  let latest = token;
  for (const [failure, status] of [
    [1, 'Failed'],
    [2, 'Expired'],
    [3, 'Failed'],
  ] as const) {
    expect(await report(latest.messageId, status, 'AbsentSubscriber')).toBe(200);
    latest = await until(`copy ${failure + 1} of the token SMS`, () => {
      const copies = sentTo(phone).filter((m) => /Token/.test(m.message));
      return copies.length === failure + 1 ? copies[failure] : null;
    });
    expect(latest.message).toBe(token.message);
  }
  expect(await report(latest.messageId, 'Rejected', 'DeliveryFailure')).toBe(200);
  const sms = await until('the token SMS given up', async () => {
    const found = (await notificationsOf(purchase.id)).find((n) => n.status === 'undelivered');
    return found ?? null;
  });
  expect(sms).toMatchObject({
    deliveryFailures: 4,
    delivery: { state: 'failed', providerStatus: 'Rejected', failureReason: 'DeliveryFailure' },
    lastError: 'delivery failed: DeliveryFailure',
  });
  expect(sentTo(phone).filter((m) => /Token/.test(m.message))).toHaveLength(4);
  // A report for a message we never sent, and a malformed one.
  expect(await report('ATXid_unknown', 'Success')).toBe(200);
  expect(await report('ATXid_unknown', 'Lost')).toBe(400);
  const metrics = (await axios.get(`${gateway.url}/metrics`)).data as string;
  expect(metrics).toMatch(/sms_delivery_reports_total\{state="failed"\} 4/);
  expect(metrics).toMatch(/sms_delivery_reports_total\{state="pending"\} 1/);
});
