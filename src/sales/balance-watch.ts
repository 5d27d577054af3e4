import { randomUUID } from 'node:crypto';
import { componentLogger } from '../observability/logger';
import type { Metrics } from '../observability/metrics';
import type { PurchaseService } from '../vas';
import { formatMoney, type Money } from '../vas/money';
import { fetchDebitAccount } from './debit-account';

const log = componentLogger('balance');

export interface BalanceWatchOptions {
  service: PurchaseService;
  /** `DEBIT_ACCOUNT_ID`; unset: the first CURRENT account, as purchases use. */
  accountId: number | undefined;
  metrics: Metrics;
  /** `BALANCE_POLL_INTERVAL_MS`; 0 reads once at start only. */
  everyMs: number;
  /** `LOW_BALANCE_ALERT`: under it, an error log every reading and `debit_account_balance_low 1`. */
  alert: Money | undefined;
}

export interface BalanceWatch {
  /** Read the balance now (also what the timer runs); never throws. */
  check(): Promise<void>;
  stop(): void;
}

/**
 * Polls the debit account's balance at the purchase service (`GET /accounts`) into
 * `debit_account_balance_minor`; under `LOW_BALANCE_ALERT` it logs at error level on every
 * reading and sets `debit_account_balance_low` to 1, so both a log alert and a metric alert fire
 * before purchases start failing for want of funds.
 */
export function startBalanceWatch(options: BalanceWatchOptions): BalanceWatch {
  const { metrics, alert } = options;
  let running: Promise<void> | null = null;
  const read = async (): Promise<void> => {
    try {
      const account = await fetchDebitAccount(options.service, options.accountId, {
        requestId: `balance-${randomUUID()}`,
      });
      const labels = { account: String(account.id), currency: account.balance.currency };
      metrics.debitBalance.set(labels, account.balance.minor);
      metrics.balanceChecks.inc({ outcome: 'ok' });
      if (!alert) return;
      if (alert.currency !== account.balance.currency) {
        log.error('LOW_BALANCE_ALERT is in another currency than the debit account: not compared', {
          account: account.id,
          alertCurrency: alert.currency,
          accountCurrency: account.balance.currency,
        });
        return;
      }
      const low = account.balance.minor < alert.minor;
      metrics.debitBalanceLow.set(labels, low ? 1 : 0);
      if (low)
        log.error('DEBIT ACCOUNT BALANCE LOW: top it up before purchases fail', {
          account: account.id,
          balance: formatMoney(account.balance),
          alertBelow: formatMoney(alert),
        });
    } catch (error) {
      metrics.balanceChecks.inc({ outcome: 'error' });
      log.warn('debit account balance could not be read', { error });
    }
  };
  const check = () => (running ??= read().finally(() => (running = null)));
  void check();
  const timer = options.everyMs > 0 ? setInterval(() => void check(), options.everyMs) : undefined;
  timer?.unref();
  return {
    check,
    stop: () => clearInterval(timer),
  };
}
