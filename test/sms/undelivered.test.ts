import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import axios from 'axios';
import express from 'express';
import { Redis } from 'ioredis';
import { main } from '../../src/cli/main';
import type { Gateway } from '../../src/gateway/app';
import { TEST_METERS } from '../../src/sandbox';
import { dialogue, newPhone, startTestGateway } from '../e2e/harness';
import { testRecordsEnv } from '../support/database';
import { deleteKeysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';
import { until } from '../support/wait';

/**
 * #27 item 4: token SMS that the provider refuses with a 4xx while it is misconfigured are kept
 * as undelivered in a view the operator sees (`/admin/sms/undelivered`, `npm run cli -- sms
 * undelivered`, the `sms_undelivered` gauge), and resent in bulk once the provider is fixed:
 * oldest first, each once even when two operators resend at the same time. Real Redis, a real
 * gateway and its sandbox, the HTTP SMS driver posting to a webhook that answers 400 then 200.
 */

const ADMIN = 'undelivered-admin-token-0123456789';
const auth = { headers: { authorization: `Bearer ${ADMIN}` } };
const prefix = testPrefix('undelivered');

/** The provider's webhook: 400 while `broken`, 200 with a message id after. */
const posts: { id: string; to: string; message: string; status: number }[] = [];
let broken = true;
let server: Server;
let gateway: Gateway;
let redis: Redis;

// The gateway and the CLI share the queue (Redis) and the records (a schema of the test PostgreSQL).
const records = testRecordsEnv('undelivered');
const env = { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix, ...records.env };

beforeAll(async () => {
  const peer = express().use(express.json());
  peer.post('/sms', (req, res) => {
    const status = broken ? 400 : 200;
    posts.push({ ...(req.body as { id: string; to: string; message: string }), status });
    if (broken) res.status(400).json({ error: 'unknown sender id' });
    else res.status(200).json({ messageId: `peer-${posts.length}` });
  });
  server = await new Promise<Server>((resolve) => {
    const s = peer.listen(0, '127.0.0.1', () => resolve(s));
  });
  redis = new Redis(TEST_REDIS_URL);
  gateway = await startTestGateway({
    ...env,
    SMS_DRIVER: 'http',
    SMS_HTTP_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sms`,
    ADMIN_TOKEN: ADMIN,
  });
});

afterAll(async () => {
  await gateway.close();
  await new Promise((resolve) => server.close(resolve));
  await deleteKeysUnder(redis, prefix);
  await redis.quit();
  await records.drop();
});

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    env: { NODE_ENV: 'test', SANDBOX_PORT: '0', ...env },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const view = async () => (await axios.get(`${gateway.url}/admin/sms/undelivered`, auth)).data;
const gauge = async () =>
  Number(/^sms_undelivered (\d+)$/m.exec((await axios.get(`${gateway.url}/metrics`)).data as string)?.[1]);
const tokenPosts = (to: string, status: number) =>
  posts.filter((p) => p.to === to && p.status === status && /Token/.test(p.message));

it('keeps 4xx-refused token SMS in a view and a gauge, and resends them oldest first, once each', async () => {
  const phone = newPhone();
  for (const amount of ['10', '20']) {
    const replies = await dialogue(gateway, `u-${amount}-${phone}`, phone, [
      '1',
      TEST_METERS.active,
      '1', // Send the token to: This phone
      amount,
      '1',
    ]);
    expect(replies[5].end).toBe(true);
    // One at a time, so their order is the order bought.
    await until(
      `the token SMS for ${amount} refused`,
      () => tokenPosts(phone, 400).length >= (amount === '10' ? 1 : 2) || null,
    );
  }

  const listed = await until('both in the undelivered view', async () => {
    const v = await view();
    return v.total === 2 ? v : null;
  });
  expect(listed.sms.map((s: { status: string }) => s.status)).toEqual(['rejected', 'rejected']);
  expect(listed.sms[0].createdAt <= listed.sms[1].createdAt).toBe(true);
  expect(listed.sms[0].lastError).toMatch(/400/);
  // Masked like every admin answer: the number and the token never whole.
  expect(JSON.stringify(listed)).not.toContain(phone);
  expect(await gauge()).toBe(2);
  const shown = await cli(['sms', 'undelivered']);
  expect(shown).toMatchObject({ code: 0, err: '' });
  expect(shown.out).toMatch(/2 undelivered SMS$/);
  expect(shown.out).not.toContain(phone);
  const [first, second] = listed.sms as { purchaseId: string }[];

  // Nothing is tried again by itself: the provider refused it for good.
  expect(tokenPosts(phone, 400)).toHaveLength(2);

  // The provider is fixed; two operators resend at once (the admin route and the CLI).
  broken = false;
  const [byAdmin, byCli] = await Promise.all([
    axios.post(`${gateway.url}/admin/sms/undelivered/resend`, {}, auth),
    cli(['sms', 'resend-undelivered', '--json']),
  ]);
  expect(byAdmin.status).toBe(200);
  expect(byCli.code).toBe(0);
  const cliReport = JSON.parse(byCli.out);
  // Oldest first in whichever report resent them.
  for (const report of [byAdmin.data, cliReport]) {
    const order = report.resent.map((r: { purchaseId: string }) => r.purchaseId);
    expect(order).toEqual([first.purchaseId, second.purchaseId].filter((id) => order.includes(id)));
  }
  const delivered = await until('both tokens delivered', () => {
    const ok = tokenPosts(phone, 200);
    return ok.length >= 2 ? ok : null;
  });
  // Each token once: the copies of the two purchases, never the same one twice.
  expect(new Set(delivered.map((p) => p.id)).size).toBe(delivered.length);
  expect(delivered).toHaveLength(2);
  // The same texts as refused (the same tokens), one copy each.
  expect(delivered.map((p) => p.message).sort()).toEqual(
    tokenPosts(phone, 400)
      .map((p) => p.message)
      .sort(),
  );
  expect((await view()).total).toBe(0);
  expect(await gauge()).toBe(0);

  // A later resend finds nothing to do; nothing more is sent.
  const again = await axios.post(`${gateway.url}/admin/sms/undelivered/resend`, {}, auth);
  expect(again.data).toMatchObject({ resent: [], failed: [], remaining: 0 });
  expect(tokenPosts(phone, 200)).toHaveLength(2);
});

it('the view and the resend need the admin token; a bad limit is a 400', async () => {
  expect(
    (await axios.get(`${gateway.url}/admin/sms/undelivered`, { validateStatus: () => true })).status,
  ).toBe(401);
  const bad = await axios.get(`${gateway.url}/admin/sms/undelivered?limit=0`, {
    ...auth,
    validateStatus: () => true,
  });
  expect(bad.status).toBe(400);
  expect((await cli(['sms', 'undelivered', '--limit', '0'])).code).toBe(2);
});
