import { usesEmbeddedPayments } from '../payments/setup';
import type { Env } from './schema';
import { ConfigError, type Config } from './types';

/**
 * What production refuses: guessable secrets, the embedded sandbox, in-memory stores, the SMS
 * outbox, a system of record nobody backs up, and callback routes anyone can call. Each refusal
 * names the variable that allows it anyway, where one does.
 */

/** Shared secrets an attacker could guess are refused: at least this many characters. */
export const MIN_SECRET_LENGTH = 16;

/** Whether the gateway runs as a production deployment (NODE_ENV=production). */
export function isProduction(env: Pick<Env, 'NODE_ENV'>): boolean {
  return env.NODE_ENV === 'production';
}

export function checkSecrets(env: Env): void {
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
 * and serves tokens at /dev/sms), a system of record outside PostgreSQL, the in-memory stores (a
 * restart loses every dialogue and job) and the SMS outbox (nobody reads it).
 */
export function checkProduction(env: Env, embeddedSandbox: boolean): void {
  if (embeddedSandbox && !env.EMBEDDED_SANDBOX)
    throw new ConfigError(
      'NODE_ENV=production needs PURCHASE_API_BASE_URL (a real purchase service); set EMBEDDED_SANDBOX=true to run the sandbox anyway',
    );
  if (env.PAYMENT_PROVIDER === undefined)
    throw new ConfigError(
      "NODE_ENV=production needs PAYMENT_PROVIDER (mpesa, momo or http; none: callers buy on the operator's wallet)",
    );
  if (usesEmbeddedPayments(env, embeddedSandbox))
    throw new ConfigError(
      `NODE_ENV=production refuses the embedded payment sandbox: set ${env.PAYMENT_PROVIDER === 'momo' ? 'MOMO_BASE_URL' : 'MPESA_BASE_URL'} and the provider's settings (src/payments/README.md)`,
    );
  if (!embeddedSandbox && !env.DATABASE_URL)
    throw new ConfigError(
      'NODE_ENV=production needs DATABASE_URL (postgres://…): purchases, agents and floats are kept in PostgreSQL, which an operator backs up',
    );
  if (!embeddedSandbox && !env.REDIS_URL && !env.ALLOW_IN_MEMORY)
    throw new ConfigError(
      'NODE_ENV=production needs REDIS_URL: in memory, dialogues and queued jobs live in one process and a second instance cannot share them (ALLOW_IN_MEMORY=true to accept that)',
    );
  if (!embeddedSandbox && env.SMS_DRIVER === 'outbox' && !env.ALLOW_OUTBOX_SMS)
    throw new ConfigError(
      'NODE_ENV=production needs an SMS_DRIVER: the outbox delivers no SMS (ALLOW_OUTBOX_SMS=true to accept that)',
    );
  checkKeys(env);
}

/**
 * Every production deployment: without its own pepper, PIN hashes read from the records are
 * brute-forced; without the tokens' key, a dump of the records hands out every unused token.
 */
function checkKeys(env: Env): void {
  if (!env.AGENT_PIN_SECRET)
    throw new ConfigError(
      "NODE_ENV=production needs AGENT_PIN_SECRET (32+ random characters, kept outside the database): agents' PIN hashes are peppered with it",
    );
  if (!env.TOKEN_ENCRYPTION_KEY)
    throw new ConfigError(
      'NODE_ENV=production needs TOKEN_ENCRYPTION_KEY (32+ random characters, kept outside the database): tokens and SMS texts are sealed with it at rest',
    );
  if (!env.OPERATOR_PASSWORD_PEPPER)
    throw new ConfigError(
      "NODE_ENV=production needs OPERATOR_PASSWORD_PEPPER (32+ random characters, kept outside the database): operators' password hashes are peppered with it",
    );
}

/**
 * The records in PostgreSQL are shared by every process (gateways, workers, the CLI): each one
 * must pepper PINs and seal tokens with the same keys, kept outside the database they protect
 * (a key stored beside the rows would hand them out with a dump). So with `DATABASE_URL` both
 * are required, outside tests, whatever NODE_ENV says; the embedded mode keeps its own under
 * `DATA_DIR` (one process at a time). Checked by `loadConfig`: every process refuses at start.
 */
export function checkRecordsKeys(env: Env): void {
  if (!env.DATABASE_URL || env.NODE_ENV === 'test') return;
  if (!env.AGENT_PIN_SECRET)
    throw new ConfigError(
      "DATABASE_URL needs AGENT_PIN_SECRET (32+ random characters, kept outside the database, the same in every gateway, worker and CLI): agents' PIN hashes are peppered with it",
    );
  if (!env.TOKEN_ENCRYPTION_KEY)
    throw new ConfigError(
      'DATABASE_URL needs TOKEN_ENCRYPTION_KEY (32+ random characters, kept outside the database, the same in every gateway, worker and CLI): tokens and SMS texts are sealed with it at rest',
    );
}

/** A USSD route's protection beyond the guard: an adapter that checks the caller's own credentials. */
export interface UssdRouteAuth {
  name: string;
  /** The adapter refuses a request without the aggregator's credentials (Comviva's userid/password). */
  checksCredentials?: boolean;
}

/**
 * In production (with a real purchase service) every inbound route that can spend money or change
 * an agent — each aggregator's USSD callbacks, the inbound SMS routes and their delivery reports —
 * needs a secret or an allow-list: else anyone who reaches the port buys on any number or BLOCKs
 * any agent; the payment callbacks can mark a purchase paid. Checked by the process that serves them (`startGateway`), not by workers or the CLI.
 * `ALLOW_OPEN_CALLBACKS=true` accepts open routes (a gateway reached only over a private link).
 */
export function checkCallbacksGuarded(
  config: Pick<Config, 'callbacksMustBeGuarded' | 'ussd' | 'smsMo' | 'payments'>,
  ussd: readonly UssdRouteAuth[],
): void {
  if (!config.callbacksMustBeGuarded) return;
  const openUssd = ussd.filter((route) => {
    const own = config.ussd.aggregators[route.name] ?? {};
    const secret = own.callbackSecret ?? config.ussd.callbackSecret;
    const ips = own.allowedIps ?? config.ussd.allowedIps;
    return !secret && ips.length === 0 && !route.checksCredentials;
  });
  const open: string[] = [];
  if (openUssd.length > 0)
    open.push(
      `${openUssd.length === ussd.length ? 'every USSD callback' : `the USSD callbacks of ${openUssd.map((r) => r.name).join(', ')}`} (set USSD_CALLBACK_SECRET or USSD_ALLOWED_IPS)`,
    );
  if (!config.smsMo.callbackSecret && config.smsMo.allowedIps.length === 0)
    open.push('the inbound SMS and delivery report routes (set SMS_CALLBACK_SECRET or SMS_ALLOWED_IPS)');
  const payments = config.payments;
  if (payments.provider !== 'none' && !payments.callback.secret && payments.callback.allowedIps.length === 0)
    open.push('the payment callbacks (set PAYMENT_CALLBACK_SECRET or PAYMENT_CALLBACK_ALLOWED_IPS)');
  if (open.length > 0)
    throw new ConfigError(
      `NODE_ENV=production needs a secret or an allow-list on every callback that can buy or change an agent: ` +
        `open are ${open.join(' and ')}; ALLOW_OPEN_CALLBACKS=true only if nothing but a private link reaches the port`,
    );
}
