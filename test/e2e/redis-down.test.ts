import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import type { Gateway } from '../../src/app';
import { loadLocales } from '../../src/i18n';
import { hop, newPhone, startTestGateway } from './harness';

/**
 * Redis dying under a running gateway: hops must still get a polite END within the hop budget
 * (the aggregator would otherwise time out on the subscriber), and /healthz must say so.
 * Runs its own redis-server so the shared one is never disturbed.
 */

jest.setTimeout(30000);

let redis: ChildProcess;
let port: number;
let gateway: Gateway;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port: chosen } = server.address() as net.AddressInfo;
      server.close(() => resolve(chosen));
    });
    server.on('error', reject);
  });
}

async function startRedis(): Promise<void> {
  port ||= await freePort();
  redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  for (let i = 0; i < 100; i += 1) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('redis-server did not start');
}

beforeAll(async () => {
  await startRedis();
  gateway = await startTestGateway({
    REDIS_URL: `redis://127.0.0.1:${port}`,
    USSD_HOP_BUDGET_MS: '4000',
    PURCHASE_API_TIMEOUT_MS: '2000',
  });
});

afterAll(async () => {
  // Closing needs Redis (BullMQ's connections wait for it): the test brings it back first.
  await gateway.close();
  redis.kill('SIGKILL');
});

it('answers a polite END when Redis is gone, and /healthz reports it', async () => {
  const phone = newPhone();
  expect((await hop(gateway, `down-${phone}`, phone, '')).end).toBe(false);

  redis.kill('SIGKILL');
  await new Promise((resolve) => redis.once('exit', resolve));

  const reply = await hop(gateway, `down-${phone}`, phone, '1');
  expect(reply.status).toBe(200);
  expect(reply.end).toBe(true);
  expect(reply.screen).toBe(loadLocales().t('en', 'error.serviceUnavailable'));

  const health = await fetch(`${gateway.url}/healthz`);
  expect(health.status).toBe(503);
  expect(await health.json()).toMatchObject({ status: 'degraded', redis: 'unreachable' });

  // Redis back (empty: it keeps nothing): the gateway serves new dialogues again.
  await startRedis();
  for (let i = 0; i < 100 && (await fetch(`${gateway.url}/healthz`)).status !== 200; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const again = await hop(gateway, `back-${phone}`, phone, '');
  expect(again.end).toBe(false);
  expect(again.screen).toContain(loadLocales().t('en', 'menu.title'));
});
