import { AllowList } from '../http/allow-list';
import {
  paymentSettingsFromEnv,
  PaymentSettingsError,
  type PaymentProviderName,
  type PaymentSettings,
} from './providers';
import { DARAJA_DEFAULTS, MOMO_DEFAULTS, type PaymentSandboxOptions } from './sandbox';

/**
 * How the gateway takes the buyer's money, chosen at start from `PAYMENT_*`: a provider with its
 * settings, the embedded payment sandbox (the demo and tests), or `none` (callers buy on the
 * operator's wallet). The payment domain's settings section of the gateway's config.
 */
export interface PaymentSetup {
  /** The adapter in use; `none` collects nothing. */
  provider: PaymentProviderName;
  /** PAYMENT_PROVIDER was set (unset outside production with a real purchase service: `none`). */
  explicit: boolean;
  /**
   * The embedded payment sandbox is started on `sandboxPort` and `provider` (mpesa or momo)
   * points at it; its settings are made at start (`embeddedPaymentSettings`), once both URLs are known.
   */
  embedded: boolean;
  /** PAYMENT_SANDBOX_PORT (0: any free port). */
  sandboxPort: number;
  /** The provider's settings; null for `none` and for the embedded sandbox. */
  settings: PaymentSettings | null;
  /** What guards the callback routes: the secret in the URL (`?key=`) and an optional allow-list. */
  callback: { secret: string | undefined; allowedIps: string[] };
  /** The `PAYMENT_*`, `MPESA_*`, `MOMO_*` variables as given (the embedded settings are made from them). */
  env: Record<string, string>;
}

/** The callback secret of the embedded sandbox when none is set: it serves loopback demos only. */
export const EMBEDDED_CALLBACK_SECRET = 'embedded-payment-sandbox-key';

/** The embedded payment sandbox's own options: it takes BWP in cents over Daraja's wire too. */
export const EMBEDDED_PAYMENT_SANDBOX: PaymentSandboxOptions = {
  daraja: { currency: 'BWP', wholeUnits: false },
};

const PAYMENT_VARIABLE = /^(PAYMENT_|MPESA_|MOMO_)/;

/** Whether these variables run the embedded payment sandbox (only beside the embedded purchase sandbox). */
export function usesEmbeddedPayments(
  env: { PAYMENT_PROVIDER?: string; MPESA_BASE_URL?: string; MOMO_BASE_URL?: string },
  embeddedPurchaseSandbox: boolean,
): boolean {
  if (!embeddedPurchaseSandbox) return false;
  const provider = env.PAYMENT_PROVIDER?.trim() || undefined;
  return (
    provider === undefined ||
    (provider === 'mpesa' && !env.MPESA_BASE_URL?.trim()) ||
    (provider === 'momo' && !env.MOMO_BASE_URL?.trim())
  );
}

/**
 * The setup from the environment. Throws PaymentSettingsError (one line naming the variable).
 * Whether production accepts it is the config's call (src/config/production.ts).
 */
export function paymentSetupFromEnv(
  source: NodeJS.ProcessEnv,
  options: { embeddedPurchaseSandbox: boolean; sandboxPort: number },
): PaymentSetup {
  const env = Object.fromEntries(
    Object.entries(source).filter(
      (entry): entry is [string, string] =>
        PAYMENT_VARIABLE.test(entry[0]) && entry[1] !== undefined && entry[1].trim() !== '',
    ),
  );
  const allowedIps = (env.PAYMENT_CALLBACK_ALLOWED_IPS ?? '')
    .split(',')
    .map((ip) => ip.trim())
    .filter(Boolean);
  try {
    new AllowList(allowedIps);
  } catch (error) {
    throw new PaymentSettingsError('PAYMENT_CALLBACK_ALLOWED_IPS', (error as Error).message);
  }
  const embedded = usesEmbeddedPayments(env, options.embeddedPurchaseSandbox);
  if (embedded) {
    // Checked now with stand-in URLs, so a wrong variable stops the start, not the first sale.
    const settings = embeddedPaymentSettingsFromEnv(env, {
      sandboxUrl: 'http://127.0.0.1:4020',
      gatewayUrl: 'http://127.0.0.1:3000',
    });
    return {
      provider: settings.provider,
      explicit: env.PAYMENT_PROVIDER !== undefined,
      embedded,
      sandboxPort: options.sandboxPort,
      settings: null,
      callback: { secret: env.PAYMENT_CALLBACK_SECRET ?? EMBEDDED_CALLBACK_SECRET, allowedIps },
      env,
    };
  }
  const settings = paymentSettingsFromEnv(env);
  return {
    provider: settings?.provider ?? 'none',
    explicit: settings !== null,
    embedded: false,
    sandboxPort: options.sandboxPort,
    settings: settings?.provider === 'none' ? null : settings,
    callback: { secret: env.PAYMENT_CALLBACK_SECRET, allowedIps },
    env,
  };
}

/** The variables that point an mpesa or momo adapter at the embedded sandbox (its own credentials). */
export function sandboxEnv(provider: string, sandboxUrl: string): Record<string, string> {
  if (provider === 'momo')
    return {
      MOMO_BASE_URL: sandboxUrl,
      MOMO_API_USER: MOMO_DEFAULTS.apiUserId,
      MOMO_API_KEY: MOMO_DEFAULTS.apiKey,
      MOMO_SUBSCRIPTION_KEY: MOMO_DEFAULTS.collectionKey,
      MOMO_TARGET_ENVIRONMENT: MOMO_DEFAULTS.targetEnvironment,
      MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: MOMO_DEFAULTS.disbursementKey,
    };
  return {
    MPESA_BASE_URL: sandboxUrl,
    MPESA_CONSUMER_KEY: DARAJA_DEFAULTS.consumerKey,
    MPESA_CONSUMER_SECRET: DARAJA_DEFAULTS.consumerSecret,
    MPESA_SHORTCODE: DARAJA_DEFAULTS.shortcode,
    MPESA_PASSKEY: DARAJA_DEFAULTS.passkey,
    // The sandbox cannot decrypt a credential: any text lets reversals (refunds) through.
    MPESA_INITIATOR: 'gateway',
    MPESA_SECURITY_CREDENTIAL: 'sandbox-credential',
    MPESA_AMOUNT_DECIMALS: '2',
  };
}

function embeddedPaymentSettingsFromEnv(
  env: Record<string, string>,
  urls: { sandboxUrl: string; gatewayUrl: string },
): PaymentSettings {
  const provider = env.PAYMENT_PROVIDER ?? 'mpesa';
  const settings = paymentSettingsFromEnv({
    ...sandboxEnv(provider, urls.sandboxUrl),
    PAYMENT_CURRENCY: 'BWP',
    PAYMENT_CALLBACK_BASE_URL: urls.gatewayUrl,
    PAYMENT_CALLBACK_SECRET: EMBEDDED_CALLBACK_SECRET,
    ...env,
    PAYMENT_PROVIDER: provider,
  });
  return settings!;
}

/** The embedded sandbox's provider settings, once the sandbox and the gateway listen. */
export function embeddedPaymentSettings(
  setup: PaymentSetup,
  urls: { sandboxUrl: string; gatewayUrl: string },
): PaymentSettings {
  return embeddedPaymentSettingsFromEnv(setup.env, urls);
}
