import type { Money } from '../vas/money';
import type { SaleForCommission, CommissionPolicy } from './commission';
import { FloatAccount, type AgentFloatOptions } from './float-account';
import { FloatFunding, type FloatCreditInput } from './float-funding';
import { FloatSaleHolds, type Allowance, type SaleRefusal } from './float-holds';
import { FloatStatements, type Statement } from './float-statements';
import type {
  CommissionWrite,
  CreditResult,
  DayFigures,
  Deposit,
  DepositDecision,
  DepositState,
  FloatBalance,
  OutcomeResult,
  Reservation,
  ReserveResult,
  SettleSaleResult,
  TransferResult,
} from './ledger/store';
import type { Agent, ResolvedLimits } from './types';

/**
 * The agents' float and daily limits, one door for every caller: the API a sale uses (check on
 * the amount screen, reserve before the purchase is created, settle on success, release on a
 * definitive failure; an unknown outcome keeps its reservation until reconciliation decides),
 * the money in (credit, adjust, top-ups, deposits, transfers) and what operators and the day's
 * summary read (statement, day figures). Amounts are exact integer minor units. Each job is
 * written in its own module: `float-holds.ts`, `float-funding.ts`, `float-statements.ts`.
 */
export class AgentFloat {
  readonly currency: string;
  /** Zone of the local days limits and statements count in. */
  readonly timeZone: string;
  private readonly account: FloatAccount;
  private readonly holds: FloatSaleHolds;
  private readonly funding: FloatFunding;
  private readonly statements: FloatStatements;

  constructor(options: AgentFloatOptions) {
    this.account = new FloatAccount(options);
    this.currency = this.account.currency;
    this.timeZone = this.account.timeZone;
    this.holds = new FloatSaleHolds(this.account);
    this.funding = new FloatFunding(this.account);
    this.statements = new FloatStatements(this.account);
  }

  // The account (float-account.ts).

  limitsOf(agent: Pick<Agent, 'limits'>): ResolvedLimits {
    return this.account.limitsOf(agent);
  }
  today(): string {
    return this.account.today();
  }
  balance(msisdn: string): Promise<FloatBalance> {
    return this.account.store.balance(msisdn);
  }
  money(minor: number): Money {
    return this.account.money(minor);
  }
  format(minor: number): string {
    return this.account.format(minor);
  }

  // A sale's hold (float-holds.ts).

  allowance(agent: Agent): Promise<Allowance> {
    return this.holds.allowance(agent);
  }
  checkSale(agent: Agent, amountMinor: number): Promise<SaleRefusal | null> {
    return this.holds.checkSale(agent, amountMinor);
  }
  reserve(agent: Agent, purchaseKey: string, amountMinor: number): Promise<ReserveResult> {
    return this.holds.reserve(agent, purchaseKey, amountMinor);
  }
  settle(msisdn: string, purchaseKey: string): Promise<OutcomeResult> {
    return this.holds.settle(msisdn, purchaseKey);
  }
  commissionFor(seller: Agent, dealer: Agent | null, sale: SaleForCommission): CommissionWrite {
    return this.holds.commissionFor(seller, dealer, sale);
  }
  policyOf(agent: Pick<Agent, 'msisdn' | 'commission'>): CommissionPolicy {
    return this.holds.policyOf(agent);
  }
  settleSale(msisdn: string, purchaseKey: string, commission: CommissionWrite): Promise<SettleSaleResult> {
    return this.holds.settleSale(msisdn, purchaseKey, commission);
  }
  release(msisdn: string, purchaseKey: string): Promise<OutcomeResult> {
    return this.holds.release(msisdn, purchaseKey);
  }
  reservation(msisdn: string, purchaseKey: string): Promise<Reservation | null> {
    return this.holds.reservation(msisdn, purchaseKey);
  }

  // Money in and between floats (float-funding.ts).

  transfer(...args: Parameters<FloatFunding['transfer']>): Promise<TransferResult> {
    return this.funding.transfer(...args);
  }
  creditTopUp(agent: Agent, amount: Money, paymentReference: string): Promise<CreditResult> {
    return this.funding.creditTopUp(agent, amount, paymentReference);
  }
  reportDeposit(agent: Agent, amount: Money, bankReference: string): Promise<Deposit | null> {
    return this.funding.reportDeposit(agent, amount, bankReference);
  }
  deposit(id: number): Promise<Deposit | null> {
    return this.account.store.deposit(id);
  }
  depositByReference(bankReference: string): Promise<Deposit | null> {
    return this.funding.depositByReference(bankReference);
  }
  deposits(options: { state?: DepositState; msisdn?: string; limit?: number } = {}): Promise<Deposit[]> {
    return this.account.store.deposits(options);
  }
  approveDeposit(id: number, by: string): Promise<DepositDecision> {
    return this.funding.approveDeposit(id, by);
  }
  rejectDeposit(id: number, by: string, note: string | null): Promise<DepositDecision> {
    return this.funding.rejectDeposit(id, by, note);
  }
  credit(agent: Agent, input: FloatCreditInput): Promise<CreditResult> {
    return this.funding.credit(agent, input);
  }
  adjust(agent: Agent, input: FloatCreditInput & { note: string }): Promise<CreditResult> {
    return this.funding.adjust(agent, input);
  }

  // What the float did, read back (float-statements.ts).

  salesOn(msisdns: string | readonly string[], day?: string): Promise<{ count: number; valueMinor: number }> {
    return this.statements.salesOn(msisdns, day);
  }
  dayFigures(msisdn: string, day?: string): Promise<DayFigures> {
    return this.statements.dayFigures(msisdn, day);
  }
  saleCommission(msisdn: string, purchaseKey: string): Promise<number> {
    return this.statements.saleCommission(msisdn, purchaseKey);
  }
  commissionEarned(msisdn: string, day?: string): Promise<{ todayMinor: number; monthMinor: number }> {
    return this.statements.commissionEarned(msisdn, day);
  }
  activeOn(day?: string): Promise<string[]> {
    return this.statements.activeOn(day);
  }
  statement(msisdn: string, period?: { from?: Date; to?: Date }): Promise<Statement> {
    return this.statements.statement(msisdn, period);
  }
}
