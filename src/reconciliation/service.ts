import { randomUUID } from 'node:crypto';
import { localDay } from '../i18n/local-time';
import { componentLogger } from '../observability/logger';
import type { AuditTrail } from '../purchases/care/audit';
import { noteOf } from '../purchases/care/care';
import type { Database } from '../records/database';
import { fetchDebitAccount } from '../sales/debit-account';
import type { PurchaseService } from '../vas';
import { formatMoney, parseMoney, type Money } from '../vas/money';
import { MismatchQueue } from './queue';
import {
  reconcileDay,
  ReconcileInputError,
  type DayReconciliation,
  type ReconcileSettings,
} from './reconcile';
import { pullDarajaDay, type DarajaPullSettings } from './statements/pull';
import { readStatement, type ReadOptions } from './statements/read';
import { declareTopUp, recordBalance, storeStatement, type ImportResult } from './store';

const log = componentLogger('reconciliation');

export interface ReconciliationOptions {
  db: Database;
  audit: AuditTrail;
  settings: ReconcileSettings;
  read: ReadOptions;
  /** The purchase service, to read the wallet's balance; absent: balances are not recorded. */
  service?: PurchaseService;
  /** Where Daraja's Pull Transactions API is to be asked; absent: M-Pesa by upload only. */
  darajaPull?: DarajaPullSettings;
  clock?: () => Date;
}

/**
 * The reconciliation's operations, for the admin routes, the CLI and the nightly run: import a
 * statement, pull one, record the wallet's balance, declare a top-up, reconcile a day, and the
 * mismatch queue. None moves money.
 */
export class Reconciliation {
  readonly queue: MismatchQueue;
  private readonly clock: () => Date;

  constructor(readonly options: ReconciliationOptions) {
    this.clock = options.clock ?? (() => new Date());
    this.queue = new MismatchQueue(options.db, options.audit, this.clock);
  }

  /** Reads and stores a statement file; a format not known is refused and nothing changes. */
  async importStatement(content: string | Buffer, actor: string, name?: string): Promise<ImportResult> {
    const parsed = readStatement(content, this.options.read);
    const result = await storeStatement(this.options.db, parsed, content, actor, this.clock());
    if (!result.duplicate)
      await this.options.audit.record({
        actor,
        action: 'statement_import',
        detail: `${parsed.format}${name ? ` ${name}` : ''}: ${result.lines} lines, ${result.added} new`,
      });
    log.info('statement imported', {
      format: parsed.format,
      lines: result.lines,
      added: result.added,
      duplicate: result.duplicate,
    });
    return result;
  }

  /** Pulls a day's M-Pesa transactions by Daraja's API, where it is set up; null when it is not. */
  async pull(day: string, actor: string): Promise<ImportResult | null> {
    const settings = this.options.darajaPull;
    if (!settings) return null;
    const content = await pullDarajaDay(settings, day, this.options.settings.timeZone);
    return this.importStatement(content, actor, `pull ${day}`);
  }

  /** Reads the debit account's balance now and records it (the day's boundaries, or when asked). */
  async recordBalance(source: string): Promise<{ accountId: number; at: string; balance: Money }> {
    const service = this.options.service;
    if (!service) throw new ReconcileInputError('no purchase service to read the balance from');
    const account = await fetchDebitAccount(service, this.options.settings.accountId, {
      requestId: `reconcile-${randomUUID()}`,
    });
    const at = this.clock();
    await recordBalance(this.options.db, { accountId: account.id, at, balance: account.balance, source });
    return { accountId: account.id, at: at.toISOString(), balance: account.balance };
  }

  /** Money the operator put into the wallet (negative: took out) outside the gateway. */
  async declareTopUp(
    input: { accountId: unknown; amount: unknown; at?: unknown; note: unknown },
    actor: string,
  ) {
    const accountId = Number(input.accountId);
    if (!Number.isSafeInteger(accountId) || accountId < 1)
      throw new ReconcileInputError('accountId must be an account id');
    let amount: Money;
    try {
      amount = parseMoney(String(input.amount ?? ''));
    } catch {
      throw new ReconcileInputError(
        'amount must be "<CCY> <amount>", e.g. "BWP 5000.00" (negative: money taken out)',
      );
    }
    if (amount.minor === 0) throw new ReconcileInputError('amount must not be zero');
    const at = input.at === undefined ? this.clock() : new Date(String(input.at));
    if (Number.isNaN(at.getTime())) throw new ReconcileInputError('at must be an ISO time');
    const note = noteOf(input.note, true)!;
    const id = await declareTopUp(this.options.db, { accountId, at, amount, note, actor, now: this.clock() });
    await this.options.audit.record({
      actor,
      action: 'wallet_topup',
      detail: `wallet top-up ${id}: ${formatMoney(amount)} on account ${accountId}`,
      note,
    });
    return { id, accountId, at: at.toISOString(), amount };
  }

  day(day: string, now?: Date): Promise<DayReconciliation> {
    return reconcileDay(this.options.db, this.options.audit, this.options.settings, day, now ?? this.clock());
  }

  /** The local day before `now` (`TZ`): what the nightly run reconciles. */
  yesterday(now: Date = this.clock()): string {
    const today = new Date(`${localDay(now, this.options.settings.timeZone)}T12:00:00Z`);
    return new Date(today.getTime() - 24 * 3600_000).toISOString().slice(0, 10);
  }
}
