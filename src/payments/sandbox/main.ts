/**
 * The payment sandbox standalone (`npm run payment-sandbox`, or `node dist/src/payments/sandbox/main.js`
 * after a build): what a gateway in production mode is pointed at by URL for a staging run.
 * Settings from the environment, validated; a bad value stops the start with one clear line.
 */
import { runStandalone } from '../../sandbox/kit/standalone';
import { startPaymentSandbox, type PaymentSandboxOptions } from './index';

const DURATIONS = {
  PAYMENT_SANDBOX_APPROVE_DELAY_MS: 'approveDelayMs',
  PAYMENT_SANDBOX_LATE_SUCCESS_DELAY_MS: 'lateSuccessDelayMs',
  PAYMENT_SANDBOX_PROMPT_EXPIRY_MS: 'promptExpiryMs',
  PAYMENT_SANDBOX_REFUND_DELAY_MS: 'refundDelayMs',
} as const;

/** Options from the environment; throws an Error naming the variable on a bad value. */
export function optionsFromEnv(env: NodeJS.ProcessEnv): PaymentSandboxOptions {
  const options: PaymentSandboxOptions = {};
  const integer = (name: string, max: number): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    if (!/^\d+$/.test(raw) || Number(raw) > max)
      throw new Error(`${name} must be an integer from 0 to ${max}`);
    return Number(raw);
  };
  options.port = integer('PAYMENT_SANDBOX_PORT', 65_535) ?? 4020;
  for (const [name, key] of Object.entries(DURATIONS)) {
    const value = integer(name, 86_400_000);
    if (value !== undefined) options[key] = value;
  }
  // Daraja's Amount has no currency: what it is read in, and whether it takes cents (as a
  // gateway with MPESA_AMOUNT_DECIMALS=2 sends them; the live API takes whole units only).
  const currency = env.PAYMENT_SANDBOX_DARAJA_CURRENCY;
  if (currency !== undefined && currency !== '') {
    if (!/^[A-Z]{3}$/.test(currency))
      throw new Error('PAYMENT_SANDBOX_DARAJA_CURRENCY must be an ISO 4217 code (KES, BWP, …)');
    options.daraja = { ...options.daraja, currency };
  }
  const decimals = env.PAYMENT_SANDBOX_DARAJA_DECIMALS;
  if (decimals !== undefined && decimals !== '') {
    if (decimals !== '0' && decimals !== '2')
      throw new Error('PAYMENT_SANDBOX_DARAJA_DECIMALS must be 0 or 2');
    options.daraja = { ...options.daraja, wholeUnits: decimals === '0' };
  }
  const unlisted = env.PAYMENT_SANDBOX_UNLISTED;
  if (unlisted !== undefined && unlisted !== '') {
    if (unlisted !== 'approve' && unlisted !== 'manual') {
      throw new Error('PAYMENT_SANDBOX_UNLISTED must be approve or manual');
    }
    options.unlisted = unlisted;
  }
  return options;
}

if (require.main === module) {
  runStandalone('payment sandbox', optionsFromEnv, startPaymentSandbox, (sandbox) => ({
    message: 'payment sandbox listening',
    service: 'payment-sandbox',
    url: sandbox.url,
    payers: `${sandbox.url}/sandbox/payers`,
    credentials_hint: 'see src/payments/sandbox/README.md',
  }));
}
