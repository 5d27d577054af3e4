/**
 * `npm run worker`: lifecycle jobs (confirm, reconcile) and SMS delivery on BullMQ, away from
 * the gateway process (run the gateway with GATEWAY_WORKERS=false to leave all jobs to
 * workers). Needs REDIS_URL. With PURCHASE_API_BASE_URL it uses that service and its five
 * credentials; without, the sandbox of a running `npm start` or `npm run sandbox` (at
 * SANDBOX_HOST:SANDBOX_PORT) with the sandbox's credentials, as the gateway does. Resumes stuck
 * purchases on start; finishes running jobs on SIGTERM.
 */
import { RecordsError } from './records/open';
import { ConfigError, loadConfig, type Config } from './config';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startMoneyPath, type MoneyPath } from './gateway/money-path';
import { startSmsChannel } from './gateway/sms-channel';
import { RedisSessionStore } from './ussd/engine/store';
import { Catalogue } from './vas';
import { componentLogger, setLogFormat, setLogLevel } from './observability/logger';
import { checkRedisReachable, PreflightError } from './redis/preflight';
import { gracefulStop } from './observability/shutdown';
import { sandboxUrl } from './sandbox/settings';
import type { PaymentProvider } from './payments/port';
import { paymentProviderFor } from './gateway/payments';
import express from 'express';
import { Metrics, metricsRouter } from './observability/metrics';
import { probesRouter, type Probes } from './observability/probes';
import { probesFor, watchQueues } from './gateway/readiness';
import { bearerMatches } from './http/secrets';

const log = componentLogger('worker');

/** Longest wait for Redis to answer a health check. */
const HEALTH_PING_MS = 1000;

/**
 * The worker's HTTP port (`WORKER_HEALTH_PORT`; 0: any free port, for tests): `GET /healthz` (for
 * Docker's HEALTHCHECK: 200 while Redis answers within a second, 503 otherwise), `GET /livez`
 * (200 while the process answers; asks no dependency), `GET /readyz` (200 when the records,
 * the schema and Redis are ready, else 503 naming what is not) and `GET /metrics` (bearer
 * `METRICS_TOKEN` if set): with `GATEWAY_WORKERS=false` the purchases, payments and SMS are
 * counted here, not in the gateway.
 */
async function serveWorkerHealth(
  moneyPath: MoneyPath,
  port: number,
  metricsRoutes: express.Express,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/healthz') {
      metricsRoutes(req, res);
      return;
    }
    const ping = moneyPath.redis
      ? Promise.race([
          moneyPath.redis.ping().then(
            () => true,
            () => false,
          ),
          new Promise<boolean>((resolve) => setTimeout(resolve, HEALTH_PING_MS, false).unref()),
        ])
      : Promise.resolve(false);
    void ping.then((ok) => {
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          status: ok ? 'ok' : 'degraded',
          redis: ok ? 'ok' : 'unreachable',
          role: 'worker',
        }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** `/livez`, `/readyz`, `/metrics` and a 404 for the rest, beside the worker's `/healthz`. */
function probeRoutes(probes: Probes, metrics: Metrics, metricsToken: string | undefined): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(probesRouter(probes));
  app.use(
    metricsRouter(metrics, {
      authorize: metricsToken === undefined ? undefined : (header) => bearerMatches(header, metricsToken),
    }),
  );
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found' });
  });
  return app;
}

/**
 * The configured service, else the sandbox the gateway embeds (or `npm run sandbox`), which the
 * config already signs in to with the sandbox's credentials. Production refuses the sandbox in
 * loadConfig unless EMBEDDED_SANDBOX=true, as for the gateway.
 */
function purchaseServiceOf(config: Config): string {
  if (config.purchaseApi.baseUrl) return config.purchaseApi.baseUrl;
  const url = config.sandbox ? sandboxUrl(config.sandbox) : null;
  if (!url)
    throw new ConfigError(
      'npm run worker needs PURCHASE_API_BASE_URL, or the sandbox of a running gateway at a known SANDBOX_PORT (not 0)',
    );
  return url;
}

