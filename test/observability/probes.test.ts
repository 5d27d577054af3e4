import net from 'node:net';
import type { Gateway } from '../../src/gateway/app';
import { migrationFiles } from '../../src/records/migrate';
import { openPostgres, type Database } from '../../src/records/database';
import { startTestGateway } from '../e2e/harness';
import { dropTestSchema, TEST_DATABASE_URL, testSchema } from '../support/database';
import { NodeProcess } from '../support/node-process';
import { freePort } from '../support/redis-server';
import { testRedis, type TestRedis } from '../support/redis';
import { TcpProxy } from '../support/tcp-proxy';
import { until } from '../support/wait';

/**
 * Liveness and readiness against real components: a gateway (and a worker process) whose
 * PostgreSQL is reached through a relay the test cuts, as a failover or a partition does, and
 * whose schema is put behind this build's migrations, as a restore from an old backup does.
 */

async function probe(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function scrape(url: string): Promise<string> {
  return (await fetch(url)).text();
}

describe('gateway /livez and /readyz', () => {
  let proxy: TcpProxy;
  let gateway: Gateway;
  let redis: TestRedis;
  let schema: string;
  let db: Database;
  beforeAll(async () => {
    proxy = TcpProxy.forUrl(TEST_DATABASE_URL);
    await proxy.start();
    redis = testRedis('probes');
    schema = testSchema('probes');
    gateway = await startTestGateway({
      DATABASE_URL: proxy.urlFor(TEST_DATABASE_URL),
      DATABASE_SCHEMA: schema,
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
    });
    db = await openPostgres({ url: TEST_DATABASE_URL, schema, max: 1 });
  });
  afterAll(async () => {
    await gateway?.close();
    await proxy.close();
    await db?.close();
    await dropTestSchema(schema);
    await redis.cleanup();
  });

  it('is ready with its records, schema and Redis, and says so on /metrics', async () => {
    expect(await probe(`${gateway.url}/readyz`)).toEqual({
      status: 200,
      body: {
        status: 'ready',
        role: 'gateway',
        checks: { records: 'ok', migrations: 'ok', redis: 'ok' },
      },
    });
    expect(await probe(`${gateway.url}/livez`)).toEqual({
      status: 200,
      body: { status: 'live', role: 'gateway' },
    });
    const metrics = await scrape(`${gateway.url}/metrics`);
    expect(metrics).toContain('readiness_check_ok{check="records"} 1');
    expect(metrics).toContain('readiness_check_ok{check="redis"} 1');
    expect(metrics).toMatch(/queue_jobs\{queue="purchases",state="waiting"\} 0/);
    expect(metrics).toMatch(/queue_oldest_waiting_seconds\{queue="sms-notify"\} 0/);
  });

  it('PostgreSQL unreachable: not ready (503 naming the records), still live, and ready again once it returns', async () => {
    proxy.cut();
    const notReady = await probe(`${gateway.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(notReady.body).toMatchObject({ status: 'not ready', role: 'gateway', checks: { redis: 'ok' } });
    const checks = notReady.body.checks as Record<string, string>;
    expect(checks.records).not.toBe('ok');
    expect(checks.migrations).not.toBe('ok');
    // No restart storm: liveness asks no dependency.
    expect((await probe(`${gateway.url}/livez`)).status).toBe(200);
    expect(await scrape(`${gateway.url}/metrics`)).toContain('readiness_check_ok{check="records"} 0');

    proxy.restore();
    await until(
      'the gateway ready again',
      async () => (await probe(`${gateway.url}/readyz`)).status === 200,
      {
        timeoutMs: 15_000,
        everyMs: 100,
      },
    );
  });

  it('migrations behind this build (a restore from an older backup): not ready, naming the migration', async () => {
    const newest = migrationFiles().at(-1)!;
    const row = await db.query<{ checksum: string }>(
      'SELECT checksum FROM schema_migrations WHERE name = $1',
      [newest.name],
    );
    await db.query('DELETE FROM schema_migrations WHERE name = $1', [newest.name]);
    try {
      const behind = await probe(`${gateway.url}/readyz`);
      expect(behind.status).toBe(503);
      expect(behind.body.checks).toEqual({
        records: 'ok',
        redis: 'ok',
        migrations: `1 migration(s) not applied: ${newest.name} (run npm run migrate)`,
      });
      expect((await probe(`${gateway.url}/livez`)).status).toBe(200);
    } finally {
      await db.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [
        newest.name,
        row.rows[0].checksum,
      ]);
    }
    expect((await probe(`${gateway.url}/readyz`)).status).toBe(200);
  });
});

describe('worker /livez, /readyz and /metrics (src/worker.ts as a process)', () => {
  let proxy: TcpProxy;
  let worker: NodeProcess;
  let redis: TestRedis;
  let schema: string;
  beforeAll(async () => {
    proxy = TcpProxy.forUrl(TEST_DATABASE_URL);
    await proxy.start();
    redis = testRedis('probes-worker');
    schema = testSchema('probes_worker');
    worker = new NodeProcess('src/worker.ts', {
      DATABASE_URL: proxy.urlFor(TEST_DATABASE_URL),
      DATABASE_SCHEMA: schema,
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      // Never called here: readiness does not ask the purchase service (its outage is every pod's).
      PURCHASE_API_BASE_URL: 'http://127.0.0.1:9',
      PURCHASE_API_CLIENT_ID: 'c',
      PURCHASE_API_CLIENT_SECRET: 'client-secret-value',
      PURCHASE_API_USERNAME: 'u',
      PURCHASE_API_PASSWORD: 'password-value',
      PURCHASE_API_ORG_CODE: 'o',
      ALLOW_OUTBOX_SMS: 'true',
      PURCHASE_SWEEP_INTERVAL_MS: '0',
    });
    await worker.start();
  }, 90_000);
  afterAll(async () => {
    await worker?.stop();
    await proxy.close();
    await dropTestSchema(schema);
    await redis.cleanup();
  });

  it('is ready, serves its metrics, and turns not ready (still live) while PostgreSQL is unreachable', async () => {
    expect(await probe(`${worker.url}/readyz`)).toEqual({
      status: 200,
      body: { status: 'ready', role: 'worker', checks: { records: 'ok', migrations: 'ok', redis: 'ok' } },
    });
    const metrics = await scrape(`${worker.url}/metrics`);
    expect(metrics).toContain('readiness_check_ok{check="migrations"} 1');
    expect(metrics).toMatch(/queue_jobs\{queue="sms-inbound",state="waiting"\} 0/);
    expect(metrics).toContain('# TYPE sms_undelivered gauge');

    proxy.cut();
    const notReady = await probe(`${worker.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect((notReady.body.checks as Record<string, string>).records).not.toBe('ok');
    expect(await probe(`${worker.url}/livez`)).toEqual({
      status: 200,
      body: { status: 'live', role: 'worker' },
    });
    proxy.restore();
    await until('the worker ready again', async () => (await probe(`${worker.url}/readyz`)).status === 200, {
      timeoutMs: 15_000,
      everyMs: 100,
    });
  });
});

describe('gateway /livez while it starts', () => {
  it('is live (starting) and not ready while its records are still being opened', async () => {
    // A PostgreSQL that accepts and never answers: the start waits on it (up to the pool's 5 s).
    const sockets = new Set<net.Socket>();
    const hung = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const starting = startTestGateway({
      PORT: String(port),
      DATABASE_URL: `postgres://127.0.0.1:${(hung.address() as net.AddressInfo).port}/test`,
      DATABASE_SCHEMA: testSchema('probes_start'),
    }).then(
      (gateway) => gateway,
      (error: unknown) => error as Error,
    );
    try {
      const live = await until('the starting gateway answering /livez', async () =>
        fetch(`${url}/livez`).then(
          async (res) => ({ status: res.status, body: (await res.json()) as unknown }),
          () => null,
        ),
      );
      expect(live).toEqual({ status: 200, body: { status: 'live', role: 'gateway', starting: true } });
      expect(await probe(`${url}/readyz`)).toEqual({ status: 503, body: { status: 'starting' } });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => hung.close(resolve));
    }
    // The start fails once its database gives up: nothing keeps listening.
    const outcome = await starting;
    expect(outcome).toBeInstanceOf(Error);
    await expect(fetch(`${url}/livez`)).rejects.toThrow();
  });
});
