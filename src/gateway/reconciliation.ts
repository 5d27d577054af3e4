import type { Config } from '../config';
import { embeddedPaymentSettings } from '../payments/setup';
import type { PaymentSettings } from '../payments/providers';
import type { AuditTrail } from '../purchases/care/audit';
import type { Database } from '../records/database';
import type { PurchaseService } from '../vas';
import { DEFAULT_IN_FLIGHT_MS } from '../reconciliation/reconcile';
import { Reconciliation } from '../reconciliation/service';
import type { DarajaPullSettings } from '../reconciliation/statements/pull';

/** The M-Pesa settings in use: the configured provider's, or the embedded sandbox's. */
function mpesaSettings(
  config: Config,
  sandboxUrl: string | undefined,
): Extract<PaymentSettings, { provider: 'mpesa' }> | null {
  const settings =
    config.payments.embedded && sandboxUrl
      ? embeddedPaymentSettings(config.payments, { sandboxUrl, gatewayUrl: 'http://127.0.0.1' })
      : config.payments.settings;
  return settings?.provider === 'mpesa' ? settings : null;
}

/**
 * The reconciliation as the config has it (the gateway and the CLI build it here): the day in
 * `TZ`, the debit account, the statement's currency, Daraja's Pull API where it is set up.
 */
export function reconciliationFor(
  config: Config,
  parts: { db: Database; audit: AuditTrail; service?: PurchaseService; paymentSandboxUrl?: string },
): Reconciliation {
  const mpesa = mpesaSettings(config, parts.paymentSandboxUrl);
  const darajaPull: DarajaPullSettings | undefined =
    config.reconciliation.pull && mpesa
      ? {
          baseUrl: mpesa.baseUrl,
          consumerKey: mpesa.consumerKey,
          consumerSecret: mpesa.consumerSecret,
          shortcode: mpesa.shortcode,
          timeoutMs: mpesa.timeoutMs,
        }
      : undefined;
  return new Reconciliation({
    db: parts.db,
    audit: parts.audit,
    service: parts.service,
    darajaPull,
    settings: {
      timeZone: config.timeZone,
      accountId: config.debitAccountId,
      lateWindowMs: config.reconciliation.lateWindowMs,
      inFlightMs: DEFAULT_IN_FLIGHT_MS,
    },
    read: {
      mpesaCurrency: mpesa?.currency ?? (config.payments.embedded ? 'BWP' : 'KES'),
      momoZone: config.timeZone,
    },
  });
}
