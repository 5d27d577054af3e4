import { PAYMENT_PROVIDERS } from '../../payments/providers';
import { doc, int, optionalString } from '../variables';

/**
 * Who collects the buyer's money: the provider and its credentials. src/payments reads and
 * checks them (paymentSetupFromEnv); the schema only documents them.
 * Each variable: its parse, its default and its line in docs/configuration.md (`doc`);
 * ../schema.ts puts the sections in order.
 */

export const payments = {
  // Read and checked by src/payments (paymentSetupFromEnv): one line naming a wrong variable.
  PAYMENT_PROVIDER: doc(
    optionalString,
    `who collects the buyer's money before a subscriber's purchase: ${PAYMENT_PROVIDERS.map((p) => `\`${p}\``).join(', ')} (\`none\`: callers buy on the operator's wallet); required in production`,
    'unset: the embedded payment sandbox (mpesa) with the embedded purchase sandbox, else `none`',
  ),
  PAYMENT_SANDBOX_PORT: doc(int(4020, 0, 65535), 'port of the embedded payment sandbox (`0`: any free port)'),
  PAYMENT_CALLBACK_BASE_URL: doc(
    optionalString,
    "the gateway's public base URL the provider calls back (`/payments/callback/...`)",
    "the gateway's own URL with the embedded payment sandbox",
  ),
  PAYMENT_CALLBACK_SECRET: doc(
    optionalString,
    'secret (at least 16 characters) in the callback URLs given to the provider (`?key=`); required with a provider',
  ),
  PAYMENT_CALLBACK_ALLOWED_IPS: doc(
    optionalString,
    "allow-list of the payment callbacks: the provider's addresses or CIDR ranges (besides the secret)",
    'unset: any address with the secret',
  ),
  PAYMENT_CURRENCY: doc(
    optionalString,
    'currency collected by mpesa or momo; a purchase in another is refused before any call',
    '`KES` for mpesa (`BWP` with the embedded payment sandbox)',
  ),
  PAYMENT_TIMEOUT_MS: doc(optionalString, "one call's budget at the provider", '`10000`'),
  MPESA_BASE_URL: doc(
    optionalString,
    'Daraja base URL (`https://api.safaricom.co.ke`)',
    'unset: the embedded payment sandbox',
  ),
  MPESA_CONSUMER_KEY: doc(optionalString, "the Daraja app's OAuth consumer key"),
  MPESA_CONSUMER_SECRET: doc(optionalString, "the Daraja app's OAuth consumer secret"),
  MPESA_SHORTCODE: doc(optionalString, 'BusinessShortCode (5 to 7 digits)'),
  MPESA_PASSKEY: doc(optionalString, 'Lipa na M-Pesa Online passkey'),
  MPESA_TRANSACTION_TYPE: doc(
    optionalString,
    '`paybill` or `till` (then `MPESA_TILL_NUMBER` is PartyB)',
    '`paybill`',
  ),
  MPESA_TILL_NUMBER: doc(optionalString, 'the till number with `MPESA_TRANSACTION_TYPE=till`'),
  MPESA_INITIATOR: doc(
    optionalString,
    'reversal initiator (refunds); with `MPESA_SECURITY_CREDENTIAL`',
    'unset: no refunds',
  ),
  MPESA_SECURITY_CREDENTIAL: doc(
    optionalString,
    "the initiator's password encrypted with Safaricom's certificate",
  ),
  MPESA_AMOUNT_DECIMALS: doc(
    optionalString,
    '`0` (Daraja takes whole units) or `2` (a test double taking cents)',
    '`0`',
  ),
  MOMO_BASE_URL: doc(
    optionalString,
    'MTN MoMo base URL (`https://proxy.momoapi.mtn.com`)',
    'unset: the embedded payment sandbox',
  ),
  MOMO_API_USER: doc(optionalString, 'MoMo API user (a UUID)'),
  MOMO_API_KEY: doc(optionalString, "the API user's key"),
  MOMO_SUBSCRIPTION_KEY: doc(optionalString, "the Collection product's `Ocp-Apim-Subscription-Key`"),
  MOMO_TARGET_ENVIRONMENT: doc(optionalString, '`sandbox`, or the value MTN issued (e.g. `mtnuganda`)'),
  MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: doc(
    optionalString,
    "the Disbursement product's key, for refunds",
    'unset: no refunds',
  ),
  MOMO_DISBURSEMENT_API_USER: doc(optionalString, 'the Disbursement API user', 'the Collection one'),
  MOMO_DISBURSEMENT_API_KEY: doc(optionalString, "the Disbursement API user's key", 'the Collection one'),
  PAYMENT_HTTP_URL: doc(
    optionalString,
    "the generic provider's endpoint base (docs/payments-http-provider.md)",
  ),
  PAYMENT_HTTP_SECRET: doc(optionalString, "the generic provider's shared secret (at least 16 characters)"),
  PAYMENT_HTTP_AUTH: doc(optionalString, '`hmac` (`X-Signature` both ways) or `bearer`', '`hmac`'),
};
