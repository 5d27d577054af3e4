/**
 * `npm run worker`: lifecycle jobs (confirm, reconcile) and SMS delivery on BullMQ, away from
 * the gateway process (run the gateway with GATEWAY_WORKERS=false to leave all jobs to
 * workers). Needs REDIS_URL and a real purchase service (the embedded sandbox lives in the
 * gateway). Resumes stuck purchases on start; finishes running jobs on SIGTERM.
 */
import { DurabilityError } from './redis/durability';
import { ConfigError, loadConfig } from './config';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startMoneyPath, type MoneyPath } from './gateway/money-path';
import { startSmsChannel } from './gateway/sms-channel';
import { RedisSessionStore } from './session/store';
import { Catalogue } from './vas';
import { componentLogger, setLogLevel } from './observability/logger';
import { checkRedisReachable, PreflightError } from './redis/preflight';
import { gracefulStop } from './observability/shutdown';

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

async function main(): Promise<void> {
  const config = loadConfig();
  setLogLevel(config.logLevel ?? 'info');
  if (!config.redisUrl) throw new ConfigError('REDIS_URL must be set for npm run worker');
  if (!config.purchaseApi.baseUrl)
    throw new ConfigError(
      'PURCHASE_API_BASE_URL must be set for npm run worker (the sandbox runs in the gateway)',
    );
  await checkRedisReachable(config.redisUrl);
  const moneyPath = await startMoneyPath(config, {
    purchaseServiceUrl: config.purchaseApi.baseUrl,
    runWorkers: true,
  });
  // Inbound SMS commands are queued by the gateway and answered here too (GATEWAY_WORKERS=false).
  const sessions = new RedisSessionStore(moneyPath.redis!, config.redisPrefix);
  const sms = await startSmsChannel(config, moneyPath, new Catalogue(moneyPath.service), sessions, true);
  const health = await serveWorkerHealth(moneyPath, config.workerHealthPort);
  log.info('purchase worker started', {
    prefix: config.redisPrefix,
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
  if (error instanceof ConfigError || error instanceof PreflightError || error instanceof DurabilityError) {
    process.stderr.write(`worker: ${error.message}\n`);
  } else {
    log.error('purchase worker failed to start', { error });
  }
  process.exit(1);
});
