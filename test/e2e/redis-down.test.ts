import type { Gateway } from '../../src/gateway/app';
import { loadLocales } from '../../src/i18n';
import { TEST_METERS } from '../../src/sandbox';
import { OwnRedisServer } from '../support/redis-server';
import { dialogue, hop, newPhone, startTestGateway, waitForSms } from './harness';
import { until } from '../support/wait';

/**
 * Redis dying under a running gateway: hops must still get a polite END within the hop budget
 * (the aggregator would otherwise time out on the subscriber), and /healthz must say so.
 * Runs its own redis-server so the shared one is never disturbed.
 */

jest.setTimeout(30000);

const redis = new OwnRedisServer();
let gateway: Gateway;

beforeAll(async () => {
  await redis.start();
  gateway = await startTestGateway({
    REDIS_URL: redis.url,
    USSD_HOP_BUDGET_MS: '4000',
    PURCHASE_API_TIMEOUT_MS: '2000',
  });
});

afterAll(async () => {
  // Closing needs Redis (BullMQ's connections wait for it): the test brings it back first.
  await gateway.close();
  await redis.kill();
});

it('answers a polite END when Redis is gone, and /healthz reports it', async () => {
  // Logs stay JSON lines through winston: no client prints its connection errors on its own.
  const rawErrors = jest.spyOn(console, 'error');
  const phone = newPhone();
  expect((await hop(gateway, `down-${phone}`, phone, '')).end).toBe(false);

  await redis.kill();

  const reply = await hop(gateway, `down-${phone}`, phone, '1');
  expect(reply.status).toBe(200);
  expect(reply.end).toBe(true);
  // A polite "dial again" that never invites a second purchase; the dialogue is not reset.
  expect(reply.screen).toBe(loadLocales().t('en', 'error.hopInterrupted'));

  const health = await fetch(`${gateway.url}/healthz`);
  expect(health.status).toBe(503);
  expect(await health.json()).toMatchObject({
    status: 'degraded',
    redis: 'unreachable',
    sessions: 'Redis',
    jobs: 'Redis (BullMQ)',
    records: 'PostgreSQL',
  });

  // Redis back (empty: it keeps nothing): the gateway serves new dialogues again.
  await redis.start();
  await until('/healthz ok again', async () => (await fetch(`${gateway.url}/healthz`)).status === 200);
  const again = await hop(gateway, `back-${phone}`, phone, '');
  expect(again.end).toBe(false);
  expect(again.screen).toContain(loadLocales().t('en', 'menu.title'));

  // The purchase and SMS workers (BullMQ's own connections) are back too: a purchase completes.
  const replies = await dialogue(gateway, `buy-${phone}`, phone, ['1', TEST_METERS.active, '1', '100', '1']);
  expect(replies.at(-1)?.end).toBe(true);
  const [sms] = await waitForSms(gateway, phone);
  expect(sms.message).toMatch(/Token: [\d ]+/);
  expect(rawErrors).not.toHaveBeenCalled();
});
