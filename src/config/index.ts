import { DEFAULT_DAILY, parseAmountRanges, type SpendRules } from '../spend/rules';
import { z } from 'zod';
import { AllowList } from '../http/allow-list';
import type { RedisDurability } from '../redis/durability';
import { LOG_LEVELS, type LogLevel } from '../observability/logger';
import { parseDecimalAmount } from '../vas/money';
import { serviceCodeKey } from '../agents/service-codes';
import { sandboxSettings, SandboxSettingsError, type SandboxSettings } from '../sandbox/settings';
import { parseAdminCredentials, parseLowBalanceAlert, type CareSettings } from '../purchases/care/settings';

/**
 * The gateway's one typed configuration, read from the environment and validated at start.
 * With no environment at all it describes the embedded mode: sandbox purchase service,
 * in-memory sessions and queue, SMS outbox.
 */

/**
 * The `SMS_DRIVER` values: the one list of driver names. Each has one row in the driver table
 * (src/channels/sms/outbound/drivers.ts), which does not compile while the two differ.
 */
export const SMS_DRIVERS = ['outbox', 'africastalking', 'smpp', 'http'] as const;
/** One of {@link SMS_DRIVERS}. */
export type SmsDriverName = (typeof SMS_DRIVERS)[number];

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1' || v === 'yes'));

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

/** Digits only (`PORT=` empty is unset, never port 0; `1e3`, `0x10`, `80.5` are refused). */
const digits = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const int = (fallback: number, min: number, max: number) =>
  optionalString.pipe(digits(min, max).optional()).transform((v) => v ?? fallback);

