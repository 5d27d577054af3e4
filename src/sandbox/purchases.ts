/**
 * Validate, confirm and retry (sections 1.2, 3, 4), shared by the v1 and legacy routes.
 * Checks run in a fixed order: request errors first (nothing recorded), then the provider's
 * verdict (a confirm that fails here is recorded FAILED so retry can answer with it), then the
 * debit. Nothing is debited by a request that fails.
 */
import { SandboxError } from './errors';
import { CATALOGUE, type SandboxUser } from './fixtures';
import type { Account, Ledger, Transaction } from './ledger';
import { formatMoney } from './money';
import { issueToken, profileFor, quoteProvider, SERVICE_CHARGE_MINOR, type Profile } from './pricing';
import type { ProductType } from './scenarios';

export interface PurchaseInput {
  origin: 'v1' | 'legacy';
  sourceChannel: string;
  productType: ProductType;
  providerCode: string;
  debitedAccountId: number;
  beneficiaryPhone: string;
  subscriberIdentifier: string;
  amountMinor: number;
  currency: string;
  chargesOnTop: boolean;
  comment: string | null;
  externalReference: string | null;
}

const MSISDN = /^[1-9][0-9]{7,14}$/;

/** Gaborone wall-clock time (UTC+2, no DST) as `YYYY-MM-DD HH:MM:SS`. */
export function formatDate(date: Date): string {
  return new Date(date.getTime() + 2 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
}

/** `TOP/<year>/<month>/<8 digits>` of an id `<yyyymm><8 digits>` (its local month). */
function reference(id: number): string {
  const digits = String(id);
  return `TOP/${digits.slice(0, 4)}/${digits.slice(4, 6)}/${digits.slice(6)}`;
}

export class Purchases {
  constructor(
    private readonly ledger: Ledger,
    private readonly meterLock: boolean,
  ) {}

  /** A quote: status ON_GOING, units and tariff breakdown, no state change. */
  validate(user: SandboxUser, input: PurchaseInput): Transaction {
    const { account, profile } = this.checkRequest(user, input);
    return this.price(user, input, account, profile, 'ON_GOING');
  }

  /**
   * Performs a purchase. Returns SUCCESSFUL, or PENDING for the delayed meter (the caller
   * completes it after the delay). With `providerFails` (a fault injection) the provider
   * "declines" after the checks: the transaction is recorded FAILED and returned.
   */
  confirm(user: SandboxUser, input: PurchaseInput, providerFails = false): Transaction {
    const { account, profile } = this.checkRequest(user, input);
    const pending = this.ledger.pendingOn(input.subscriberIdentifier);
    if (pending) {
      throw new SandboxError(
        'transaction_pending',
        `Transaction ${pending.reference} on this subscriber is still pending; wait and retry`,
        null,
      );
    }
    let transaction: Transaction;
    try {
      transaction = this.price(user, input, account, profile, 'PENDING');
    } catch (err) {
      if (err instanceof SandboxError) this.recordFailure(user, input, account, err);
      throw err;
    }
    this.ledger.record(transaction);
    if (providerFails) {
      transaction.status = 'FAILED';
      transaction.failure = new SandboxError(
        'provider_error',
        'The provider did not complete the purchase',
        null,
        false,
      );
      transaction.completedAt = new Date();
      return transaction;
    }
    try {
      this.ledger.debit(account.id, transaction.totalMinor, transaction.id);
    } catch (err) {
      transaction.status = 'FAILED';
      transaction.failure = err as SandboxError;
      transaction.completedAt = new Date();
      throw err;
    }
    transaction.debitedMinor = transaction.totalMinor;
    if (!profile?.delayed) this.complete(transaction);
    return transaction;
  }

  /** Completes a PENDING transaction: token and provider id issued, status SUCCESSFUL. */
  complete(transaction: Transaction): void {
    if (transaction.status !== 'PENDING') return;
    const profile = profileFor(transaction.productType, transaction.subscriberIdentifier, false) as Profile;
    transaction.token = issueToken(transaction.productType, profile, transaction.id);
    transaction.providerTransactionId = `${transaction.providerCode}${String(transaction.id).padStart(10, '0')}`;
    transaction.status = 'SUCCESSFUL';
    transaction.completedAt = new Date();
  }

  /** Retry (1.2): the original success, the original failure, or 404/409/403. */
  retry(user: SandboxUser, subscriberIdentifier: string, externalReference: string): Transaction {
    if (!user.canPurchase) throw new SandboxError('missing_permission', 'Your role may not retry purchases');
    const original = this.ledger.lookup(user.id, subscriberIdentifier, externalReference);
    if (!original) {
      throw new SandboxError(
        'transaction_not_found',
        'No transaction found for this subscriber identifier and external reference',
        'external_reference',
      );
    }
    if (this.ledger.account(original.accountId)?.managedRetries) {
      throw new SandboxError(
        'retries_disabled',
        'Retries are not enabled for this transaction: its account is in managed-retry mode',
      );
    }
    if (original.status === 'PENDING') {
      throw new SandboxError(
        'transaction_pending',
        `Transaction ${original.reference} is still pending with the provider; wait and retry`,
      );
    }
    if (original.status === 'FAILED' && original.failure) throw original.failure;
    return original;
  }

  /** Request-level checks; failures here are the caller's fault and leave no record. */
  private checkRequest(
    user: SandboxUser,
    input: PurchaseInput,
  ): { account: Account; profile: Profile | null } {
    if (!user.canPurchase) throw new SandboxError('missing_permission', 'Your role may not make purchases');
    const product = CATALOGUE.find((p) => p.product_type === input.productType);
    if (!product) throw new SandboxError('invalid_argument', 'Unknown product_type', 'product_type');
    if (!product.providers.some((p) => p.code === input.providerCode)) {
      throw new SandboxError(
        'invalid_argument',
        `provider_code must be one of ${product.providers.map((p) => p.code).join(', ')} for ${input.productType}`,
        'provider_code',
      );
    }
    const account = this.ledger.account(input.debitedAccountId);
    if (!account || account.ownerId !== user.id) {
      throw new SandboxError(
        'resource_not_found',
        `Account ${input.debitedAccountId} not found`,
        'debited_account_id',
      );
    }
    if (input.currency !== account.currency) {
      throw new SandboxError(
        'invalid_argument',
        `currency ${input.currency} does not match the account currency ${account.currency}`,
        'currency',
      );
    }
    if (!MSISDN.test(input.beneficiaryPhone)) {
      throw new SandboxError(
        'invalid_msisdn',
        'beneficiary_phone_number must be E.164 digits, e.g. 26771234567',
        'beneficiary_phone_number',
      );
    }
    const id = input.subscriberIdentifier;
    const rule = new RegExp(product.subscriber_id_pattern ?? '.*');
    if (!rule.test(id)) {
      if (input.productType === 'ELECTRICITY') {
        throw new SandboxError(
          'invalid_meter_number',
          'Meter number must be 11 to 13 digits',
          'subscriber_identifier',
        );
      }
      if (input.productType === 'AIRTIME') {
        throw new SandboxError(
          'invalid_msisdn',
          'Airtime subscriber_identifier must be a Botswana mobile number, e.g. 26771234567',
          'subscriber_identifier',
        );
      }
      throw new SandboxError(
        'invalid_argument',
        'Water account number must be 10 digits',
        'subscriber_identifier',
      );
    }
    return { account, profile: profileFor(input.productType, id, this.meterLock) };
  }

  /** The provider's verdict and the price; throws the scenario's error. */
  private price(
    user: SandboxUser,
    input: PurchaseInput,
    account: Account,
    profile: Profile | null,
    status: 'ON_GOING' | 'PENDING',
  ): Transaction {
    if (!profile) {
      throw new SandboxError(
        'meter_not_allowed',
        'Staging is locked to the sandbox test identifiers; see GET /sandbox/scenarios',
        'subscriber_identifier',
      );
    }
    if (profile.refusal) throw profile.refusal();
    const serviceCharge = SERVICE_CHARGE_MINOR[input.productType];
    if (!input.chargesOnTop && input.amountMinor <= serviceCharge) {
      throw new SandboxError(
        'amount_below_charges',
        `Amount must exceed the charges of ${formatMoney(serviceCharge, account.currency)}`,
        'amount',
      );
    }
    const net = input.chargesOnTop ? input.amountMinor : input.amountMinor - serviceCharge;
    const total = input.chargesOnTop ? input.amountMinor + serviceCharge : input.amountMinor;
    if (profile.minimumExclusiveMinor !== null && net <= profile.minimumExclusiveMinor) {
      throw new SandboxError(
        'amount_below_minimum',
        `Minimum vend: the amount must be greater than ${formatMoney(profile.minimumExclusiveMinor, account.currency)}`,
        'amount',
      );
    }
    if (profile.maximumMinor !== null && net > profile.maximumMinor) {
      throw new SandboxError(
        'amount_above_maximum',
        `Purchase amount cannot be greater than ${formatMoney(profile.maximumMinor, account.currency)}`,
        'amount',
      );
    }
    return {
      ...this.newRow(user, input, account, status),
      netMinor: net,
      chargeMinor: serviceCharge,
      totalMinor: total,
      subscriberDetails: input.productType === 'AIRTIME' ? null : profile.consumer,
      quote: quoteProvider(input.productType, profile, net),
    };
  }

  /** A ledger row for this request with nothing priced, issued or debited yet. */
  private newRow(
    user: SandboxUser,
    input: PurchaseInput,
    account: Account,
    status: Transaction['status'],
  ): Transaction {
    const now = new Date();
    const id = this.ledger.allocateId(now);
    const serviceCharge = SERVICE_CHARGE_MINOR[input.productType];
    return {
      id,
      reference: reference(id),
      status,
      origin: input.origin,
      userId: user.id,
      accountId: account.id,
      productType: input.productType,
      providerCode: input.providerCode,
      subscriberIdentifier: input.subscriberIdentifier,
      externalReference: input.externalReference,
      sourceChannel: input.sourceChannel,
      beneficiaryPhone: input.beneficiaryPhone,
      comment: input.comment,
      amountMinor: input.amountMinor,
      netMinor: input.chargesOnTop ? input.amountMinor : Math.max(0, input.amountMinor - serviceCharge),
      chargeMinor: serviceCharge,
      totalMinor: input.chargesOnTop ? input.amountMinor + serviceCharge : input.amountMinor,
      commissionMinor: 0,
      subscriberDetails: null,
      quote: { metadata: {}, units: null, unitName: null },
      token: null,
      providerTransactionId: null,
      debitedMinor: 0,
      failure: null,
      createdAt: now,
      completedAt: null,
    };
  }

  private recordFailure(
    user: SandboxUser,
    input: PurchaseInput,
    account: Account,
    failure: SandboxError,
  ): void {
    const row = this.newRow(user, input, account, 'FAILED');
    this.ledger.record({ ...row, failure, completedAt: row.createdAt });
  }
}
