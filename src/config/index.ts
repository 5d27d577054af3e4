import { parseCommissionPolicy } from '../agents/commission';
import {
  DEFAULT_AGENT_LIMITS,
  parseDealerShare,
  parseServiceCodes,
  parseSummaryTime,
  type AgentSettings,
} from '../agents/settings';
import type { SmsMoSettings } from '../sms/mo/settings';
import type { SmsSettings } from '../messaging/settings';
import type { AggregatorSettings, UssdSettings } from '../ussd/settings';
import { TEST_PIN_SECRET } from '../agents/pin-secret';
import { TEST_PASSWORD_PEPPER } from '../operators/pepper';
import { AllowList } from '../http/allow-list';
import { parseAdminCredentials, parseLowBalanceAlert, type CareSettings } from '../purchases/care/settings';
import { TEST_TOKEN_KEY } from '../records/sealing';
import { IN_MEMORY } from '../records/settings';
import { sandboxSettings, SandboxSettingsError, type SandboxSettings } from '../sandbox/settings';
import { PaymentSettingsError } from '../payments/providers';
import { paymentSetupFromEnv, type PaymentSetup } from '../payments/setup';
import { DEFAULT_DAILY, parseAmountRanges, type SpendRules } from '../spend/rules';
import { parseDecimalAmount } from '../vas/money';
import type { PurchaseApiSettings } from '../vas/settings';
import {
  checkProduction,
  checkRecordsKeys,
  checkSecrets,
  isProduction,
  MIN_SECRET_LENGTH,
} from './production';
import { parseEnv, type Env } from './schema';
import { ConfigError, type Config } from './types';

/**
 * The assembly: the environment parsed by the schema (schema.ts), refused where production
 * must not run so (production.ts), then put together section by section from the domains' own
 * settings types and parsers. With no environment at all it describes the embedded mode:
 * sandbox purchase service, in-memory sessions and queue, SMS outbox.
 */

export { ConfigError, type Config } from './types';
export { EnvSchema, type Env } from './schema';
export { checkCallbacksGuarded, isProduction, type UssdRouteAuth } from './production';
export { SMS_DRIVERS, type SmsDriverName } from '../messaging/settings';
/** The `purchaseApi` section (its type lives with the client, src/vas/settings.ts). */
export type PurchaseApiConfig = PurchaseApiSettings;