const EnvSchema = z.object({
  NODE_ENV: optionalString,
  PORT: int(3000, 0, 65535),
  HOST: optionalString,
  LOG_LEVEL: z.enum(LOG_LEVELS).optional(),

  // Purchase service. Unset base URL = start the embedded sandbox and use its credentials.
  PURCHASE_API_BASE_URL: optionalString.pipe(z.url().optional()),
  PURCHASE_API_INTERFACE: z.enum(['v1', 'legacy']).optional().default('v1'),
  PURCHASE_API_CLIENT_ID: optionalString,
  PURCHASE_API_CLIENT_SECRET: optionalString,
  PURCHASE_API_USERNAME: optionalString,
  PURCHASE_API_PASSWORD: optionalString,
  PURCHASE_API_ORG_CODE: optionalString,
  PURCHASE_API_TIMEOUT_MS: int(6000, 100, 60000),
  PURCHASE_API_CONFIRM_TIMEOUT_MS: int(30000, 1000, 180000),
  DEBIT_ACCOUNT_ID: optionalString.pipe(digits(1, Number.MAX_SAFE_INTEGER).optional()),

  // Stores and jobs. Unset = in-memory sessions and an in-process queue.
  REDIS_URL: optionalString.pipe(
    z
      .string()
      .regex(/^rediss?:\/\/\S+$/, 'must look like redis://host:6379 (or rediss:// for TLS)')
      .optional(),
  ),
  REDIS_PREFIX: optionalString,
  // REDIS_URL names one node of a Redis Cluster; the others are discovered (src/redis/connection.ts).
  REDIS_CLUSTER: bool(false),
  // How the write that precedes a confirm survives a Redis crash (see src/redis/durability.ts).
  REDIS_DURABILITY: z.enum(['aof', 'wait', 'none']).optional(),
  REDIS_WAIT_REPLICAS: int(1, 1, 16),
  REDIS_WAIT_TIMEOUT_MS: int(1000, 10, 30000),
  GATEWAY_WORKERS: bool(true),
  WORKER_HEALTH_PORT: int(3001, 0, 65535),
  // Production refuses these unless allowed in so many words (see checkProduction).
  EMBEDDED_SANDBOX: bool(false),
  ALLOW_OUTBOX_SMS: bool(false),
  ALLOW_IN_MEMORY: bool(false),

  // USSD.
  USSD_CALLBACK_SECRET: optionalString,
  USSD_ALLOWED_IPS: optionalString,
  // Per-aggregator overrides (USSD_SCREEN_LIMIT_<NAME>, …) are read by ussdAggregatorSettings.
  USSD_GENERIC_MAPPING: optionalString,
  USSD_COMVIVA_USERID: optionalString,
  USSD_COMVIVA_PASSWORD: optionalString,
  TRUST_PROXY: optionalString,
  USSD_SCREEN_LIMIT: int(182, 60, 1000),
  USSD_HOP_BUDGET_MS: int(8000, 500, 30000),
  USSD_SESSION_TTL_S: int(300, 30, 86400),
  USSD_RESUME_WINDOW_S: int(120, 0, 3600),
  DEFAULT_REGION: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be an ISO 3166 region such as BW')
    .optional()
    .default('BW'),
  DEFAULT_LANGUAGE: z.string().optional().default('en'),

  // Purchase lifecycle.
  RECONCILE_DEADLINE_MS: int(30 * 60 * 1000, 1000, 7 * 24 * 3600 * 1000),
  RECONCILE_BASE_DELAY_MS: int(5000, 10, 600000),
  PURCHASE_SWEEP_INTERVAL_MS: int(60000, 0, 3600000),

  // SMS delivery.
  SMS_DRIVER: z.enum(SMS_DRIVERS).optional().default('outbox'),
  // SMS-MO purchase commands (src/channels/sms/): quotes, limits, the callbacks' protection.
  SMS_QUOTE_TTL_S: int(300, 30, 3600),
  SMS_RATE_PER_MIN: int(10, 1, 1000),
  SMS_REPLIES_PER_MIN: int(10, 1, 1000),
  SMS_SOURCE_CHANNEL: z.enum(['USSD', 'WEB', 'SMART_APP', 'BATCH', 'POS']).optional().default('USSD'),
  SMS_CALLBACK_SECRET: optionalString,
  SMS_ALLOWED_IPS: optionalString,
  TZ: optionalString,
  // Spending rules (src/spend/): amount range per product, per-number daily limits.
  SPEND_LIMITS: optionalString,
  SPEND_DAY_MAX_VALUE: optionalString,
  SPEND_DAY_MAX_COUNT: int(DEFAULT_DAILY.maxCount, 1, 100000),
  SMS_SENDER_ID: optionalString,
  AT_USERNAME: optionalString,
  AT_API_KEY: optionalString,
  AT_SMS_URL: optionalString.pipe(z.url().optional()),
  SMPP_HOST: optionalString,
  SMPP_PORT: int(2775, 1, 65535),
  SMPP_SYSTEM_ID: optionalString,
  SMPP_PASSWORD: optionalString,
  SMS_HTTP_URL: optionalString.pipe(z.url().optional()),
  SMS_HTTP_TOKEN: optionalString,
  // Outcome SMS retries: a token must survive a provider outage (defaults: 60 attempts over hours).
  SMS_RETRY_ATTEMPTS: int(60, 1, 10000),
  SMS_RETRY_BASE_MS: int(5000, 1, 3600000),
  SMS_RETRY_MAX_DELAY_MS: int(600000, 1, 86400000),
  SMS_RETRY_AFTER_MAX_MS: int(3600000, 0, 86400000),

  // Field agents (src/agents/): the limits of an agent without overrides, the floats' currency.
  AGENT_MAX_SALE: optionalString,
  AGENT_MAX_DAY_VALUE: optionalString,
  AGENT_MAX_DAY_COUNT: int(200, 1, 1_000_000),
  AGENT_SERVICE_CODES: optionalString,
  AGENT_CURRENCY: z
    .string()
    .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as BWP')
    .optional()
    .default('BWP'),

  // Operator API.
  ADMIN_TOKEN: optionalString,
  // Customer care (src/purchases/care): labelled admin tokens, retention, the balance watch.
  ADMIN_TOKENS: optionalString,
  PURCHASE_RETENTION_DAYS: int(90, 1, 3650),
  BALANCE_POLL_INTERVAL_MS: int(60000, 0, 86_400_000),
  LOW_BALANCE_ALERT: optionalString,
  METRICS_TOKEN: optionalString,
  DEV_ROUTES: z.enum(['true', 'false', '1', '0', 'yes', 'no']).optional(),
});

export type Env = z.infer<typeof EnvSchema>;

