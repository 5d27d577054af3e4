import { z } from 'zod';
import type { CallerOptions } from './caller';
import type { CallbackKind, PaymentProvider } from './port';

/**
 * What every provider row of providers.ts shares: reading its variables from the environment with
 * one-line errors naming the variable, and the callback URLs the gateway gives the providers.
 */

/** A payment variable that is missing or does not parse: `variable` names it. */
export class PaymentSettingsError extends Error {
  constructor(
    readonly variable: string,
    readonly problem: string,
  ) {
    super(`${variable} ${problem}`);
    this.name = 'PaymentSettingsError';
  }
}

/** Shared secrets an attacker could guess are refused (as the gateway's other secrets). */
export const MIN_SECRET_LENGTH = 16;

/** A value that is set (empty counts as unset). */
export const text = z.string().trim().min(1, 'must not be empty');
export const secret = text.min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`);
export const baseUrl = text
  .pipe(z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }))
  .transform((v) => v.replace(/\/+$/, ''));
export const currency = text.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as KES');

/**
 * The variables of `env` that `shape` names (unset or empty: absent), parsed; the first problem
 * as a PaymentSettingsError. `why` ends a missing variable's message (`for PAYMENT_PROVIDER=mpesa`).
 */
export function readEnv<Shape extends z.ZodRawShape>(
  env: NodeJS.ProcessEnv,
  shape: Shape,
  why: string,
): z.infer<z.ZodObject<Shape>> {
  const present = Object.fromEntries(
    Object.keys(shape)
      .filter((key) => env[key] !== undefined && env[key]?.trim() !== '')
      .map((key) => [key, env[key]]),
  );
  const parsed = z.object(shape).safeParse(present);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const variable = String(issue?.path[0] ?? 'PAYMENT_PROVIDER');
  throw new PaymentSettingsError(
    variable,
    present[variable] === undefined ? `must be set ${why}` : (issue?.message ?? 'is invalid'),
  );
}

/** Settings every collecting provider has, from the `PAYMENT_*` variables. */
export interface CommonPaymentSettings {
  /** Our callback URL per kind, each with the callback secret in it. */
  callbackUrls: Record<CallbackKind, string>;
  /** PAYMENT_CURRENCY, when set. */
  currency?: string;
  /** Budget of one call to the provider (PAYMENT_TIMEOUT_MS). */
  timeoutMs: number;
}

/**
 * Where each kind of callback is received, under PAYMENT_CALLBACK_BASE_URL. Provider-neutral on
 * purpose: Daraja refuses callback URLs with words such as "mpesa" in them.
 */
export const PAYMENT_CALLBACK_PATHS: Record<CallbackKind, string> = {
  payment: '/payments/callback/payment',
  refund: '/payments/callback/refund',
  refund_timeout: '/payments/callback/refund-timeout',
};

/**
 * The URL a provider calls back: base + path + `?key=<secret>` (providers cannot add headers, so
 * the secret travels in the query, where the callback guard reads `key`).
 */
export function paymentCallbackUrl(base: string, callbackSecret: string, kind: CallbackKind): string {
  return `${base.replace(/\/+$/, '')}${PAYMENT_CALLBACK_PATHS[kind]}?key=${encodeURIComponent(callbackSecret)}`;
}

/** One row of the provider table: its settings from the environment, and the adapter they make. */
export interface ProviderRow<Settings extends object> {
  /** Throws PaymentSettingsError naming the first variable that is missing or wrong. */
  settings(env: NodeJS.ProcessEnv, common: CommonPaymentSettings): Settings;
  /** The adapter; null for `none` (nothing is collected). */
  create(settings: Settings, options: CallerOptions): PaymentProvider | null;
}
