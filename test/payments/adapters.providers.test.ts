import {
  PAYMENT_PROVIDERS,
  PaymentSettingsError,
  createPaymentProvider,
  paymentProviders,
  paymentSettingsFromEnv,
} from '../../src/payments/providers';

/** PAYMENT_PROVIDER and each provider's variables: settings, or one line naming the variable. */

const COMMON = {
  PAYMENT_CALLBACK_BASE_URL: 'https://gw.example.com/',
  PAYMENT_CALLBACK_SECRET: 'callback-secret-0001',
};
const MPESA = {
  ...COMMON,
  PAYMENT_PROVIDER: 'mpesa',
  MPESA_BASE_URL: 'https://sandbox.safaricom.co.ke',
  MPESA_CONSUMER_KEY: 'ck',
  MPESA_CONSUMER_SECRET: 'cs',
  MPESA_SHORTCODE: '174379',
  MPESA_PASSKEY: 'pk',
};
const MOMO = {
  ...COMMON,
  PAYMENT_PROVIDER: 'momo',
  MOMO_BASE_URL: 'https://sandbox.momodeveloper.mtn.com',
  MOMO_API_USER: 'u',
  MOMO_API_KEY: 'k',
  MOMO_SUBSCRIPTION_KEY: 's',
  MOMO_TARGET_ENVIRONMENT: 'sandbox',
};
const HTTP = {
  ...COMMON,
  PAYMENT_PROVIDER: 'http',
  PAYMENT_HTTP_URL: 'https://wallet.example.com/gw',
  PAYMENT_HTTP_SECRET: 'operator-shared-secret-0001',
};

it('lists exactly the providers of the table', () => {
  expect(Object.keys(paymentProviders).sort()).toEqual([...PAYMENT_PROVIDERS].sort());
});

it('unset: null (the config decides what that means); none: no adapter', () => {
  expect(paymentSettingsFromEnv({})).toBeNull();
  expect(paymentSettingsFromEnv({ PAYMENT_PROVIDER: '' })).toBeNull();
  const none = paymentSettingsFromEnv({ PAYMENT_PROVIDER: 'none' });
  expect(none).toMatchObject({ provider: 'none' });
  expect(createPaymentProvider(none!)).toBeNull();
});

it('mpesa: settings with the callback URLs carrying the secret, and its adapter', () => {
  const settings = paymentSettingsFromEnv(MPESA);
  expect(settings).toMatchObject({
    provider: 'mpesa',
    shortcode: '174379',
    partyB: '174379',
    transactionType: 'CustomerPayBillOnline',
    currency: 'KES',
    amountDecimals: 0,
    timeoutMs: 10_000,
    callbackUrl: 'https://gw.example.com/payments/callback/payment?key=callback-secret-0001',
    refundResultUrl: 'https://gw.example.com/payments/callback/refund?key=callback-secret-0001',
    refundTimeoutUrl: 'https://gw.example.com/payments/callback/refund-timeout?key=callback-secret-0001',
  });
  expect(createPaymentProvider(settings!)?.name).toBe('mpesa');
  expect(
    paymentSettingsFromEnv({
      ...MPESA,
      MPESA_TRANSACTION_TYPE: 'till',
      MPESA_TILL_NUMBER: '600100',
      PAYMENT_CURRENCY: 'BWP',
    }),
  ).toMatchObject({ transactionType: 'CustomerBuyGoodsOnline', partyB: '600100', currency: 'BWP' });
});

it('momo and http: their adapters', () => {
  const momo = paymentSettingsFromEnv({ ...MOMO, MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: 'd' });
  expect(momo).toMatchObject({
    provider: 'momo',
    disbursement: { subscriptionKey: 'd', apiUser: 'u', apiKey: 'k' },
  });
  expect(createPaymentProvider(momo!)?.name).toBe('momo');
  const http = paymentSettingsFromEnv(HTTP);
  expect(http).toMatchObject({ provider: 'http', auth: 'hmac', url: 'https://wallet.example.com/gw' });
  expect(createPaymentProvider(http!)?.name).toBe('http');
});

test.each([
  [{ PAYMENT_PROVIDER: 'paypal' }, 'PAYMENT_PROVIDER must be one of mpesa, momo, http, none'],
  [{ ...MPESA, MPESA_PASSKEY: '' }, 'MPESA_PASSKEY must be set for PAYMENT_PROVIDER=mpesa'],
  [
    { ...MPESA, PAYMENT_CALLBACK_BASE_URL: undefined },
    'PAYMENT_CALLBACK_BASE_URL must be set for PAYMENT_PROVIDER=mpesa',
  ],
  [{ ...MPESA, PAYMENT_CALLBACK_SECRET: 'short' }, 'PAYMENT_CALLBACK_SECRET must be at least 16 characters'],
  [{ ...MPESA, MPESA_BASE_URL: 'ftp://x.example.com' }, 'MPESA_BASE_URL must be an http(s) URL'],
  [{ ...MPESA, MPESA_SHORTCODE: 'abc' }, 'MPESA_SHORTCODE must be the 5 to 7 digit shortcode'],
  [
    { ...MPESA, MPESA_TRANSACTION_TYPE: 'till' },
    'MPESA_TILL_NUMBER must be set for MPESA_TRANSACTION_TYPE=till',
  ],
  [
    { ...MPESA, MPESA_INITIATOR: 'apiop37' },
    'MPESA_SECURITY_CREDENTIAL must be set with MPESA_INITIATOR (refunds are reversals)',
  ],
  [{ ...MPESA, MPESA_AMOUNT_DECIMALS: '1' }, 'MPESA_AMOUNT_DECIMALS must be 0 (Daraja) or 2 (a test double)'],
  [{ ...MPESA, PAYMENT_CURRENCY: 'kes' }, 'PAYMENT_CURRENCY must be an ISO 4217 code such as KES'],
  [{ ...MPESA, PAYMENT_TIMEOUT_MS: '10s' }, 'PAYMENT_TIMEOUT_MS must be a whole number of milliseconds'],
  [
    { ...MOMO, MOMO_TARGET_ENVIRONMENT: undefined },
    'MOMO_TARGET_ENVIRONMENT must be set for PAYMENT_PROVIDER=momo',
  ],
  [
    { ...MOMO, MOMO_DISBURSEMENT_API_USER: 'x' },
    'MOMO_DISBURSEMENT_SUBSCRIPTION_KEY must be set with MOMO_DISBURSEMENT_API_USER/KEY',
  ],
  [{ ...HTTP, PAYMENT_HTTP_AUTH: 'basic' }, 'PAYMENT_HTTP_AUTH must be hmac or bearer'],
  [{ ...HTTP, PAYMENT_HTTP_SECRET: 'short' }, 'PAYMENT_HTTP_SECRET must be at least 16 characters'],
])('refused in one line: %j → %s', (env, message) => {
  let error: unknown;
  try {
    paymentSettingsFromEnv(env as NodeJS.ProcessEnv);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(PaymentSettingsError);
  expect((error as Error).message).toBe(message);
  expect((error as PaymentSettingsError).variable).toBe(message.split(' ')[0]);
});
