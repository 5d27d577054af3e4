import { checkCallbacksGuarded, ConfigError, loadConfig } from './index';
import { DEFAULT_SMS_RETRY_POLICY } from '../messaging/queue/retry';

/** Every production environment below has its PIN pepper (refused without, see the agents' tests). */
const PIN_SECRET = 'config-test-agent-pin-secret-0123456789';
const TOKEN_KEY = 'config-test-token-encryption-key-0123456789';
const PEPPER = 'config-test-operator-password-pepper-0123';

/** A real purchase service: every credential set (the embedded sandbox is then not started). */
const REAL_SERVICE = {
  PURCHASE_API_BASE_URL: 'https://vas.example.com',
  PURCHASE_API_CLIENT_ID: 'c',
  PURCHASE_API_CLIENT_SECRET: 's',
  PURCHASE_API_USERNAME: 'u',
  PURCHASE_API_PASSWORD: 'p',
  PURCHASE_API_ORG_CODE: 'ORG',
};

describe('loadConfig', () => {
  it('describes the embedded mode when nothing is set', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.embeddedSandbox).toBe(true);
    expect(config.sandbox?.port).toBe(4010);
    expect(config.purchaseApi.clientId).toBe('sandbox-client');
    expect(config.purchaseApi.interface).toBe('v1');
    expect(config.redisUrl).toBeUndefined();
    expect(config.sms.driver).toBe('outbox');
    expect(config.ussd.screenLimit).toBe(182);
    expect(config.purchaseApi.timeoutMs).toBeLessThan(config.ussd.hopBudgetMs);
  });

  it('requires every credential when a real purchase service is configured', () => {
    expect(() => loadConfig({ PURCHASE_API_BASE_URL: 'https://vas.example.com' })).toThrow(
      new ConfigError(
        'PURCHASE_API_CLIENT_ID, PURCHASE_API_CLIENT_SECRET, PURCHASE_API_USERNAME, PURCHASE_API_PASSWORD, PURCHASE_API_ORG_CODE must be set when PURCHASE_API_BASE_URL is set',
      ),
    );
  });

  it('takes the configured credentials instead of the sandbox ones', () => {
    const config = loadConfig({
      ...REAL_SERVICE,
      PURCHASE_API_INTERFACE: 'legacy',
    });
    expect(config.embeddedSandbox).toBe(false);
    expect(config.purchaseApi).toMatchObject({
      baseUrl: 'https://vas.example.com',
      clientId: 'c',
      orgCode: 'ORG',
      interface: 'legacy',
    });
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ PURCHASE_API_INTERFACE: 'v2' }, /PURCHASE_API_INTERFACE/],
    [{ SMS_DRIVER: 'pigeon' }, /SMS_DRIVER/],
    [{ SMS_DRIVER: 'africastalking' }, /AT_USERNAME, AT_API_KEY must be set/],
    [{ SMS_DRIVER: 'smpp' }, /SMPP_HOST/],
    [{ DEFAULT_REGION: 'bw' }, /DEFAULT_REGION/],
    [
      { PURCHASE_API_TIMEOUT_MS: '9000', USSD_HOP_BUDGET_MS: '8000' },
      /must be shorter than USSD_HOP_BUDGET_MS/,
    ],
    [{ PURCHASE_API_BASE_URL: 'not a url' }, /PURCHASE_API_BASE_URL/],
  ])('refuses %j with one clear line', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('treats an empty number variable as unset (PORT= is 3000, never a random port)', () => {
    expect(loadConfig({ PORT: '' }).port).toBe(3000);
    expect(loadConfig({ PORT: '  ' }).port).toBe(3000);
    expect(loadConfig({ PORT: ' 8080 ' }).port).toBe(8080);
    expect(loadConfig({ DEBIT_ACCOUNT_ID: '' }).debitAccountId).toBeUndefined();
    expect(loadConfig({ DEBIT_ACCOUNT_ID: '42' }).debitAccountId).toBe(42);
  });

  it.each([
    [{ PORT: '1e3' }, 'invalid configuration: PORT: must be a whole number'],
    [{ PORT: '0x10' }, 'invalid configuration: PORT: must be a whole number'],
    [{ USSD_HOP_BUDGET_MS: '8000.5' }, 'invalid configuration: USSD_HOP_BUDGET_MS: must be a whole number'],
    [{ DEBIT_ACCOUNT_ID: '0' }, /DEBIT_ACCOUNT_ID/],
    [{ REDIS_URL: '127.0.0.1:6379' }, 'REDIS_URL: must look like redis://host:6379 (or rediss:// for TLS)'],
  ])('refuses the number or URL %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('reads the managed-retry debit accounts: none by default (self-managed), a list, a bad one refused by name', () => {
    expect(loadConfig({}).reconcile).toMatchObject({
      managedRetryAccountIds: [],
      managedRetryWindowMs: 1_800_000,
    });
    expect(
      loadConfig({ MANAGED_RETRY_ACCOUNT_IDS: ' 1004, 1007 ', MANAGED_RETRY_WINDOW_MS: '60000' }).reconcile,
    ).toMatchObject({ managedRetryAccountIds: [1004, 1007], managedRetryWindowMs: 60_000 });
    expect(loadConfig({ MANAGED_RETRY_ACCOUNT_IDS: '' }).reconcile.managedRetryAccountIds).toEqual([]);
    for (const bad of ['1004;1007', 'abc', '1004,'])
      expect(() => loadConfig({ MANAGED_RETRY_ACCOUNT_IDS: bad })).toThrow(
        'invalid configuration: MANAGED_RETRY_ACCOUNT_IDS: must be account ids separated by commas',
      );
  });

  it('accepts redis:// and rediss:// URLs and never echoes one in an error', () => {
    expect(loadConfig({ REDIS_URL: 'rediss://:pw@redis.internal:6380/1' }).redisUrl).toBe(
      'rediss://:pw@redis.internal:6380/1',
    );
    expect(() => loadConfig({ REDIS_URL: 'http://:s3cret@host' })).toThrow(ConfigError);
    expect(() => loadConfig({ REDIS_URL: 'http://:s3cret@host' })).not.toThrow(/s3cret/);
  });

  it('splits the USSD IP allow-list', () => {
    expect(loadConfig({ USSD_ALLOWED_IPS: '10.0.0.1, 10.0.0.2,' }).ussd.allowedIps).toEqual([
      '10.0.0.1',
      '10.0.0.2',
    ]);
  });

  it('accepts CIDR ranges in the allow-list and refuses garbage with the entry named', () => {
    expect(loadConfig({ USSD_ALLOWED_IPS: '196.201.214.0/24,2001:db8::/32' }).ussd.allowedIps).toHaveLength(
      2,
    );
    expect(() => loadConfig({ USSD_ALLOWED_IPS: '10.0.0.1, aggregator.example' })).toThrow(
      'USSD_ALLOWED_IPS: "aggregator.example" is not an IP address or CIDR range',
    );
    expect(() => loadConfig({ USSD_ALLOWED_IPS: '10.0.0.0/40' })).toThrow(ConfigError);
  });

  it.each([
    ['1', 1],
    ['loopback', 'loopback'],
    ['10.0.0.0/8, 192.168.1.10', '10.0.0.0/8, 192.168.1.10'],
  ])('accepts TRUST_PROXY=%s', (value, parsed) => {
    expect(loadConfig({ TRUST_PROXY: value }).ussd.trustProxy).toEqual(parsed);
  });

  it('refuses TRUST_PROXY=true (any client could forge X-Forwarded-For) and garbage, at start', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY: "true" .*forge/);
    expect(() => loadConfig({ TRUST_PROXY: 'proxy.internal' })).toThrow(ConfigError);
  });

  it('reads the SMS retry policy, defaulting to hours of attempts', () => {
    expect(loadConfig({}).sms.retry).toEqual(DEFAULT_SMS_RETRY_POLICY);
    expect(loadConfig({ SMS_RETRY_ATTEMPTS: '5', SMS_RETRY_BASE_MS: '20' }).sms.retry).toMatchObject({
      attempts: 5,
      baseDelayMs: 20,
    });
    expect(() => loadConfig({ SMS_RETRY_ATTEMPTS: '0' })).toThrow(/SMS_RETRY_ATTEMPTS/);
    expect(() => loadConfig({ SMS_RETRY_MAX_DELAY_MS: '1.5' })).toThrow(/SMS_RETRY_MAX_DELAY_MS/);
  });

  it.each(['ADMIN_TOKEN', 'METRICS_TOKEN', 'USSD_CALLBACK_SECRET', 'SMS_CALLBACK_SECRET'])(
    '%s shorter than 16 characters is refused, in every mode (#12 item 1)',
    (name) => {
      expect(() => loadConfig({ [name]: 'x'.repeat(15) })).toThrow(`${name} must be at least 16 characters`);
      expect(() => loadConfig({ [name]: 'x'.repeat(16) })).not.toThrow();
    },
  );

  it('serves the SMS outbox (which holds tokens) by default only in the embedded mode', () => {
    const real = REAL_SERVICE;
    expect(loadConfig({}).devRoutes).toBe(true);
    expect(loadConfig(real).devRoutes).toBe(false);
    expect(() => loadConfig({ ...real, DEV_ROUTES: 'true' })).toThrow(
      'DEV_ROUTES with a real purchase service needs ADMIN_TOKEN: /dev/sms holds tokens',
    );
    expect(loadConfig({ ...real, DEV_ROUTES: 'true', ADMIN_TOKEN: 'a'.repeat(24) }).devRoutes).toBe(true);
    // The embedded mode listens on loopback; a real deployment on every interface, unless HOST says.
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig(real).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '10.1.2.3' }).host).toBe('10.1.2.3');
    expect(loadConfig({ DEV_ROUTES: 'false' }).devRoutes).toBe(false);
  });

  it.each([
    [undefined, undefined],
    ['1', 1],
    ['10.0.0.0/8, 192.168.1.1', '10.0.0.0/8, 192.168.1.1'],
  ])('reads TRUST_PROXY %j as %j', (value, expected) => {
    expect(loadConfig(value === undefined ? {} : { TRUST_PROXY: value }).ussd.trustProxy).toEqual(expected);
  });
});

