import { componentLogger } from '../observability/logger';
import type { Money } from '../vas/money';
import { AgentConflictError, AgentInputError } from './errors';
import { checkAmount, checkKey, checkReference, MAX_NOTE, type FloatAccount } from './float-account';
import type { CreditResult, Deposit, DepositDecision, TransferResult } from './ledger/store';
import type { Agent } from './types';

/**
 * Money into a float and between floats: an operator's credit and adjustment, the agent's own
 * paid top-up, bank deposits an operator approves or rejects, and a dealer's transfer to its
 * retailer. Each is applied once per reference.
 */

const log = componentLogger('agents');

/** An operator's or the agent's write to a float: reference, note and key checked, once per reference. */
export interface FloatCreditInput {
  amount: Money;
  reference: string;
  idempotencyKey?: string;
  note?: string;
}

export class FloatFunding {
  constructor(private readonly account: FloatAccount) {}

  /**
   * A dealer moves float to one of its retailers: both entries in one transaction, never more
   * than the dealer's float, never to an agent that is not its retailer, once per `reference`.
   */
  async transfer(
    dealer: Agent,
    retailerMsisdn: string,
    amountMinor: number,
    reference: string,
  ): Promise<TransferResult> {
    checkAmount('amount', amountMinor, false);
    checkReference(reference);
    const result = await this.account.store.transfer(
      dealer.msisdn,
      retailerMsisdn,
      amountMinor,
      reference,
      this.account.clock(),
    );
    if (result.status === 'transferred')
      log.info('dealer float transferred', {
        dealer: dealer.msisdn,
        retailer: retailerMsisdn,
        amount: this.account.format(amountMinor),
        reference,
      });
    return result;
  }

  /**
   * The agent's own top-up, paid through the payment provider: credited once per the provider's
   * reference (the same reference again: `duplicate`, nothing written). Call it once the payment
   * is known successful, never before.
   */
  creditTopUp(agent: Agent, amount: Money, paymentReference: string): Promise<CreditResult> {
    this.account.checkCurrency(amount);
    checkAmount('amount', amount.minor, false);
    return this.write(agent, 'topup', {
      amount,
      reference: `topup:${paymentReference}`,
      note: 'paid by the agent',
    });
  }

  /** A bank deposit the agent reports: pending until an operator decides; null when its reference was reported before. */
  reportDeposit(agent: Agent, amount: Money, bankReference: string): Promise<Deposit | null> {
    this.account.checkCurrency(amount);
    checkAmount('amount', amount.minor, false);
    if (agent.funding.kind !== 'float')
      throw new AgentConflictError('not_float', 'the agent sells from its own account: it has no float');
    const reference = bankReference.trim().toUpperCase();
    checkReference(`deposit:${reference}`);
    return this.account.store.reportDeposit(agent.msisdn, amount.minor, reference, this.account.clock());
  }

  depositByReference(bankReference: string): Promise<Deposit | null> {
    return this.account.store.depositByReference(bankReference.trim().toUpperCase());
  }

  /** An operator approves a pending deposit: credited in the same transaction, once. */
  async approveDeposit(id: number, by: string): Promise<DepositDecision> {
    const decision = await this.account.store.approveDeposit(id, by, this.account.clock());
    if (decision.status === 'approved')
      log.info('agent bank deposit approved', {
        msisdn: decision.deposit.msisdn,
        amount: this.account.format(decision.deposit.amountMinor),
        id,
        by,
      });
    return decision;
  }

  rejectDeposit(id: number, by: string, note: string | null): Promise<DepositDecision> {
    return this.account.store.rejectDeposit(id, by, this.account.clock(), note);
  }

  /** An operator's top-up of a float agent, applied once per reference and per idempotency key. */
  credit(agent: Agent, input: FloatCreditInput): Promise<CreditResult> {
    this.account.checkCurrency(input.amount);
    checkAmount('amount', input.amount.minor, false);
    return this.write(agent, 'credit', input);
  }

  /** An operator's correction (signed, with a note saying why), applied once per reference. */
  adjust(agent: Agent, input: FloatCreditInput & { note: string }): Promise<CreditResult> {
    this.account.checkCurrency(input.amount);
    checkAmount('amount', input.amount.minor, true);
    if (typeof input.note !== 'string' || input.note.trim() === '')
      throw new AgentInputError('note', 'an adjustment needs a note saying why');
    return this.write(agent, 'adjustment', input);
  }

  private async write(
    agent: Agent,
    kind: 'credit' | 'adjustment' | 'topup',
    input: FloatCreditInput,
  ): Promise<CreditResult> {
    if (agent.funding.kind !== 'float')
      throw new AgentConflictError(
        'not_float',
        'the agent sells from its own account: it has no float to credit',
      );
    const reference = typeof input.reference === 'string' ? input.reference.trim() : '';
    checkReference(reference);
    const note = input.note?.trim();
    if (note !== undefined && note.length > MAX_NOTE)
      throw new AgentInputError('note', `note must be at most ${MAX_NOTE} characters`);
    if (input.idempotencyKey !== undefined) checkKey(input.idempotencyKey, 'idempotencyKey');
    const result = await this.account.store.credit(agent.msisdn, {
      kind,
      amountMinor: input.amount.minor,
      reference,
      ...(input.idempotencyKey !== undefined && { idempotencyKey: input.idempotencyKey }),
      ...(note !== undefined && note !== '' && { note }),
      at: this.account.clock(),
    });
    if (result.status === 'credited')
      log.info(`agent float ${kind}`, {
        msisdn: agent.msisdn,
        amount: this.account.format(input.amount.minor),
        reference,
        seq: result.entry.seq,
      });
    return result;
  }
}
