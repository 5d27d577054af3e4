/**
 * `npm start`: the gateway with whatever the environment configures — by default the embedded
 * sandbox purchase service, in-memory sessions and queue, and the SMS outbox.
 */
import { describeRecords, RecordsError } from './records/open';
import { startGateway } from './gateway/app';
import { ConfigError, loadConfig } from './config';
import { componentLogger, setLogFormat, setLogLevel } from './observability/logger';
import { checkRedisReachable, PreflightError } from './redis/preflight';
import { gracefulStop } from './observability/shutdown';

const log = componentLogger('main');

async function main(): Promise<void> {
  const config = loadConfig();
  setLogLevel(config.logLevel ?? 'info');
  setLogFormat(config.logFormat);
  if (config.redisUrl) await checkRedisReachable(config.redisUrl);
  const gateway = await startGateway(config);

  // Handlers first: whoever reads "gateway started" may stop the process at once.
  const stop = gracefulStop({
    name: 'gateway',
    close: () => gateway.close(),
    // In-process workers may be inside a confirm: let it finish, never hang on a dead Redis.
    deadlineMs: config.purchaseApi.confirmTimeoutMs + 5000,
    log,
    exit: (code) => process.exit(code),
  });
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  log.info('gateway started', {
    url: gateway.url,
    purchaseService: config.embeddedSandbox
      ? `embedded sandbox at ${gateway.purchaseServiceUrl} (set PURCHASE_API_BASE_URL for a real service)`
      : `${config.purchaseApi.baseUrl} (${config.purchaseApi.interface})`,
    records: describeRecords(config.records),
    payments:
      config.payments.provider === 'none'
        ? "none: callers buy on the operator's wallet (set PAYMENT_PROVIDER to collect from them)"
        : gateway.paymentSandbox
          ? `${config.payments.provider} against the embedded payment sandbox at ${gateway.paymentSandbox.url} (test payers: ${gateway.paymentSandbox.url}/sandbox/payers; set PAYMENT_PROVIDER and its settings for a real provider)`
          : config.payments.provider,
    sessionsAndJobs: config.redisUrl
      ? 'redis'
      : 'in-memory sessions and in-process queue (set REDIS_URL for Redis)',
    // Never a URL that is off: the outbox is served only with DEV_ROUTES.
    sms:
      config.sms.driver !== 'outbox'
        ? config.sms.driver
        : config.devRoutes
          ? `outbox, read it at ${gateway.url}/dev/sms`
          : 'outbox (not served: set DEV_ROUTES=true to read it)',
    admin: `${gateway.url}/admin/purchases (a console login, an operator's token${config.care.adminCredentials.length ? ' or ADMIN_TOKEN' : '; set ADMIN_TOKEN for the CLI and automation'})`,
    console: `${gateway.url}/console`,
    simulator: config.devRoutes ? `${gateway.url}/simulator` : 'off (set DEV_ROUTES=true)',
  });
  if (config.payments.provider === 'none')
    log.warn(
      "PAYMENT_PROVIDER is none: nothing is collected from callers, they buy on the operator's wallet",
      {
        explicit: config.payments.explicit,
      },
    );
  if (config.devRoutes) log.info(`simulator: open ${gateway.url}/simulator in a browser to dial as a phone`);
  log.info(
    gateway.firstOperatorFile
      ? `console: open ${gateway.url}/console and log in as "admin" with the one-time password in ${gateway.firstOperatorFile} (you choose your own at once); more operators: npm run cli -- operator add --name NAME --role care (with the gateway stopped: the embedded database is one process's)`
      : `console: open ${gateway.url}/console; an operator: npm run cli -- operator add --name NAME --role admin|care|finance|agents|viewer (prints a one-time password${config.records.url ? '' : '; with the gateway stopped in the embedded mode'})`,
  );
  const key = config.ussd.callbackSecret ? '?key=$USSD_CALLBACK_SECRET' : '';
  log.info(
    `dial: curl -s ${gateway.url}/ussd/africastalking${key} -d sessionId=demo-$RANDOM -d phoneNumber=%2B26771234567 ` +
      `-d serviceCode=%2A384%2A1%23 -d text=   (then repeat with the same sessionId and text=1, text=1*01234567890, ...; see README)`,
  );
  const smsKey = config.smsMo.callbackSecret ? '?key=$SMS_CALLBACK_SECRET' : '';
  log.info(
    `sms: curl -s ${gateway.url}/sms/africastalking${smsKey} -d id=demo-$RANDOM -d from=%2B26771234567 -d to=12345 ` +
      `-d date=now --data-urlencode 'text=ELEC 01234567890 100'   (then text=YES <code> from the quote; see README)`,
  );
}

// A bug that escapes every handler: one JSON line for the operator, then the usual crash.
process.on('unhandledRejection', (reason: unknown) => {
  log.error('unhandled rejection: exiting', { error: reason instanceof Error ? reason : String(reason) });
  process.exit(1);
});

main().catch((error: unknown) => {
  // A misconfiguration is one clear line, never a stack trace.
  if (error instanceof ConfigError || error instanceof PreflightError || error instanceof RecordsError) {
    console.error(`gateway: ${error.message}`);
  } else if (error instanceof Error && 'code' in error && error.code === 'EADDRINUSE') {
    console.error(`gateway: port already in use (${error.message}); set PORT / SANDBOX_PORT`);
  } else {
    console.error(`gateway: failed to start: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exit(1);
});
