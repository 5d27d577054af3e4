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
import { RedisSessionStore } from './session/store';
import { Catalogue } from './vas';
import { componentLogger, setLogFormat, setLogLevel } from './observability/logger';
import { checkRedisReachable, PreflightError } from './redis/preflight';
import { gracefulStop } from './observability/shutdown';
import { sandboxUrl } from './sandbox/settings';
import type { PaymentProvider } from './payments/port';
import { paymentProviderFor } from './gateway/payments';

const log = componentLogger('worker');

/** Longest wait for Redis to answer a health check. */
const HEALTH_PING_MS = 1000;

/**
 * `GET /healthz` of the worker (for Docker's HEALTHCHECK and orchestrators): 200 while Redis
 * answers within a second, 503 otherwise. Port 0: any free port (tests), as for PORT.
 */
async function serveWorkerHealth(
  moneyPath: MoneyPath,
  port: number,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/healthz') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
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
  const moneyPath = await startMoneyPath(config, {
    purchaseServiceUrl,
    runWorkers: true,
    paymentProvider: paymentProviderOf(config),
  });
  // Inbound SMS commands are queued by the gateway and answered here too (GATEWAY_WORKERS=false).
  const sessions = new RedisSessionStore(moneyPath.redis!, config.redisPrefix);
  const sms = await startSmsChannel(config, moneyPath, new Catalogue(moneyPath.service), sessions, true);
  const health = await serveWorkerHealth(moneyPath, config.workerHealthPort);
  log.info('purchase worker started', {
    prefix: config.redisPrefix,
    purchaseService: config.embeddedSandbox ? `sandbox at ${purchaseServiceUrl}` : 'configured',
    health: `http://127.0.0.1:${health.port}/healthz`,
  });

  const stop = gracefulStop({
    name: 'purchase worker',
    close: async () => {
      await health.close();
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
