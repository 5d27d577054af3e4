/**
 * The sandbox's state: wallet balances and every transaction, in memory. Debits happen here
 * and only here, synchronously, so two concurrent confirms can never both spend one balance.
 */
import { SandboxError } from './errors';
import { ACCOUNT_SEEDS, CURRENCY, type AccountSeed } from './fixtures';
import { formatMoney } from './money';
import type { ProviderQuote } from './pricing';
import type { ProductType } from './scenarios';

/** Ticks per second of the id clock: a month of them fits a reference's 8 digits (31 d × 86 400 s × 32 < 10⁸). */
const TICKS_PER_SECOND = 32;
/** The last id issued in this process: sandboxes started one after another here never repeat one. */
let lastId = 0;

/**
 * A transaction id unique across sandbox restarts without keeping any state: `<yyyymm><8 digits>`,
 * the digits counting 1/32 s ticks since the local month began (Gaborone, UTC+2), or one more than
 * the last id when ids come faster than that. A restarted sandbox starts from its clock, past
 * every id the previous one issued — unless that one ran ahead of its clock (over 32 ids a
 * second, sustained) until moments before the restart. References and tokens derive from it.
 */
export function nextTransactionId(now: Date): number {
  const local = new Date(now.getTime() + 2 * 3600_000);
  const monthStart = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), 1);
  const ticks = Math.floor(((local.getTime() - monthStart) * TICKS_PER_SECOND) / 1000);
  const month = local.getUTCFullYear() * 100 + local.getUTCMonth() + 1;
  lastId = Math.max(lastId + 1, month * 100_000_000 + ticks);
  return lastId;
}

export interface Account extends AccountSeed {
  currency: string;
}

export type TransactionStatus = 'ON_GOING' | 'PENDING' | 'SUCCESSFUL' | 'FAILED';

export interface Transaction {
  id: number;
  reference: string;
  status: TransactionStatus;
  /** The interface generation that created it (retry answers in the caller's own generation). */
  origin: 'v1' | 'legacy';
  userId: number;
  accountId: number;
  productType: ProductType;
  providerCode: string;
  subscriberIdentifier: string;
  externalReference: string | null;
  sourceChannel: string;
  beneficiaryPhone: string;
  comment: string | null;
  amountMinor: number;
  netMinor: number;
  chargeMinor: number;
  totalMinor: number;
  commissionMinor: number;
  subscriberDetails: string | null;
  quote: ProviderQuote;
  token: string | null;
  providerTransactionId: string | null;
  debitedMinor: number;
  failure: SandboxError | null;
  createdAt: Date;
  completedAt: Date | null;
}

/** One movement of a wallet: a purchase's debit, or money moved outside the interface. */
export interface Movement {
  accountId: number;
  at: Date;
  /** Signed: a debit is negative. */
  amountMinor: number;
  balanceAfterMinor: number;
  /** The purchase that debited it; null for an adjustment. */
  transactionId: number | null;
  note: string;
}

export class Ledger {
  private readonly accounts = new Map<number, Account>();
  private readonly transactions: Transaction[] = [];
  private readonly movements: Movement[] = [];

  constructor() {
    for (const seed of ACCOUNT_SEEDS) this.accounts.set(seed.id, { ...seed, currency: CURRENCY });
  }

  /** Next operation id (validate quotes take one too, without being stored): see {@link nextTransactionId}. */
  allocateId(now: Date): number {
    return nextTransactionId(now);
  }

  account(id: number): Account | undefined {
    return this.accounts.get(id);
  }

  accountsOf(userId: number): Account[] {
    return [...this.accounts.values()].filter((a) => a.ownerId === userId).sort((a, b) => a.rank - b.rank);
  }

  allAccounts(): Account[] {
    return [...this.accounts.values()];
  }

  /** Debits `totalMinor` or throws 402 insufficient_balance with the gap in the message. */
  debit(accountId: number, totalMinor: number, transactionId: number | null = null): void {
    const account = this.accounts.get(accountId);
    if (!account)
      throw new SandboxError('resource_not_found', `Account ${accountId} not found`, 'debited_account_id');
    if (account.balanceMinor < totalMinor) {
      const gap = totalMinor - account.balanceMinor;
      throw new SandboxError(
        'insufficient_balance',
        `Insufficient balance: ${formatMoney(totalMinor, account.currency)} required, ` +
          `${formatMoney(account.balanceMinor, account.currency)} available, ` +
          `short by ${formatMoney(gap, account.currency)}`,
        'amount',
      );
    }
    account.balanceMinor -= totalMinor;
    this.movements.push({
      accountId,
      at: new Date(),
      amountMinor: -totalMinor,
      balanceAfterMinor: account.balanceMinor,
      transactionId,
      note: transactionId === null ? 'debit' : `purchase ${transactionId}`,
    });
  }

  /**
   * Money moved on the wallet outside the interface (a top-up, a debit by the operator's own
   * back office): it changes the balance and shows in the movements, never in a transaction.
   */
  adjust(accountId: number, amountMinor: number, note: string): Movement {
    const account = this.accounts.get(accountId);
    if (!account) throw new SandboxError('resource_not_found', `Account ${accountId} not found`);
    account.balanceMinor += amountMinor;
    const movement = {
      accountId,
      at: new Date(),
      amountMinor,
      balanceAfterMinor: account.balanceMinor,
      transactionId: null,
      note,
    };
    this.movements.push(movement);
    return movement;
  }

  /** One wallet's movements, oldest first. */
  movementsOf(accountId: number): readonly Movement[] {
    return this.movements.filter((m) => m.accountId === accountId);
  }

  record(transaction: Transaction): void {
    this.transactions.push(transaction);
  }

  all(): readonly Transaction[] {
    return this.transactions;
  }

  /** A transaction on this subscriber still in flight (scenario 6), if any. */
  pendingOn(subscriberIdentifier: string): Transaction | undefined {
    return this.transactions.find(
      (t) => t.status === 'PENDING' && t.subscriberIdentifier === subscriberIdentifier,
    );
  }

  /**
   * Retry lookup (1.2): the caller's transactions with this subscriber and external reference.
   * A pending or successful one wins over failures: retry answers "did my money buy something?".
   */
  lookup(userId: number, subscriberIdentifier: string, externalReference: string): Transaction | undefined {
    const matches = this.transactions.filter(
      (t) =>
        t.userId === userId &&
        t.subscriberIdentifier === subscriberIdentifier &&
        t.externalReference === externalReference,
    );
    const latest = (status: TransactionStatus): Transaction | undefined =>
      matches.filter((t) => t.status === status).at(-1);
    return latest('PENDING') ?? latest('SUCCESSFUL') ?? latest('FAILED');
  }
}