describe('production callbacks (#27 item 3)', () => {
  const production = {
    NODE_ENV: 'production',
    AGENT_PIN_SECRET: PIN_SECRET,
    TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
    OPERATOR_PASSWORD_PEPPER: PEPPER,
    ...REAL_SERVICE,
    DATABASE_URL: 'postgres://gateway@db.internal:5432/gateway',
    ALLOW_IN_MEMORY: 'true',
    ALLOW_OUTBOX_SMS: 'true',
    PAYMENT_PROVIDER: 'none',
  };
  const SECRET = 'x'.repeat(20);
  const routes = [
    { name: 'africastalking' },
    { name: 'hubtel' },
    { name: 'comviva', checksCredentials: true },
  ];
  const check = (env: Record<string, string>) => () => checkCallbacksGuarded(loadConfig(env), routes);

  it('refuses a callback open to anyone, in one line naming what is open and the opt-out', () => {
    expect(check(production)).toThrow(
      new ConfigError(
        'NODE_ENV=production needs a secret or an allow-list on every callback that can buy or change an agent: ' +
          'open are the USSD callbacks of africastalking, hubtel (set USSD_CALLBACK_SECRET or USSD_ALLOWED_IPS) and ' +
          'the inbound SMS and delivery report routes (set SMS_CALLBACK_SECRET or SMS_ALLOWED_IPS); ' +
          'ALLOW_OPEN_CALLBACKS=true only if nothing but a private link reaches the port',
      ),
    );
    // The SMS routes guarded, the USSD ones not (and the other way round).
    expect(check({ ...production, SMS_CALLBACK_SECRET: SECRET })).toThrow(/open are the USSD callbacks of/);
    expect(check({ ...production, SMS_ALLOWED_IPS: '10.0.0.0/8' })).toThrow(/open are the USSD callbacks of/);
    expect(
      check({ ...production, USSD_CALLBACK_SECRET_HUBTEL: SECRET, SMS_CALLBACK_SECRET: SECRET }),
    ).toThrow(/open are the USSD callbacks of africastalking \(/);
  });

  it('accepts a secret or an allow-list on every route, the opt-out, and anything outside production', () => {
    // The SMS routes default to the USSD secret and allow-list.
    expect(check({ ...production, USSD_CALLBACK_SECRET: SECRET })).not.toThrow();
    expect(check({ ...production, USSD_ALLOWED_IPS: '196.201.214.0/24' })).not.toThrow();
    expect(
      check({
        ...production,
        USSD_CALLBACK_SECRET_AFRICASTALKING: SECRET,
        USSD_ALLOWED_IPS_HUBTEL: '10.1.1.1',
        SMS_CALLBACK_SECRET: SECRET,
      }),
    ).not.toThrow();
    expect(check({ ...production, ALLOW_OPEN_CALLBACKS: 'true' })).not.toThrow();
    // The embedded sandbox sells nothing real; without NODE_ENV=production nothing is refused.
    expect(
      check({
        NODE_ENV: 'production',
        AGENT_PIN_SECRET: PIN_SECRET,
        TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
        OPERATOR_PASSWORD_PEPPER: PEPPER,
        EMBEDDED_SANDBOX: 'true',
        PAYMENT_PROVIDER: 'none',
      }),
    ).not.toThrow();
    expect(check({ ...production, NODE_ENV: 'development' })).not.toThrow();
  });

  it('a bare YES buys by default everywhere but production; SMS_YES_WITHOUT_CODE says otherwise', () => {
    expect(loadConfig({}).smsMo.yesWithoutCode).toBe(true);
    expect(loadConfig(production).smsMo.yesWithoutCode).toBe(false);
    expect(loadConfig({ ...production, SMS_YES_WITHOUT_CODE: 'true' }).smsMo.yesWithoutCode).toBe(true);
    expect(loadConfig({ SMS_YES_WITHOUT_CODE: 'no' }).smsMo.yesWithoutCode).toBe(false);
    expect(() => loadConfig({ SMS_YES_WITHOUT_CODE: 'maybe' })).toThrow(/SMS_YES_WITHOUT_CODE/);
  });
});

describe("the operators' password pepper", () => {
  it('production needs OPERATOR_PASSWORD_PEPPER, of 32 characters at least; tests have a fixed one', () => {
    const production = {
      NODE_ENV: 'production',
      EMBEDDED_SANDBOX: 'true',
      PAYMENT_PROVIDER: 'none',
      AGENT_PIN_SECRET: PIN_SECRET,
      TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
    };
    expect(() => loadConfig(production)).toThrow(
      new ConfigError(
        "NODE_ENV=production needs OPERATOR_PASSWORD_PEPPER (32+ random characters, kept outside the database): operators' password hashes are peppered with it",
      ),
    );
    expect(() => loadConfig({ ...production, OPERATOR_PASSWORD_PEPPER: 'x'.repeat(31) })).toThrow(
      /OPERATOR_PASSWORD_PEPPER: must be at least 32 characters/,
    );
    const config = loadConfig({ ...production, OPERATOR_PASSWORD_PEPPER: PEPPER });
    expect(config.console).toEqual({
      passwordPepper: PEPPER,
      idleMs: 30 * 60_000,
      lockMs: 15 * 60_000,
      secureCookies: true,
    });
    expect(loadConfig({}).console.passwordPepper).toBeNull();
    expect(loadConfig({ NODE_ENV: 'test' }).console.passwordPepper).toEqual(expect.any(String));
  });
});

describe('the PIN secret', () => {
  it('production needs AGENT_PIN_SECRET, of 32 characters at least; tests have a fixed one', () => {
    const production = { NODE_ENV: 'production', EMBEDDED_SANDBOX: 'true', PAYMENT_PROVIDER: 'none' };
    expect(() => loadConfig(production)).toThrow(
      new ConfigError(
        "NODE_ENV=production needs AGENT_PIN_SECRET (32+ random characters, kept outside the database): agents' PIN hashes are peppered with it",
      ),
    );
    expect(() => loadConfig({ ...production, AGENT_PIN_SECRET: 'x'.repeat(31) })).toThrow(
      /AGENT_PIN_SECRET: must be at least 32 characters/,
    );
    expect(
      loadConfig({
        ...production,
        AGENT_PIN_SECRET: PIN_SECRET,
        TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
        OPERATOR_PASSWORD_PEPPER: PEPPER,
      }).agents.pinSecret,
    ).toBe(PIN_SECRET);
    // Elsewhere unset: the embedded mode keeps its own beside the records (src/agents/pin-secret.ts).
    expect(loadConfig({}).agents.pinSecret).toBeNull();
    expect(loadConfig({ NODE_ENV: 'test' }).agents.pinSecret).toEqual(expect.any(String));
  });
});

describe('the keys of records in PostgreSQL (#36 items 2 and 3)', () => {
  const shared = { DATABASE_URL: 'postgres://gw@db:5432/gw' };

  it('DATABASE_URL needs AGENT_PIN_SECRET and TOKEN_ENCRYPTION_KEY in every mode but tests, one line each', () => {
    for (const mode of [{}, { NODE_ENV: 'development' }, { NODE_ENV: 'staging' }]) {
      expect(() => loadConfig({ ...shared, ...mode })).toThrow(
        new ConfigError(
          "DATABASE_URL needs AGENT_PIN_SECRET (32+ random characters, kept outside the database, the same in every gateway, worker and CLI): agents' PIN hashes are peppered with it",
        ),
      );
      expect(() => loadConfig({ ...shared, ...mode, AGENT_PIN_SECRET: PIN_SECRET })).toThrow(
        new ConfigError(
          'DATABASE_URL needs TOKEN_ENCRYPTION_KEY (32+ random characters, kept outside the database, the same in every gateway, worker and CLI): tokens and SMS texts are sealed with it at rest',
        ),
      );
    }
    const config = loadConfig({ ...shared, AGENT_PIN_SECRET: PIN_SECRET, TOKEN_ENCRYPTION_KEY: TOKEN_KEY });
    expect(config.agents.pinSecret).toBe(PIN_SECRET);
    expect(config.records.tokenKey).toBe(TOKEN_KEY);
    expect(() =>
      loadConfig({ ...shared, AGENT_PIN_SECRET: PIN_SECRET, TOKEN_ENCRYPTION_KEY: 'k'.repeat(31) }),
    ).toThrow(/TOKEN_ENCRYPTION_KEY: must be at least 32 characters/);
    // Tests keep their fixed keys; the embedded mode its own files under DATA_DIR.
    expect(loadConfig({ ...shared, NODE_ENV: 'test' }).records.tokenKey).toEqual(expect.any(String));
    expect(loadConfig({}).records.tokenKey).toBeNull();
  });

  it('production needs TOKEN_ENCRYPTION_KEY; previous keys are a list; tokens are masked after 90 days', () => {
    const production = {
      NODE_ENV: 'production',
      EMBEDDED_SANDBOX: 'true',
      PAYMENT_PROVIDER: 'none',
      AGENT_PIN_SECRET: PIN_SECRET,
    };
    expect(() => loadConfig(production)).toThrow(
      new ConfigError(
        'NODE_ENV=production needs TOKEN_ENCRYPTION_KEY (32+ random characters, kept outside the database): tokens and SMS texts are sealed with it at rest',
      ),
    );
    const config = loadConfig({
      ...production,
      TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
      TOKEN_ENCRYPTION_KEY_PREVIOUS: ' old-key-one , old-key-two ',
      OPERATOR_PASSWORD_PEPPER: PEPPER,
    });
    expect(config.records.previousTokenKeys).toEqual(['old-key-one', 'old-key-two']);
    expect(config.records.tokenRetentionMs).toBe(90 * 24 * 3600_000);
    expect(loadConfig({ TOKEN_RETENTION_DAYS: '7' }).records.tokenRetentionMs).toBe(7 * 24 * 3600_000);
  });
});

describe('the system of record (#29)', () => {
  const real = {
    ...REAL_SERVICE,
    REDIS_URL: 'redis://redis:6379',
    SMS_DRIVER: 'africastalking',
    AT_USERNAME: 'u',
    AT_API_KEY: 'k',
  };

  it('keeps the records in the embedded database under ./data by default, in memory under NODE_ENV=test', () => {
    expect(loadConfig({}).records).toEqual({
      url: undefined,
      schema: undefined,
      preparedStatements: true,
      dataDir: './data',
      piiRetentionMs: null,
      tokenRetentionMs: 90 * 24 * 3600_000,
      tokenKey: null,
      previousTokenKeys: [],
    });
    expect(loadConfig({ NODE_ENV: 'test' }).records.dataDir).toBe('memory://');
    expect(loadConfig({ NODE_ENV: 'test', DATA_DIR: '/var/lib/gw' }).records.dataDir).toBe('/var/lib/gw');
    expect(loadConfig({ DATA_DIR: ' ' }).records.dataDir).toBe('./data');
  });

  it('reads DATABASE_URL and DATABASE_SCHEMA', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgresql://gw@db:5432/gw',
      DATABASE_SCHEMA: 'gateway_2',
      AGENT_PIN_SECRET: PIN_SECRET,
      TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
    });
    expect(config.records).toMatchObject({ url: 'postgresql://gw@db:5432/gw', schema: 'gateway_2' });
  });

  it('prepares statements unless DATABASE_PREPARED_STATEMENTS says not to (a pooler that cannot keep them)', () => {
    const base = {
      DATABASE_URL: 'postgresql://gw@db:5432/gw',
      AGENT_PIN_SECRET: PIN_SECRET,
      TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
    };
    expect(loadConfig(base).records.preparedStatements).toBe(true);
    expect(loadConfig({ ...base, DATABASE_PREPARED_STATEMENTS: 'false' }).records.preparedStatements).toBe(
      false,
    );
    expect(() => loadConfig({ ...base, DATABASE_PREPARED_STATEMENTS: 'off' })).toThrow(
      'DATABASE_PREPARED_STATEMENTS',
    );
  });

  it.each([
    [{ DATABASE_URL: 'mysql://db/gw' }, 'DATABASE_URL: must look like postgres://user@host:5432/database'],
    [{ DATABASE_URL: 'db.internal:5432' }, 'DATABASE_URL: must look like postgres://'],
    [{ DATABASE_SCHEMA: 'Gateway' }, 'DATABASE_SCHEMA: must be a lower-case SQL name such as gateway'],
    [{ DATABASE_SCHEMA: 'gw; DROP TABLE purchases' }, 'DATABASE_SCHEMA: must be a lower-case SQL name'],
    [{ DATABASE_SCHEMA: '1st' }, 'DATABASE_SCHEMA'],
    [{ RECORD_RETENTION_DAYS: '0' }, 'RECORD_RETENTION_DAYS'],
    [{ RECORD_RETENTION_DAYS: '36501' }, 'RECORD_RETENTION_DAYS'],
    [{ RECORD_RETENTION_DAYS: '1.5' }, 'RECORD_RETENTION_DAYS: must be a whole number'],
  ])('refuses %j with one clear line', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('never echoes a DATABASE_URL (its password) in an error', () => {
    expect(() => loadConfig({ DATABASE_URL: 'http://gw:s3cret@db/gw' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: 'http://gw:s3cret@db/gw' })).not.toThrow(/s3cret/);
  });

  it('keeps records five years by default: RECORD_RETENTION_DAYS', () => {
    const DAY = 24 * 3600_000;
    expect(loadConfig({}).care.retentionMs).toBe(1825 * DAY);
    expect(loadConfig({ RECORD_RETENTION_DAYS: '3650' }).care.retentionMs).toBe(3650 * DAY);
  });

  it('refuses production with a real purchase service and no DATABASE_URL, in one line', () => {
    expect(() =>
      loadConfig({
        ...real,
        NODE_ENV: 'production',
        AGENT_PIN_SECRET: PIN_SECRET,
        TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
        OPERATOR_PASSWORD_PEPPER: PEPPER,
        PAYMENT_PROVIDER: 'none',
      }),
    ).toThrow(
      new ConfigError(
        'NODE_ENV=production needs DATABASE_URL (postgres://…): purchases, agents and floats are kept in PostgreSQL, which an operator backs up',
      ),
    );
    // A DATA_DIR is no substitute: production keeps its records where they are backed up.
    expect(() =>
      loadConfig({
        ...real,
        NODE_ENV: 'production',
        AGENT_PIN_SECRET: PIN_SECRET,
        TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
        OPERATOR_PASSWORD_PEPPER: PEPPER,
        PAYMENT_PROVIDER: 'none',
        DATA_DIR: '/data',
      }),
    ).toThrow(/DATABASE_URL/);
    expect(
      loadConfig({
        ...real,
        NODE_ENV: 'production',
        AGENT_PIN_SECRET: PIN_SECRET,
        TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
        OPERATOR_PASSWORD_PEPPER: PEPPER,
        PAYMENT_PROVIDER: 'none',
        DATABASE_URL: 'postgres://gw@db:5432/gw',
      }).records.url,
    ).toBe('postgres://gw@db:5432/gw');
    // The embedded sandbox sells nothing real; outside production the embedded database serves.
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        AGENT_PIN_SECRET: PIN_SECRET,
        TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
        OPERATOR_PASSWORD_PEPPER: PEPPER,
        EMBEDDED_SANDBOX: 'true',
        PAYMENT_PROVIDER: 'none',
      }),
    ).not.toThrow();
    expect(() => loadConfig(real)).not.toThrow();
  });
});