export interface PurchaseApiConfig {
  /** Undefined in embedded mode until the sandbox has started and reported its URL. */
  baseUrl: string | undefined;
  interface: 'v1' | 'legacy';
  clientId: string;
  clientSecret: string;
  username: string;
  password: string;
  orgCode: string;
  timeoutMs: number;
  confirmTimeoutMs: number;
  /** What v1 (which has no SMS_MO) is told an SMS-originated purchase came from (`SMS_SOURCE_CHANNEL`). */
  smsSourceChannel?: 'USSD' | 'WEB' | 'SMART_APP' | 'BATCH' | 'POS';
}

export interface Config {
  port: number;
  /** `LOG_LEVEL`; unset: the process's own default (`info`, the CLI `error`), `error` under NODE_ENV=test. */
  logLevel: LogLevel | undefined;
  embeddedSandbox: boolean;
  /** The embedded sandbox's `SANDBOX_*` settings, parsed as `npm run sandbox` does; null with a real service. */
  sandbox: SandboxSettings | null;
  purchaseApi: PurchaseApiConfig;
  debitAccountId: number | undefined;
  redisUrl: string | undefined;
  redisPrefix: string;
  /** `REDIS_CLUSTER`: REDIS_URL is one node of a Redis Cluster. */
  redisCluster: boolean;
  /**
   * What makes the `created → confirming` write durable before a confirm is sent: `aof`
   * (the server's AOF with fsync always, checked at start), `wait` (WAIT for replicas after it),
   * `none` (development; refused in production).
   */
  redisDurability: { mode: RedisDurability; replicas: number; timeoutMs: number };
  /** Run purchase and SMS workers inside the gateway process (else only `npm run worker` does). */
  gatewayWorkers: boolean;
  /** `npm run worker` serves `GET /healthz` here (0: any free port). */
  workerHealthPort: number;
  ussd: {
    callbackSecret: string | undefined;
    allowedIps: string[];
    /** express `trust proxy`: hop count, or comma-separated addresses/subnets of the load balancers. */
    trustProxy: number | string | undefined;
    screenLimit: number;
    hopBudgetMs: number;
    sessionTtlS: number;
    resumeWindowS: number;
    /** Per-aggregator overrides by adapter name (`USSD_SCREEN_LIMIT_HUBTEL=160`, …). */
    aggregators: Record<string, { callbackSecret?: string; allowedIps?: string[]; screenLimit?: number }>;
    /** `USSD_GENERIC_MAPPING` as given (parsed and checked by the gateway at start). */
    genericMapping: string | undefined;
    comviva: { userid: string; password: string } | undefined;
  };
  defaultRegion: string;
  defaultLanguage: string;
  /** `sweepEveryMs`: how often workers look for purchases left without a job (0: only at start). */
  reconcile: { deadlineMs: number; baseDelayMs: number; sweepEveryMs: number };
  /** SMS-MO purchase commands (see the README's "Buying by SMS"). */
  smsMo: {
    quoteTtlS: number;
    ratePerMin: number;
    repliesPerMin: number;
    /** Defaults to USSD_CALLBACK_SECRET. */
    callbackSecret: string | undefined;
    /** Defaults to USSD_ALLOWED_IPS. */
    allowedIps: string[];
  };
  /** IANA zone of dates shown to subscribers (`TZ`, default Africa/Gaborone). */
  timeZone: string;
  /** Amount range per product and per-number daily limits, for every channel. */
  spend: SpendRules;
  sms: {
    driver: SmsDriverName;
    senderId: string | undefined;
    africastalking: { baseUrl: string; username: string; apiKey: string } | undefined;
    smpp: { host: string; port: number; systemId: string; password: string } | undefined;
    http: { url: string; token: string | undefined } | undefined;
    retry: { attempts: number; baseDelayMs: number; maxDelayMs: number; maxRetryAfterMs: number };
  };
  /** Field agents: limits of an agent without overrides (minor units), the floats' currency. */
  agents: {
    maxSaleMinor: number;
    maxDayValueMinor: number;
    maxDayCount: number;
    currency: string;
    /** USSD codes (keyed: `384*9`) that serve the agent menu; empty: every code. */
    serviceCodes: string[];
  };
  adminToken: string | undefined;
  /** Customer care: labelled admin tokens, retention of resolved purchases, the balance watch. */
  care: CareSettings;
  /** Bearer token required on `GET /metrics`; undefined = open (scrape it on a private network). */
  metricsToken: string | undefined;
  devRoutes: boolean;
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

const SANDBOX_LOGIN = {
  clientId: 'sandbox-client',
  clientSecret: 'sandbox-secret',
  username: 'integration',
  password: 'sandbox-pass',
  orgCode: 'SANDBOX',
};

function required(env: Env, names: (keyof Env)[], why: string): void {
  const missing = names.filter((name) => env[name] === undefined);
  if (missing.length > 0) throw new ConfigError(`${missing.join(', ')} must be set ${why}`);
}

/**
 * `TRUST_PROXY`: a hop count, or the load balancers' addresses/ranges (and express's names
 * `loopback`, `linklocal`, `uniquelocal`). `true` is refused: it would trust an
 * `X-Forwarded-For` any client can write, and the allow-list would check a forged address.
 */
function parseTrustProxy(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const named = new Set(['loopback', 'linklocal', 'uniquelocal']);
  for (const entry of value.split(',').map((e) => e.trim())) {
    if (named.has(entry)) continue;
    try {
      new AllowList([entry]);
    } catch {
      throw new ConfigError(
        `TRUST_PROXY: "${entry}" is not a hop count, an address, a CIDR range or loopback/linklocal/uniquelocal` +
          (/^(true|yes|1)$/i.test(entry)
            ? ' (true would trust an X-Forwarded-For any client can forge)'
            : ''),
      );
    }
  }
  return value;
}

/** Customer care's settings from the environment; a bad value is a ConfigError. */
function careSettings(env: Env): CareSettings {
  try {
    return {
      adminCredentials: parseAdminCredentials(env.ADMIN_TOKEN, env.ADMIN_TOKENS, MIN_SECRET_LENGTH),
      retentionMs: env.PURCHASE_RETENTION_DAYS * 24 * 3600_000,
      balancePollMs: env.BALANCE_POLL_INTERVAL_MS,
      lowBalanceAlert: parseLowBalanceAlert(env.LOW_BALANCE_ALERT),
    };
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/** Shared secrets an attacker could guess are refused: at least this many characters. */
const MIN_SECRET_LENGTH = 16;

function checkSecrets(env: Env): void {
  for (const name of [
    'ADMIN_TOKEN',
    'METRICS_TOKEN',
    'USSD_CALLBACK_SECRET',
    'SMS_CALLBACK_SECRET',
  ] as const) {
    const value = env[name];
    if (value !== undefined && value.length < MIN_SECRET_LENGTH)
      throw new ConfigError(`${name} must be at least ${MIN_SECRET_LENGTH} characters`);
  }
}

/**
 * What production refuses unless allowed explicitly: the embedded sandbox (it sells nothing real
 * and serves tokens at /dev/sms), the in-memory stores (a restart loses every purchase and
 * token) and the SMS outbox (nobody reads it).
 */
function checkProduction(env: Env, embeddedSandbox: boolean): void {
  if (embeddedSandbox && !env.EMBEDDED_SANDBOX)
    throw new ConfigError(
      'NODE_ENV=production needs PURCHASE_API_BASE_URL (a real purchase service); set EMBEDDED_SANDBOX=true to run the sandbox anyway',
    );
  if (!embeddedSandbox && !env.REDIS_URL && !env.ALLOW_IN_MEMORY)
    throw new ConfigError(
      'NODE_ENV=production needs REDIS_URL: in memory, a restart loses every purchase and token (ALLOW_IN_MEMORY=true to accept that)',
    );
  if (!embeddedSandbox && env.SMS_DRIVER === 'outbox' && !env.ALLOW_OUTBOX_SMS)
    throw new ConfigError(
      'NODE_ENV=production needs an SMS_DRIVER: the outbox delivers no SMS (ALLOW_OUTBOX_SMS=true to accept that)',
    );
}

/** Whether the gateway runs as a production deployment (NODE_ENV=production). */
function isProduction(env: Env): boolean {
  return env.NODE_ENV === 'production';
}

/** Read and validate the configuration; throws ConfigError with one readable line. */
/**
 * `USSD_SCREEN_LIMIT_<NAME>`, `USSD_CALLBACK_SECRET_<NAME>`, `USSD_ALLOWED_IPS_<NAME>`: one
 * aggregator's own limit, secret and allow-list (the gateway checks the names are adapters).
 */
function ussdAggregatorSettings(
  source: NodeJS.ProcessEnv,
): Record<string, { callbackSecret?: string; allowedIps?: string[]; screenLimit?: number }> {
  const out: Record<string, { callbackSecret?: string; allowedIps?: string[]; screenLimit?: number }> = {};
  for (const [key, raw] of Object.entries(source)) {
    const match = /^USSD_(SCREEN_LIMIT|CALLBACK_SECRET|ALLOWED_IPS)_([A-Z0-9]+)$/.exec(key);
    if (!match || raw === undefined || raw.trim() === '') continue;
    const name = match[2].toLowerCase();
    const entry = (out[name] ??= {});
    if (match[1] === 'SCREEN_LIMIT') {
      const limit = Number(raw);
      if (!Number.isInteger(limit) || limit < 60 || limit > 1000)
        throw new ConfigError(`${key} must be a whole number of characters from 60 to 1000`);
      entry.screenLimit = limit;
    } else if (match[1] === 'CALLBACK_SECRET') {
      if (raw.trim().length < 16) throw new ConfigError(`${key} must be at least 16 characters`);
      entry.callbackSecret = raw.trim();
    } else entry.allowedIps = ipList(key, raw);
  }
  return out;
}

/** A comma-separated list of IPs/CIDRs, checked. */
function ipList(name: string, value: string | undefined): string[] {
  const list = (value ?? '')
    .split(',')
    .map((ip) => ip.trim())
    .filter(Boolean);
  try {
    new AllowList(list);
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`);
  }
  return list;
}

/** An agent limit in currency units (`2000`, `2000.50`) as minor units; `fallback` when unset. */
function agentAmount(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const amount = parseDecimalAmount(value);
  if (!amount.ok)
    throw new ConfigError(`${name} must be a positive amount with at most two decimals (e.g. 2000.00)`);
  return amount.minor;
}

/** AGENT_SERVICE_CODES (`*384*9#,*385#`) keyed as the dialogue compares them (src/agents/service-codes.ts). */
function agentServiceCodes(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value.split(',').map((code) => {
    const key = serviceCodeKey(code);
    if (!/^\d[\d*]*$/.test(key))
      throw new ConfigError(`AGENT_SERVICE_CODES: "${code.trim()}" is not a USSD code such as *384*9#`);
    return key;
  });
}

/** The embedded sandbox reads the `SANDBOX_*` variables exactly as `npm run sandbox` does. */
function embeddedSandboxSettings(source: NodeJS.ProcessEnv): SandboxSettings {
  try {
    return sandboxSettings(source);
  } catch (error) {
    if (error instanceof SandboxSettingsError)
      throw new ConfigError(`invalid configuration: ${error.variable}: ${error.problem}`);
    throw error;
  }
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`invalid configuration: ${issue.path.join('.')}: ${issue.message}`);
  }
  const env = parsed.data;
  const embeddedSandbox = env.PURCHASE_API_BASE_URL === undefined;
  if (!embeddedSandbox) {
    required(
      env,
      [
        'PURCHASE_API_CLIENT_ID',
        'PURCHASE_API_CLIENT_SECRET',
        'PURCHASE_API_USERNAME',
        'PURCHASE_API_PASSWORD',
        'PURCHASE_API_ORG_CODE',
      ],
      'when PURCHASE_API_BASE_URL is set',
    );
  }
  if (env.SMS_DRIVER === 'africastalking')
    required(env, ['AT_USERNAME', 'AT_API_KEY'], 'for SMS_DRIVER=africastalking');
  if (env.SMS_DRIVER === 'smpp')
    required(env, ['SMPP_HOST', 'SMPP_SYSTEM_ID', 'SMPP_PASSWORD'], 'for SMS_DRIVER=smpp');
  if (env.SMS_DRIVER === 'http') required(env, ['SMS_HTTP_URL'], 'for SMS_DRIVER=http');
  if (env.PURCHASE_API_CONFIRM_TIMEOUT_MS < env.PURCHASE_API_TIMEOUT_MS)
    throw new ConfigError('PURCHASE_API_CONFIRM_TIMEOUT_MS must not be shorter than PURCHASE_API_TIMEOUT_MS');
  if (env.PURCHASE_API_TIMEOUT_MS >= env.USSD_HOP_BUDGET_MS)
    throw new ConfigError(
      'PURCHASE_API_TIMEOUT_MS must be shorter than USSD_HOP_BUDGET_MS (a quote must fit in a hop)',
    );

  checkSecrets(env);
  if (isProduction(env)) checkProduction(env, embeddedSandbox);
  const durability = env.REDIS_DURABILITY ?? (isProduction(env) ? 'aof' : 'none');
  if (env.REDIS_URL && isProduction(env) && durability === 'none')
    throw new ConfigError(
      'REDIS_DURABILITY=none is refused in production: a Redis that loses the write before a confirm can ' +
        'confirm twice; use aof (appendonly yes, appendfsync always) or wait (a replica)',
    );

  if (env.REDIS_CLUSTER && durability === 'wait')
    throw new ConfigError(
      'REDIS_DURABILITY=wait is not supported with REDIS_CLUSTER (WAIT has no key to route by): use aof on every master',
    );

  const allowedIps = ipList('USSD_ALLOWED_IPS', env.USSD_ALLOWED_IPS);
  const smsAllowedIps =
    env.SMS_ALLOWED_IPS === undefined ? allowedIps : ipList('SMS_ALLOWED_IPS', env.SMS_ALLOWED_IPS);
  const timeZone = env.TZ ?? 'Africa/Gaborone';
  let amounts: SpendRules['amounts'];
  try {
    amounts = parseAmountRanges(env.SPEND_LIMITS);
  } catch (error) {
    throw new ConfigError(`SPEND_LIMITS: ${(error as Error).message}`);
  }
  const dayMax = env.SPEND_DAY_MAX_VALUE === undefined ? null : parseDecimalAmount(env.SPEND_DAY_MAX_VALUE);
  if (dayMax && !dayMax.ok)
    throw new ConfigError(
      'SPEND_DAY_MAX_VALUE must be a positive amount with at most two decimals (e.g. 10000)',
    );
  const dayMaxValue = dayMax?.ok ? dayMax.minor : DEFAULT_DAILY.maxValueMinor;
  try {
    new Intl.DateTimeFormat('en', { timeZone });
  } catch {
    throw new ConfigError(`TZ=${timeZone} is not an IANA time zone (e.g. Africa/Gaborone)`);
  }
  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  const devRoutes =
    env.DEV_ROUTES === undefined ? embeddedSandbox : ['true', '1', 'yes'].includes(env.DEV_ROUTES);
  // The outbox holds tokens: with a real purchase service it is never served without the admin token.
  if (devRoutes && !embeddedSandbox && !env.ADMIN_TOKEN)
    throw new ConfigError('DEV_ROUTES with a real purchase service needs ADMIN_TOKEN: /dev/sms holds tokens');

  const login = embeddedSandbox
    ? SANDBOX_LOGIN
    : {
        clientId: env.PURCHASE_API_CLIENT_ID!,
        clientSecret: env.PURCHASE_API_CLIENT_SECRET!,
        username: env.PURCHASE_API_USERNAME!,
        password: env.PURCHASE_API_PASSWORD!,
        orgCode: env.PURCHASE_API_ORG_CODE!,
      };

  return {
    port: env.PORT,
    logLevel: env.LOG_LEVEL ?? (env.NODE_ENV === 'test' ? 'error' : undefined),
    embeddedSandbox,
    sandbox: embeddedSandbox ? embeddedSandboxSettings(source) : null,
    purchaseApi: {
      baseUrl: env.PURCHASE_API_BASE_URL,
      interface: env.PURCHASE_API_INTERFACE,
      ...login,
      timeoutMs: env.PURCHASE_API_TIMEOUT_MS,
      confirmTimeoutMs: env.PURCHASE_API_CONFIRM_TIMEOUT_MS,
      smsSourceChannel: env.SMS_SOURCE_CHANNEL,
    },
    debitAccountId: env.DEBIT_ACCOUNT_ID,
    redisUrl: env.REDIS_URL,
    redisPrefix: env.REDIS_PREFIX ?? 'gw',
    redisCluster: env.REDIS_CLUSTER,
    redisDurability: {
      mode: durability,
      replicas: env.REDIS_WAIT_REPLICAS,
      timeoutMs: env.REDIS_WAIT_TIMEOUT_MS,
    },
    gatewayWorkers: env.GATEWAY_WORKERS,
    workerHealthPort: env.WORKER_HEALTH_PORT,
    ussd: {
      callbackSecret: env.USSD_CALLBACK_SECRET,
      allowedIps,
      aggregators: ussdAggregatorSettings(source),
      genericMapping: env.USSD_GENERIC_MAPPING,
      comviva:
        env.USSD_COMVIVA_USERID && env.USSD_COMVIVA_PASSWORD
          ? { userid: env.USSD_COMVIVA_USERID, password: env.USSD_COMVIVA_PASSWORD }
          : undefined,
      trustProxy,
      screenLimit: env.USSD_SCREEN_LIMIT,
      hopBudgetMs: env.USSD_HOP_BUDGET_MS,
      sessionTtlS: env.USSD_SESSION_TTL_S,
      resumeWindowS: env.USSD_RESUME_WINDOW_S,
    },
    defaultRegion: env.DEFAULT_REGION,
    defaultLanguage: env.DEFAULT_LANGUAGE,
    reconcile: {
      deadlineMs: env.RECONCILE_DEADLINE_MS,
      baseDelayMs: env.RECONCILE_BASE_DELAY_MS,
      sweepEveryMs: env.PURCHASE_SWEEP_INTERVAL_MS,
    },
    smsMo: {
      quoteTtlS: env.SMS_QUOTE_TTL_S,
      ratePerMin: env.SMS_RATE_PER_MIN,
      repliesPerMin: env.SMS_REPLIES_PER_MIN,
      callbackSecret: env.SMS_CALLBACK_SECRET ?? env.USSD_CALLBACK_SECRET,
      allowedIps: smsAllowedIps,
    },
    timeZone,
    spend: { amounts, daily: { maxValueMinor: dayMaxValue, maxCount: env.SPEND_DAY_MAX_COUNT }, timeZone },
    sms: {
      driver: env.SMS_DRIVER,
      senderId: env.SMS_SENDER_ID,
      africastalking:
        env.AT_USERNAME && env.AT_API_KEY
          ? {
              baseUrl: env.AT_SMS_URL ?? 'https://api.africastalking.com',
              username: env.AT_USERNAME,
              apiKey: env.AT_API_KEY,
            }
          : undefined,
      smpp:
        env.SMPP_HOST && env.SMPP_SYSTEM_ID && env.SMPP_PASSWORD
          ? {
              host: env.SMPP_HOST,
              port: env.SMPP_PORT,
              systemId: env.SMPP_SYSTEM_ID,
              password: env.SMPP_PASSWORD,
            }
          : undefined,
      http: env.SMS_HTTP_URL ? { url: env.SMS_HTTP_URL, token: env.SMS_HTTP_TOKEN } : undefined,
      retry: {
        attempts: env.SMS_RETRY_ATTEMPTS,
        baseDelayMs: env.SMS_RETRY_BASE_MS,
        maxDelayMs: env.SMS_RETRY_MAX_DELAY_MS,
        maxRetryAfterMs: env.SMS_RETRY_AFTER_MAX_MS,
      },
    },
    agents: {
      maxSaleMinor: agentAmount('AGENT_MAX_SALE', env.AGENT_MAX_SALE, 200_000),
      maxDayValueMinor: agentAmount('AGENT_MAX_DAY_VALUE', env.AGENT_MAX_DAY_VALUE, 2_000_000),
      maxDayCount: env.AGENT_MAX_DAY_COUNT,
      currency: env.AGENT_CURRENCY,
      serviceCodes: agentServiceCodes(env.AGENT_SERVICE_CODES),
    },
    adminToken: env.ADMIN_TOKEN,
    care: careSettings(env),
    metricsToken: env.METRICS_TOKEN,
    // The outbox holds tokens: served by default only in the embedded (demo) mode.
    devRoutes,
    host: env.HOST ?? (embeddedSandbox ? '127.0.0.1' : '0.0.0.0'),
  };
}