/**
 * The configured payment provider, else the payment sandbox of a running gateway (at
 * PAYMENT_SANDBOX_PORT, calling back the gateway at PORT), as the gateway uses it.
 */
function paymentProviderOf(config: Config): PaymentProvider | null {
  const { payments } = config;
  if (!payments.embedded) return paymentProviderFor(payments, { gatewayUrl: '' });
  if (payments.sandboxPort === 0)
    throw new ConfigError(
      'npm run worker needs PAYMENT_PROVIDER with its settings, or the payment sandbox of a running gateway at a known PAYMENT_SANDBOX_PORT (not 0)',
    );
  return paymentProviderFor(payments, {
    sandboxUrl: `http://127.0.0.1:${payments.sandboxPort}`,
    gatewayUrl: `http://127.0.0.1:${config.port}`,
  });
}

/** The worker may start before the gateway: a sandbox that does not answer yet is a warning, not a refusal. */
async function warnIfSandboxSilent(url: string): Promise<void> {
  const answers = await fetch(`${url}/sandbox/scenarios`, { signal: AbortSignal.timeout(1000) }).then(
    (res) => res.ok,
    () => false,
  );
  if (!answers)
    log.warn(
      'no sandbox answers yet at the purchase service URL: purchases wait until npm start or npm run sandbox runs',
      {
        url,
      },
    );
}

async function main(): Promise<void> {
  const config = loadConfig();
  setLogLevel(config.logLevel ?? 'info');
  setLogFormat(config.logFormat);
  if (!config.redisUrl) throw new ConfigError('REDIS_URL must be set for npm run worker');
  // The embedded database belongs to one process (the gateway): a worker shares a server's.
  if (!config.records.url)
    throw new ConfigError(
      'DATABASE_URL must be set for npm run worker (the gateway and its workers share it)',
    );
  const purchaseServiceUrl = purchaseServiceOf(config);
  await checkRedisReachable(config.redisUrl);
  if (config.embeddedSandbox) await warnIfSandboxSilent(purchaseServiceUrl);
  const metrics = new Metrics();
  const moneyPath = await startMoneyPath(config, {
    purchaseServiceUrl,
    runWorkers: true,
    metrics,
    paymentProvider: paymentProviderOf(config),
  });
  // Inbound SMS commands are queued by the gateway and answered here too (GATEWAY_WORKERS=false).
  const sessions = new RedisSessionStore(moneyPath.redis!, config.redisPrefix);
  const sms = await startSmsChannel(
    config,
    moneyPath,
    new Catalogue(moneyPath.service),
    sessions,
    true,
    metrics,
  );
  const probes = probesFor('worker', moneyPath);
  metrics.watchReadiness(() => probes.report());
  const queueWatch = watchQueues(moneyPath.bull!, { payments: moneyPath.payments !== null });
  metrics.watchQueues(() => queueWatch.read());
  const health = await serveWorkerHealth(
    moneyPath,
    config.workerHealthPort,
    probeRoutes(probes, metrics, config.metricsToken),
  );
  log.info('purchase worker started', {
    prefix: config.redisPrefix,
    purchaseService: config.embeddedSandbox ? `sandbox at ${purchaseServiceUrl}` : 'configured',
    health: `http://127.0.0.1:${health.port}/healthz`,
  });

  const stop = gracefulStop({
    name: 'purchase worker',
    close: async () => {
      probes.drain();
      await health.close();
      await queueWatch.close();
      await sms.close();
      await sessions.close();
      await moneyPath.close();
    },
    // A running confirm may finish; a dead Redis must not keep the worker from stopping.
    deadlineMs: config.purchaseApi.confirmTimeoutMs + 5000,
    log,
    exit: (code) => process.exit(code),
  });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
// A bug that escapes every handler: one JSON line for the operator, then the usual crash.
process.on('unhandledRejection', (reason: unknown) => {
  log.error('unhandled rejection: exiting', { error: reason instanceof Error ? reason : String(reason) });
  process.exit(1);
});

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof PreflightError || error instanceof RecordsError) {
    process.stderr.write(`worker: ${error.message}\n`);
  } else {
    log.error('purchase worker failed to start', { error });
  }
  process.exit(1);
});