/** Read and validate the configuration; throws ConfigError with one readable line. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = parseEnv(source);
  if (!parsed.ok) throw new ConfigError(`invalid configuration: ${parsed.problem}`);
  const env = parsed.env;
  const embeddedSandbox = env.PURCHASE_API_BASE_URL === undefined;
  checkCombinations(env, embeddedSandbox);
  checkSecrets(env);
  if (isProduction(env)) checkProduction(env, embeddedSandbox);
  checkRecordsKeys(env);
  const payments = paymentSetup(source, env, embeddedSandbox);

  const ussd = ussdSettings(env, source);
  const zone = timeZone(env.TZ);
  const devRoutes = env.DEV_ROUTES === undefined ? embeddedSandbox : flag(env.DEV_ROUTES);
  // The outbox holds tokens: with a real purchase service it is never served without the admin token.
  if (devRoutes && !embeddedSandbox && !env.ADMIN_TOKEN)
    throw new ConfigError('DEV_ROUTES with a real purchase service needs ADMIN_TOKEN: /dev/sms holds tokens');

  return {
    port: env.PORT,
    logLevel: env.LOG_LEVEL ?? (env.NODE_ENV === 'test' ? 'error' : undefined),
    // A person runs the embedded mode (npm start) in a terminal; a deployment's logs are collected.
    logFormat:
      env.LOG_FORMAT ??
      (embeddedSandbox && !isProduction(env) && env.NODE_ENV !== 'test' ? 'pretty-on-a-terminal' : 'json'),
    embeddedSandbox,
    sandbox: embeddedSandbox ? embeddedSandboxSettings(source) : null,
    purchaseApi: purchaseApiSettings(env, embeddedSandbox),
    debitAccountId: env.DEBIT_ACCOUNT_ID,
    redisUrl: env.REDIS_URL,
    redisPrefix: env.REDIS_PREFIX,
    redisCluster: env.REDIS_CLUSTER,
    records: {
      url: env.DATABASE_URL,
      schema: env.DATABASE_SCHEMA,
      preparedStatements: env.DATABASE_PREPARED_STATEMENTS,
      // A test's gateway never writes ./data unless told to.
      dataDir: env.DATA_DIR ?? (env.NODE_ENV === 'test' ? IN_MEMORY : './data'),
      piiRetentionMs: env.PII_RETENTION_DAYS === undefined ? null : env.PII_RETENTION_DAYS * 24 * 3600_000,
      tokenRetentionMs: env.TOKEN_RETENTION_DAYS * 24 * 3600_000,
      // Tests share one fixed key, so processes given the same records agree.
      tokenKey: env.TOKEN_ENCRYPTION_KEY ?? (env.NODE_ENV === 'test' ? TEST_TOKEN_KEY : null),
      previousTokenKeys: (env.TOKEN_ENCRYPTION_KEY_PREVIOUS ?? '')
        .split(',')
        .map((key) => key.trim())
        .filter((key) => key.length > 0),
    },
    gatewayWorkers: env.GATEWAY_WORKERS,
    workerHealthPort: env.WORKER_HEALTH_PORT,
    ussd,
    defaultRegion: env.DEFAULT_REGION,
    defaultLanguage: env.DEFAULT_LANGUAGE,
    reconcile: {
      deadlineMs: env.RECONCILE_DEADLINE_MS,
      baseDelayMs: env.RECONCILE_BASE_DELAY_MS,
      recheckMs: env.RECONCILE_RECHECK_MS,
      managedRetryAccountIds: env.MANAGED_RETRY_ACCOUNT_IDS ?? [],
      managedRetryWindowMs: env.MANAGED_RETRY_WINDOW_MS,
      sweepEveryMs: env.PURCHASE_SWEEP_INTERVAL_MS,
      delayNoticeMs: env.DELAY_NOTICE_S * 1000,
    },
    payments,
    smsMo: smsMoSettings(env, ussd),
    timeZone: zone,
    spend: spendRules(env, zone),
    sms: smsSettings(env),
    agents: agentSettings(env),
    adminToken: env.ADMIN_TOKEN,
    care: careSettings(env),
    console: {
      // Tests share one fixed pepper, so processes given the same records agree.
      passwordPepper: env.OPERATOR_PASSWORD_PEPPER ?? (env.NODE_ENV === 'test' ? TEST_PASSWORD_PEPPER : null),
      idleMs: env.CONSOLE_IDLE_MINUTES * 60_000,
      lockMs: env.CONSOLE_LOCKOUT_MINUTES * 60_000,
      // Production is served behind TLS: the session cookie is never sent over plain HTTP.
      secureCookies: isProduction(env),
    },
    metricsToken: env.METRICS_TOKEN,
    reconciliation: {
      nightlyAt: env.RECONCILIATION_NIGHTLY ? hourMinute(env.RECONCILIATION_NIGHTLY_AT) : null,
      alertWebhookUrl: env.RECONCILIATION_ALERT_WEBHOOK_URL,
      alertMsisdn: env.RECONCILIATION_ALERT_MSISDN?.replace(/^\+/, ''),
      lateWindowMs: env.RECONCILIATION_LATE_WINDOW_MIN * 60_000,
      pull: env.RECONCILIATION_PULL === undefined ? payments.embedded : flag(env.RECONCILIATION_PULL),
    },
    // The outbox holds tokens: served by default only in the embedded (demo) mode.
    devRoutes,
    callbacksMustBeGuarded: isProduction(env) && !embeddedSandbox && !env.ALLOW_OPEN_CALLBACKS,
    host: env.HOST ?? (embeddedSandbox ? '127.0.0.1' : '0.0.0.0'),
  };
}

/** `01:30` → {hour: 1, minute: 30} (the schema checked the shape). */
const hourMinute = (text: string) => ({ hour: Number(text.slice(0, 2)), minute: Number(text.slice(3, 5)) });

/** `true`, `1`, `yes` (the schema has refused anything but these and their negations). */
const flag = (value: string) => ['true', '1', 'yes'].includes(value);

function required(env: Env, names: (keyof Env)[], why: string): void {
  const missing = names.filter((name) => env[name] === undefined);
  if (missing.length > 0) throw new ConfigError(`${missing.join(', ')} must be set ${why}`);
}

