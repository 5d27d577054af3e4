import type { AgentSettings } from '../agents/settings';
import type { SmsMoSettings } from '../sms/mo/settings';
import type { SmsSettings } from '../messaging/settings';
import type { UssdSettings } from '../ussd/settings';
import type { LogFormat, LogLevel } from '../observability/logger';
import type { PaymentSetup } from '../payments/setup';
import type { ConsoleSettings } from '../operators/pepper';
import type { ReconciliationConfig } from '../reconciliation/settings';
import type { CareSettings } from '../purchases/care/settings';
import type { RecordsSettings } from '../records/settings';
import type { SandboxSettings } from '../sandbox/settings';
import type { SpendRules } from '../spend/rules';
import type { PurchaseApiSettings } from '../vas/settings';

/**
 * The gateway's one typed configuration, read from the environment and validated at start
 * (`loadConfig`). Each domain owns the type of its own section; this file only puts them together.
 */
export interface Config {
  port: number;
  /** `LOG_LEVEL`; unset: the process's own default (`info`, the CLI `error`), `error` under NODE_ENV=test. */
  logLevel: LogLevel | undefined;
  /** `LOG_FORMAT`, or pretty while stdout is a terminal in the embedded mode, else JSON. */
  logFormat: LogFormat | 'pretty-on-a-terminal';
  embeddedSandbox: boolean;
  /** The embedded sandbox's `SANDBOX_*` settings, parsed as `npm run sandbox` does; null with a real service. */
  sandbox: SandboxSettings | null;
  purchaseApi: PurchaseApiSettings;
  debitAccountId: number | undefined;
  redisUrl: string | undefined;
  redisPrefix: string;
  /** `REDIS_CLUSTER`: REDIS_URL is one node of a Redis Cluster. */
  redisCluster: boolean;
  /** The system of record: PostgreSQL (`DATABASE_URL`) or the embedded PGlite under `DATA_DIR`. */
  records: RecordsSettings & {
    /** `PII_RETENTION_DAYS`: after it, a settled purchase's token and numbers are masked in place. */
    piiRetentionMs: number | null;
    /** `TOKEN_RETENTION_DAYS`: after it, a settled purchase's token and the SMS texts are masked in place. */
    tokenRetentionMs: number;
  };
  /** Run purchase and SMS workers inside the gateway process (else only `npm run worker` does). */
  gatewayWorkers: boolean;
  /** `npm run worker` serves `GET /healthz` here (0: any free port). */
  workerHealthPort: number;
  ussd: UssdSettings;
  defaultRegion: string;
  defaultLanguage: string;
  /**
   * `sweepEveryMs`: how often workers look for purchases left without a job (0: only at start);
   * `delayNoticeMs` (`DELAY_NOTICE_S`): a purchase without an outcome this long gets one SMS (0: never);
   * `recheckMs`: how long a "no charge found" verdict is re-checked before a paid buyer is refunded;
   * `managedRetryAccountIds`/`managedRetryWindowMs`: debit accounts whose service retries failures itself.
   */
  reconcile: {
    deadlineMs: number;
    baseDelayMs: number;
    recheckMs: number;
    managedRetryAccountIds: number[];
    managedRetryWindowMs: number;
    sweepEveryMs: number;
    delayNoticeMs: number;
  };
  /** Who collects the buyer's money: a provider, the embedded payment sandbox, or none. */
  payments: PaymentSetup;
  /** SMS-MO purchase commands (see src/sms/README.md, Commands). */
  smsMo: SmsMoSettings;
  /** IANA zone of dates shown to subscribers (`TZ`, default Africa/Gaborone). */
  timeZone: string;
  /** Amount range per product and per-number daily limits, for every channel. */
  spend: SpendRules;
  sms: SmsSettings;
  /** Field agents: limits of an agent without overrides (minor units), the floats' currency. */
  agents: AgentSettings;
  adminToken: string | undefined;
  /** Customer care: labelled admin tokens, retention of resolved purchases, the balance watch. */
  care: CareSettings;
  /** The operators' console (`/console`, src/operators): the password pepper, idle time, lockout. */
  console: ConsoleSettings;
  /** Bearer token required on `GET /metrics`; undefined = open (scrape it on a private network). */
  metricsToken: string | undefined;
  /** The three-way reconciliation: nightly run, alerts, the late window (src/reconciliation). */
  reconciliation: ReconciliationConfig;
  devRoutes: boolean;
  /**
   * Production with a real purchase service, without `ALLOW_OPEN_CALLBACKS=true`: the gateway
   * refuses to start with a callback route open to anyone (`checkCallbacksGuarded`).
   */
  callbacksMustBeGuarded: boolean;
  /**
   * Address the gateway listens on: loopback in the embedded mode (a laptop demo is not served
   * to the network), every interface otherwise, unless HOST says.
   */
  host: string;
}

/** One clear line for the operator; `main` prints it and exits without a stack trace. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
