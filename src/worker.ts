/**
 * `npm run worker`: lifecycle jobs (confirm, reconcile) and SMS delivery on BullMQ, away from
 * the gateway process (run the gateway with GATEWAY_WORKERS=false to leave all jobs to
 * workers). Needs REDIS_URL and a real purchase service (the embedded sandbox lives in the
 * gateway). Resumes stuck purchases on start; finishes running jobs on SIGTERM.
 */
import { DurabilityError } from './redis/durability';
import { ConfigError, loadConfig } from './config';
import { startMoneyPath } from './gateway/money-path';
import { componentLogger, setLogLevel } from './observability/logger';
import { checkRedisReachable, PreflightError } from './redis/preflight';
import { gracefulStop } from './observability/shutdown';

const log = componentLogger('worker');

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
  log.info('purchase worker started', { prefix: config.redisPrefix });

  const stop = gracefulStop({
    name: 'purchase worker',
    close: () => moneyPath.close(),
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
