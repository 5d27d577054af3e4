import { ConfigError, loadConfig } from './index';
import { DEFAULT_SMS_RETRY_POLICY } from '../purchases/notify';

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
      PURCHASE_API_BASE_URL: 'https://vas.example.com',
      PURCHASE_API_CLIENT_ID: 'c',
      PURCHASE_API_CLIENT_SECRET: 's',
      PURCHASE_API_USERNAME: 'u',
      PURCHASE_API_PASSWORD: 'p',
      PURCHASE_API_ORG_CODE: 'ORG',
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
    const real = {
      PURCHASE_API_BASE_URL: 'https://vas.example.com',
      PURCHASE_API_CLIENT_ID: 'c',
      PURCHASE_API_CLIENT_SECRET: 's',
      PURCHASE_API_USERNAME: 'u',
      PURCHASE_API_PASSWORD: 'p',
      PURCHASE_API_ORG_CODE: 'ORG',
    };
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
