import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import axios from 'axios';
import express from 'express';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { newPhone, startTestGateway } from '../e2e/harness';
import { testRecordsEnv } from '../support/database';
import { testRedis, type TestRedis } from '../support/redis';
import { until } from '../support/wait';

/**
 * A delivery report that races the gateway's own write of the send (the house rule: a token is
 * never lost). A stand-in of Africa's Talking (real HTTP) reports a token SMS `Failed`
 *  - before it answers the send request: the report names a provider id no message carries yet;
 *  - after it answered, while the gateway's write of `sent` is held by a lock the test takes on
 *    the message's row: the report comes while the message is still `sending`;
 *  - to two instances sharing the records and Redis, each twice, before it answers.
 * Each time the token SMS is sent again exactly once. Before the fix each report was dropped as
 * for an unknown message and the token SMS never sent again.
 */

const ADMIN = 'delivery-races-admin-token-0123456789';
const auth = { headers: { authorization: `Bearer ${ADMIN}` } };
let server: Server;
let gateway: Gateway;
let other: Gateway;
let redis: TestRedis;
const records = testRecordsEnv('dlr_races');
const sent: { to: string; message: string; messageId: string }[] = [];
const stubErrors: unknown[] = [];
let phone: string;
let purchaseId: string;

/** What the stub does around its answer to the next token SMS (once). */
interface Plan {
  before?: (providerMessageId: string) => Promise<void>;
  after?: (providerMessageId: string) => Promise<void>;
}
const plans: Plan[] = [];

beforeAll(async () => {
  const at = express().use(express.urlencoded({ extended: false }));
  at.post('/version1/messaging', async (req, res) => {
    try {
      const messageId = `ATXid_race_${sent.length + 1}`;
      const message = String(req.body.message);
      sent.push({ to: String(req.body.to).replace('+', ''), message, messageId });
      const plan = /Token/.test(message) ? plans.shift() : undefined;
      await plan?.before?.(messageId);
      await new Promise<void>((resolve) => {
        res.status(201).json({
          SMSMessageData: {
            Message: 'Sent to 1/1',
            Recipients: [
              { statusCode: 101, number: req.body.to, status: 'Success', cost: 'BWP 0.10', messageId },
            ],
          },
        });
        res.once('finish', resolve);
      });
      await plan?.after?.(messageId);
    } catch (error) {
      stubErrors.push(error);
    }
  });
  server = await new Promise<Server>((resolve) => {
    const s = at.listen(0, '127.0.0.1', () => resolve(s));
  });
  redis = testRedis('dlr-races');
  const env = {
    ...records.env,
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
  };
  gateway = await startTestGateway(env);
  other = await startTestGateway(env);

  // One purchase by SMS; each test resends its token SMS as a new message.
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
}, 60_000);

afterAll(async () => {
  await other?.close();
  await gateway?.close();
  await new Promise((resolve) => server.close(resolve));
  await redis.cleanup();
  await records.drop();
});

afterEach(() => {
  expect(stubErrors).toEqual([]);
  expect(plans).toEqual([]);
});

const tokenCopies = () => sent.filter((m) => m.to === phone && /Token/.test(m.message));

/** Posts a delivery report to one instance; its answer's status. */
async function report(to: Gateway, id: string, status: string): Promise<number> {
  const response = await axios.post(
    `${to.url}/sms/africastalking/delivery`,
    new URLSearchParams({ id, status, failureReason: 'AbsentSubscriber' }),
    { validateStatus: () => true },
  );
  return response.status;
}

async function messages(): Promise<Record<string, unknown>[]> {
  return (await axios.get(`${gateway.url}/admin/purchases/${purchaseId}`, auth)).data.sms;
}

/**
 * Resends the token SMS with the stub following `plan` on its first copy; waits for the copy sent
 * again and for the message recorded sent under that copy's id: the copies of this resend.
 */
async function resendRacing(plan: Plan): Promise<{ copies: string[]; record: Record<string, unknown> }> {
  const before = tokenCopies().length;
  plans.push(plan);
  await axios.post(`${gateway.url}/admin/purchases/${purchaseId}/resend-sms`, {}, auth);
  const again = await until('the token SMS sent again', () => tokenCopies()[before + 1] ?? null);
  const record = await until('the copy sent again recorded sent', async () =>
    (await messages()).find((m) => m.providerMessageId === again.messageId && m.status === 'sent'),
  );
  return {
    copies: tokenCopies()
      .slice(before)
      .map((m) => m.messageId),
    record,
  };
}

it('sends a token SMS again once when it is reported Failed before the provider answered the send', async () => {
  const { copies, record } = await resendRacing({
    before: async (id) => expect(await report(gateway, id, 'Failed')).toBe(200),
  });
  expect(copies).toHaveLength(2);
  expect(record).toMatchObject({
    deliveryFailures: 1,
    delivery: expect.objectContaining({ state: 'failed', providerStatus: 'Failed' }),
  });
});

it('sends a token SMS again once when a Failed report comes while its send is still being written', async () => {
  let release!: () => void;
  let held: Promise<void> | undefined;
  const { copies, record } = await resendRacing({
    // The message is `sending` now: hold its row, so the gateway's write of `sent` waits.
    before: async () => {
      let locked!: () => void;
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      held = gateway.records.transaction(async (tx) => {
        const rows = await tx.query(
          `SELECT id FROM sms_messages WHERE recipient = $1 AND status = 'sending' FOR UPDATE`,
          [phone],
        );
        expect(rows.rows).toHaveLength(1);
        locked();
        await released;
      });
      await lockTaken;
    },
    // Answered: the gateway's write waits on the row; the report comes now, then the write goes on.
    after: async (id) => {
      try {
        expect(await report(gateway, id, 'Failed')).toBe(200);
      } finally {
        release();
      }
      await held;
    },
  });
  expect(copies).toHaveLength(2);
  expect(record).toMatchObject({ deliveryFailures: 1 });
});

it('sends it again once for duplicate reports to two instances, before the answer and after the resend', async () => {
  let first = '';
  const { copies, record } = await resendRacing({
    before: async (id) => {
      first = id;
      const answers = await Promise.all([gateway, other, gateway, other].map((g) => report(g, id, 'Failed')));
      expect(answers).toEqual([200, 200, 200, 200]);
    },
  });
  expect(copies).toHaveLength(2);
  // Late duplicates of the report on the first copy: that copy was sent again already.
  const late = await Promise.all([gateway, other].map((g) => report(g, first, 'Failed')));
  expect(late).toEqual([200, 200]);
  const after = (await messages()).find((m) => m.id === record.id);
  expect(after).toMatchObject({ status: 'sent', deliveryFailures: 1, providerMessageId: copies[1] });
  expect(
    tokenCopies()
      .slice(-2)
      .map((m) => m.messageId),
  ).toEqual(copies);
});
