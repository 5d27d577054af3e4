import type { Money } from './money';
import type { Token } from './tokens';

/**
 * The one interface the rest of the gateway uses to talk to the purchase service. Two
 * adapters implement it (v1 and legacy); callers never know which one answered.
 * Every method throws a `PurchaseCallError` (see errors.ts) on failure.
 */
export type ProductType = 'ELECTRICITY' | 'AIRTIME' | 'WATER';
export type SourceChannel = 'WEB' | 'SMART_APP' | 'USSD' | 'BATCH' | 'POS' | 'SMS_MO';
export type TransactionStatus = 'ON_GOING' | 'SUCCESSFUL' | 'FAILED' | 'PENDING';

/** Ties a call to the hop or job that made it; sent as `X-Request-Id` (≤ 128 characters). */
export interface CallContext {
  requestId: string;
}

export interface Provider {
  code: string;
  name: string;
}

export interface IdentifierRule {
  label: string | null;
  minLength: number | null;
  maxLength: number | null;
  /** JS-compatible regular expression source, as the catalogue gives it. */
  pattern: string | null;
  /**
   * The admin-curated hint, or null: then `derivedHint` (catalogue.ts) derives one from min/max,
   * shown in the caller's language (USSD screens) or in English (`identifierHint`, the CLI).
   */
  hint: string | null;
}

export interface VasProduct {
  productType: ProductType;
  displayName: string;
  providers: Provider[];
  identifier: IdentifierRule;
}

export interface Account {
  id: number;
  name: string;
  currency: string;
  category: 'CURRENT' | 'COMMISSION' | 'TOPUP' | string;
  rank: number;
  balance: Money;
}

export interface PurchaseRequest {
  sourceChannel: SourceChannel;
  /** Locale tag `xx-XX`. */
  language: string;
  productType: ProductType;
  providerCode: string;
  debitedAccountId: number;
  /** E.164 digits, no `+`. */
  beneficiaryPhoneNumber: string;
  subscriberIdentifier: string;
  amount: Money;
  chargesOnTop?: boolean;
  comment?: string;
  externalReference?: string;
}

export interface RetryRequest {
  sourceChannel: SourceChannel;
  language: string;
  productType: ProductType;
  subscriberIdentifier: string;
  externalReference: string;
}

/** A validate/confirm/retry result, product-agnostic (section 2.2), whichever adapter answered. */
export interface Transaction {
  id: number;
  status: TransactionStatus;
  reference: string | null;
  productType: ProductType;
  providerCode: string | null;
  subscriberIdentifier: string;
  /** Provider-verified consumer name (electricity, water). */
  subscriberDetails: string | null;
  total: Money;
  net: Money;
  charge: Money;
  commission: Money | null;
  entry: Money | null;
  /** `45.2 kWh`, `1000 L`; null for airtime. */
  units: string | null;
  /** Parsed tokens in the order returned; empty on validate and for airtime. */
  tokens: Token[];
  /** The token string exactly as the service sent it. */
  rawToken: string | null;
  providerTransactionId: string | null;
  metadata: Record<string, string>;
  /** The `X-Request-Id` the service answered with. */
  requestId: string | null;
}

export interface PurchaseService {
  listProducts(ctx: CallContext): Promise<VasProduct[]>;
  listAccounts(ctx: CallContext): Promise<Account[]>;
  getAccount(id: number, ctx: CallContext): Promise<Account>;
  /** Quote: no state change on the server. */
  validate(request: PurchaseRequest, ctx: CallContext): Promise<Transaction>;
  /** Buy: debits funds. NEVER retried by the client; the caller reconciles with `retry`. */
  confirm(request: PurchaseRequest, ctx: CallContext): Promise<Transaction>;
  /** Look up an earlier confirm by subscriber identifier + external reference. */
  retry(request: RetryRequest, ctx: CallContext): Promise<Transaction>;
}