/** Variables that only make sense together: credentials with their service, timeouts in order. */
function checkCombinations(env: Env, embeddedSandbox: boolean): void {
  if (!embeddedSandbox)
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
}

const SANDBOX_LOGIN = {
  clientId: 'sandbox-client',
  clientSecret: 'sandbox-secret',
  username: 'integration',
  password: 'sandbox-pass',
  orgCode: 'SANDBOX',
};

function purchaseApiSettings(env: Env, embeddedSandbox: boolean): PurchaseApiSettings {
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
    baseUrl: env.PURCHASE_API_BASE_URL,
    interface: env.PURCHASE_API_INTERFACE,
    ...login,
    timeoutMs: env.PURCHASE_API_TIMEOUT_MS,
    confirmTimeoutMs: env.PURCHASE_API_CONFIRM_TIMEOUT_MS,
    smsSourceChannel: env.SMS_SOURCE_CHANNEL,
  };
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

/** The payment provider, the embedded payment sandbox or none (src/payments/setup.ts). */
function paymentSetup(source: NodeJS.ProcessEnv, env: Env, embeddedSandbox: boolean): PaymentSetup {
  try {
    return paymentSetupFromEnv(source, {
      embeddedPurchaseSandbox: embeddedSandbox,
      sandboxPort: env.PAYMENT_SANDBOX_PORT,
    });
  } catch (error) {
    if (error instanceof PaymentSettingsError)
      throw new ConfigError(`invalid configuration: ${error.message}`);
    throw error;
  }
}

/** A domain parser's error (it names the variable) as a ConfigError. */
function parsing<T>(parse: () => T, prefix = ''): T {
  try {
    return parse();
  } catch (error) {
    throw new ConfigError(`${prefix}${(error as Error).message}`);
  }
}

function timeZone(zone: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    throw new ConfigError(`TZ=${zone} is not an IANA time zone (e.g. Africa/Gaborone)`);
  }
  return zone;
}

/** A comma-separated list of IPs/CIDRs, checked. */
function ipList(name: string, value: string | undefined): string[] {
  const list = (value ?? '')
    .split(',')
    .map((ip) => ip.trim())
    .filter(Boolean);
  parsing(() => new AllowList(list), `${name}: `);
  return list;
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

/**
 * `USSD_SCREEN_LIMIT_<NAME>`, `USSD_CALLBACK_SECRET_<NAME>`, `USSD_ALLOWED_IPS_<NAME>`: one
 * aggregator's own limit, secret and allow-list (the gateway checks the names are adapters).
 */
function ussdAggregatorSettings(source: NodeJS.ProcessEnv): Record<string, AggregatorSettings> {
  const out: Record<string, AggregatorSettings> = {};
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
      if (raw.trim().length < MIN_SECRET_LENGTH)
        throw new ConfigError(`${key} must be at least ${MIN_SECRET_LENGTH} characters`);
      entry.callbackSecret = raw.trim();
    } else entry.allowedIps = ipList(key, raw);
  }
  return out;
}

function ussdSettings(env: Env, source: NodeJS.ProcessEnv): UssdSettings {
  return {
    callbackSecret: env.USSD_CALLBACK_SECRET,
    allowedIps: ipList('USSD_ALLOWED_IPS', env.USSD_ALLOWED_IPS),
    aggregators: ussdAggregatorSettings(source),
    genericMapping: env.USSD_GENERIC_MAPPING,
    comviva:
      env.USSD_COMVIVA_USERID && env.USSD_COMVIVA_PASSWORD
        ? { userid: env.USSD_COMVIVA_USERID, password: env.USSD_COMVIVA_PASSWORD }
        : undefined,
    comvivaServiceCode: env.USSD_COMVIVA_SERVICE_CODE,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    screenLimit: env.USSD_SCREEN_LIMIT,
    hopBudgetMs: env.USSD_HOP_BUDGET_MS,
    sessionTtlS: env.USSD_SESSION_TTL_S,
    resumeWindowS: env.USSD_RESUME_WINDOW_S,
    machineStart: env.USSD_MACHINE_START,
    askTokenRecipient: env.USSD_ASK_TOKEN_RECIPIENT,
  };
}

