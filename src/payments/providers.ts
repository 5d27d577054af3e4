import { z } from 'zod';
import type { CallerOptions } from './caller';
import { httpProvider } from './http/provider';
import { momoProvider } from './momo/provider';
import { mpesaProvider } from './mpesa/provider';
import type { PaymentProvider } from './port';
import {
  baseUrl,
  currency,
  paymentCallbackUrl,
  readEnv,
  secret,
  type CommonPaymentSettings,
  type ProviderRow,
} from './settings';

export { PaymentSettingsError, PAYMENT_CALLBACK_PATHS, paymentCallbackUrl } from './settings';

/**
 * The `PAYMENT_PROVIDER` values: the one list of provider names. `none` collects nothing: callers
 * buy on the operator's wallet (only when chosen explicitly).
 */
export const PAYMENT_PROVIDERS = ['mpesa', 'momo', 'http', 'none'] as const;
/** One of {@link PAYMENT_PROVIDERS}. */
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];

/** `none`: no settings, no adapter. */
const noneProvider: ProviderRow<object> = { settings: () => ({}), create: () => null };

/**
 * Every payment provider by its `PAYMENT_PROVIDER` name: one line each (a provider is its folder
 * plus its line here). The keys must be exactly {@link PAYMENT_PROVIDERS}, or this does not compile.
 */
export const paymentProviders = {
  mpesa: mpesaProvider,
  momo: momoProvider,
  http: httpProvider,
  none: noneProvider,
} satisfies Record<PaymentProviderName, ProviderRow<object>>;

type Providers = typeof paymentProviders;

/** A provider's name and its settings, e.g. `{ provider: 'mpesa', shortcode, ..., timeoutMs }`. */
export type PaymentSettings = {
  [Name in PaymentProviderName]: { provider: Name; timeoutMs: number } & ReturnType<
    Providers[Name]['settings']
  >;
}[PaymentProviderName];

/**
 * The payment settings from the environment (src/config calls this): null when PAYMENT_PROVIDER is
 * unset — whether that means the embedded sandbox or a refusal to start is the config's call.
 * Throws PaymentSettingsError (`variable`, `problem`; its message is one line naming the variable).
 */
export function paymentSettingsFromEnv(env: NodeJS.ProcessEnv): PaymentSettings | null {
  const { PAYMENT_PROVIDER: name } = readEnv(
    env,
    {
      PAYMENT_PROVIDER: z
        .enum(PAYMENT_PROVIDERS, `must be one of ${PAYMENT_PROVIDERS.join(', ')}`)
        .optional(),
    },
    '',
  );
  if (name === undefined) return null;
  if (name === 'none') return { provider: 'none', timeoutMs: 0 };
  const why = `for PAYMENT_PROVIDER=${name}`;
  const v = readEnv(
    env,
    {
      PAYMENT_CALLBACK_BASE_URL: baseUrl,
      PAYMENT_CALLBACK_SECRET: secret,
      PAYMENT_CURRENCY: currency.optional(),
      PAYMENT_TIMEOUT_MS: z
        .string()
        .regex(/^\d+$/, 'must be a whole number of milliseconds')
        .transform(Number)
        .pipe(z.number().int().min(1000, 'must be at least 1000').max(120_000, 'must be at most 120000'))
        .default(10_000),
    },
    why,
  );
  const common: CommonPaymentSettings = {
    callbackUrls: {
      payment: paymentCallbackUrl(v.PAYMENT_CALLBACK_BASE_URL, v.PAYMENT_CALLBACK_SECRET, 'payment'),
      refund: paymentCallbackUrl(v.PAYMENT_CALLBACK_BASE_URL, v.PAYMENT_CALLBACK_SECRET, 'refund'),
      refund_timeout: paymentCallbackUrl(
        v.PAYMENT_CALLBACK_BASE_URL,
        v.PAYMENT_CALLBACK_SECRET,
        'refund_timeout',
      ),
    },
    currency: v.PAYMENT_CURRENCY,
    timeoutMs: v.PAYMENT_TIMEOUT_MS,
  };
  const settings = paymentProviders[name].settings(env, common);
  return { provider: name, timeoutMs: common.timeoutMs, ...settings } as PaymentSettings;
}

/** The configured provider's adapter; null for `none` (nothing is collected). */
export function createPaymentProvider(
  settings: PaymentSettings,
  options: Omit<CallerOptions, 'timeoutMs'> = {},
): PaymentProvider | null {
  const { provider, timeoutMs, ...rest } = settings;
  // The union is correlated by `provider`; TypeScript cannot follow it through the index.
  const row = paymentProviders[provider] as ProviderRow<typeof rest>;
  return row.create(rest, { ...options, timeoutMs });
}