describe('payments (#30)', () => {
  const SECRET = 'payment-callback-secret-0123';
  const real = REAL_SERVICE;
  const production = {
    ...real,
    NODE_ENV: 'production',
    AGENT_PIN_SECRET: PIN_SECRET,
    TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
    OPERATOR_PASSWORD_PEPPER: PEPPER,
    DATABASE_URL: 'postgres://gw@db:5432/gw',
    ALLOW_IN_MEMORY: 'true',
    ALLOW_OUTBOX_SMS: 'true',
  };
  const mpesa = {
    PAYMENT_PROVIDER: 'mpesa',
    PAYMENT_CALLBACK_BASE_URL: 'https://gw.example.com',
    PAYMENT_CALLBACK_SECRET: SECRET,
    MPESA_BASE_URL: 'https://api.safaricom.co.ke',
    MPESA_CONSUMER_KEY: 'key',
    MPESA_CONSUMER_SECRET: 'secret',
    MPESA_SHORTCODE: '174379',
    MPESA_PASSKEY: 'passkey',
  };

  it('unset beside the embedded purchase sandbox: the embedded payment sandbox, mpesa, on port 4020', () => {
    expect(loadConfig({}).payments).toMatchObject({
      provider: 'mpesa',
      explicit: false,
      embedded: true,
      sandboxPort: 4020,
      settings: null,
    });
    expect(loadConfig({ PAYMENT_SANDBOX_PORT: '0' }).payments.sandboxPort).toBe(0);
    // momo against the embedded sandbox too (no MOMO_BASE_URL: the sandbox's own credentials).
    expect(loadConfig({ PAYMENT_PROVIDER: 'momo' }).payments).toMatchObject({
      provider: 'momo',
      embedded: true,
    });
  });

  it('a provider with its settings; none collects nothing; unset with a real service outside production: none', () => {
    const config = loadConfig({ ...real, ...mpesa });
    expect(config.payments).toMatchObject({ provider: 'mpesa', explicit: true, embedded: false });
    expect(config.payments.settings).toMatchObject({
      provider: 'mpesa',
      shortcode: '174379',
      callbackUrl: `https://gw.example.com/payments/callback/payment?key=${SECRET}`,
    });
    expect(loadConfig({ ...real, PAYMENT_PROVIDER: 'none' }).payments).toMatchObject({
      provider: 'none',
      explicit: true,
      settings: null,
    });
    expect(loadConfig(real).payments).toMatchObject({ provider: 'none', explicit: false });
  });

  it.each([
    [
      { PAYMENT_PROVIDER: 'paypal' },
      'invalid configuration: PAYMENT_PROVIDER must be one of mpesa, momo, http, none',
    ],
    [
      { ...real, PAYMENT_PROVIDER: 'mpesa' },
      'invalid configuration: PAYMENT_CALLBACK_BASE_URL must be set for PAYMENT_PROVIDER=mpesa',
    ],
    [
      { ...real, ...mpesa, MPESA_SHORTCODE: 'abc' },
      'invalid configuration: MPESA_SHORTCODE must be the 5 to 7 digit shortcode',
    ],
    [
      { PAYMENT_PROVIDER: 'momo', MOMO_TARGET_ENVIRONMENT: 'Bad Env' },
      'invalid configuration: MOMO_TARGET_ENVIRONMENT',
    ],
    [{ PAYMENT_CALLBACK_ALLOWED_IPS: 'not-an-ip' }, 'invalid configuration: PAYMENT_CALLBACK_ALLOWED_IPS'],
  ])('refuses %j with one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('production refuses an unset PAYMENT_PROVIDER and the embedded payment sandbox, one line each', () => {
    expect(() => loadConfig(production)).toThrow(
      new ConfigError(
        "NODE_ENV=production needs PAYMENT_PROVIDER (mpesa, momo or http; none: callers buy on the operator's wallet)",
      ),
    );
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        AGENT_PIN_SECRET: PIN_SECRET,
        TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
        OPERATOR_PASSWORD_PEPPER: PEPPER,
        EMBEDDED_SANDBOX: 'true',
        PAYMENT_PROVIDER: 'mpesa',
      }),
    ).toThrow(
      new ConfigError(
        "NODE_ENV=production refuses the embedded payment sandbox: set MPESA_BASE_URL and the provider's settings (src/payments/README.md)",
      ),
    );
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        AGENT_PIN_SECRET: PIN_SECRET,
        TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
        OPERATOR_PASSWORD_PEPPER: PEPPER,
        EMBEDDED_SANDBOX: 'true',
        PAYMENT_PROVIDER: 'momo',
      }),
    ).toThrow(/refuses the embedded payment sandbox: set MOMO_BASE_URL/);
    expect(loadConfig({ ...production, ...mpesa }).payments.provider).toBe('mpesa');
    expect(loadConfig({ ...production, PAYMENT_PROVIDER: 'none' }).payments.provider).toBe('none');
  });

  it('the payment callbacks are guarded: a secret (required with a provider) and an optional allow-list', () => {
    const config = loadConfig({ ...real, ...mpesa, PAYMENT_CALLBACK_ALLOWED_IPS: '196.201.214.0/24' });
    expect(config.payments.callback).toEqual({ secret: SECRET, allowedIps: ['196.201.214.0/24'] });
    const guarded = { ...production, ...mpesa, ALLOW_OPEN_CALLBACKS: 'false', USSD_CALLBACK_SECRET: SECRET };
    expect(() => checkCallbacksGuarded(loadConfig(guarded), [{ name: 'africastalking' }])).not.toThrow();
    const open = loadConfig(guarded);
    open.payments = { ...open.payments, callback: { secret: undefined, allowedIps: [] } };
    expect(() => checkCallbacksGuarded(open, [{ name: 'africastalking' }])).toThrow(
      /open are the payment callbacks \(set PAYMENT_CALLBACK_SECRET or PAYMENT_CALLBACK_ALLOWED_IPS\)/,
    );
  });
});

describe('LOG_FORMAT', () => {
  it('is pretty on a terminal in the embedded mode, JSON in production, under test and with a real service', () => {
    expect(loadConfig({}).logFormat).toBe('pretty-on-a-terminal');
    const staging = { NODE_ENV: 'production', EMBEDDED_SANDBOX: 'true', PAYMENT_PROVIDER: 'none' };
    const keys = {
      AGENT_PIN_SECRET: PIN_SECRET,
      TOKEN_ENCRYPTION_KEY: TOKEN_KEY,
      OPERATOR_PASSWORD_PEPPER: PEPPER,
    };
    expect(loadConfig({ ...staging, ...keys }).logFormat).toBe('json');
    expect(loadConfig({ NODE_ENV: 'test' }).logFormat).toBe('json');
    expect(loadConfig({ ...REAL_SERVICE }).logFormat).toBe('json');
  });

  it('LOG_FORMAT chooses either anywhere; anything else is refused', () => {
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadConfig({ NODE_ENV: 'test', LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'text' })).toThrow(/^invalid configuration: LOG_FORMAT/);
  });
});