function smsMoSettings(env: Env, ussd: UssdSettings): SmsMoSettings {
  return {
    quoteTtlS: env.SMS_QUOTE_TTL_S,
    ratePerMin: env.SMS_RATE_PER_MIN,
    repliesPerMin: env.SMS_REPLIES_PER_MIN,
    callbackSecret: env.SMS_CALLBACK_SECRET ?? env.USSD_CALLBACK_SECRET,
    allowedIps:
      env.SMS_ALLOWED_IPS === undefined ? ussd.allowedIps : ipList('SMS_ALLOWED_IPS', env.SMS_ALLOWED_IPS),
    // A code proves the sender reads the quote SMS; a spoofed sender cannot: off in production.
    yesWithoutCode:
      env.SMS_YES_WITHOUT_CODE === undefined ? !isProduction(env) : flag(env.SMS_YES_WITHOUT_CODE),
  };
}

function smsSettings(env: Env): SmsSettings {
  return {
    driver: env.SMS_DRIVER,
    senderId: env.SMS_SENDER_ID,
    africastalking:
      env.AT_USERNAME && env.AT_API_KEY
        ? { baseUrl: env.AT_SMS_URL, username: env.AT_USERNAME, apiKey: env.AT_API_KEY }
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
  };
}

/** An amount in currency units (`2000`, `2000.50`) as minor units; `fallback` when unset. */
function amount(name: string, value: string | undefined, fallback: number, example: string): number {
  if (value === undefined) return fallback;
  const parsed = parseDecimalAmount(value);
  if (!parsed.ok)
    throw new ConfigError(`${name} must be a positive amount with at most two decimals (e.g. ${example})`);
  return parsed.minor;
}

function spendRules(env: Env, timeZone: string): SpendRules {
  return {
    amounts: parsing(() => parseAmountRanges(env.SPEND_LIMITS), 'SPEND_LIMITS: '),
    daily: {
      maxValueMinor: amount(
        'SPEND_DAY_MAX_VALUE',
        env.SPEND_DAY_MAX_VALUE,
        DEFAULT_DAILY.maxValueMinor,
        '10000',
      ),
      maxCount: env.SPEND_DAY_MAX_COUNT,
    },
    timeZone,
  };
}

function agentSettings(env: Env): AgentSettings {
  const limits = DEFAULT_AGENT_LIMITS;
  return {
    maxSaleMinor: amount('AGENT_MAX_SALE', env.AGENT_MAX_SALE, limits.maxSaleMinor, '2000.00'),
    maxDayValueMinor: amount(
      'AGENT_MAX_DAY_VALUE',
      env.AGENT_MAX_DAY_VALUE,
      limits.maxDayValueMinor,
      '2000.00',
    ),
    maxDayCount: env.AGENT_MAX_DAY_COUNT,
    currency: env.AGENT_CURRENCY,
    serviceCodes: parsing(() => parseServiceCodes(env.AGENT_SERVICE_CODES)),
    commission: parsing(
      () => parseCommissionPolicy(env.AGENT_COMMISSION, env.AGENT_CURRENCY),
      'AGENT_COMMISSION: ',
    ),
    dealerShareBp: parsing(() => parseDealerShare(env.AGENT_DEALER_SHARE), 'AGENT_DEALER_SHARE: '),
    summaryTime: parsing(() => parseSummaryTime(env.AGENT_SUMMARY_TIME), 'AGENT_SUMMARY_TIME: '),
    dealerRegistration: env.DEALER_REGISTRATION,
    // Tests share one fixed secret, so processes given the same records agree.
    pinSecret: env.AGENT_PIN_SECRET ?? (env.NODE_ENV === 'test' ? TEST_PIN_SECRET : null),
  };
}

/** Customer care's settings from the environment; a bad value is a ConfigError. */
function careSettings(env: Env): CareSettings {
  return parsing(() => ({
    adminCredentials: parseAdminCredentials(env.ADMIN_TOKEN, env.ADMIN_TOKENS, MIN_SECRET_LENGTH),
    retentionMs: env.RECORD_RETENTION_DAYS * 24 * 3600_000,
    balancePollMs: env.BALANCE_POLL_INTERVAL_MS,
    lowBalanceAlert: parseLowBalanceAlert(env.LOW_BALANCE_ALERT),
    contact: env.CARE_PHONE ? { phone: env.CARE_PHONE, hours: env.CARE_HOURS ?? null } : null,
  }));
}
