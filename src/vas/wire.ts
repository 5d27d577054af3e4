import { MalformedResponseError } from './errors';
import { MoneyFormatError, parseMoney, type Money } from './money';
import type {
  Account,
  IdentifierRule,
  ProductType,
  Transaction,
  TransactionStatus,
  VasProduct,
} from './port';
import { parseTokens } from './tokens';

/**
 * Wire bodies (sections 2.2–2.8) → port types. Any shape we cannot trust — a missing id, a bad
 * money string — is a MalformedResponseError: for confirm that means "outcome unknown", never a
 * guessed value.
 */

type Obj = Record<string, unknown>;

const PRODUCT_TYPES: readonly ProductType[] = ['ELECTRICITY', 'AIRTIME', 'WATER'];
const STATUSES: readonly TransactionStatus[] = ['ON_GOING', 'SUCCESSFUL', 'FAILED', 'PENDING'];

export class WireReader {
  constructor(
    private readonly what: string,
    private readonly requestId: string | null,
    private readonly status: number,
  ) {}

  fail(reason: string): never {
    throw new MalformedResponseError(`${this.what}: ${reason}`, this.requestId, this.status);
  }

  object(value: unknown, field: string): Obj {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      this.fail(`${field} is not an object`);
    return value as Obj;
  }

  array(value: unknown, field: string): unknown[] {
    if (!Array.isArray(value)) this.fail(`${field} is not an array`);
    return value;
  }

  string(obj: Obj, field: string): string {
    const value = obj[field];
    if (typeof value !== 'string') this.fail(`${field} is missing or not a string`);
    return value;
  }

  optionalString(obj: Obj, field: string): string | null {
    const value = obj[field];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string') this.fail(`${field} is not a string`);
    return value === '' ? null : value;
  }

  integer(obj: Obj, field: string): number {
    const value = obj[field];
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) this.fail(`${field} is not an integer`);
    return value;
  }

  optionalInteger(obj: Obj, field: string): number | null {
    return obj[field] === undefined || obj[field] === null ? null : this.integer(obj, field);
  }

  money(obj: Obj, field: string): Money {
    const value = obj[field];
    if (typeof value !== 'string') this.fail(`${field} is missing or not a money string`);
    return this.parse(field, value);
  }

  optionalMoney(obj: Obj, field: string): Money | null {
    const value = obj[field];
    if (value === undefined || value === null || value === '') return null;
    if (typeof value !== 'string') this.fail(`${field} is not a money string`);
    return this.parse(field, value);
  }

  productType(value: unknown, field: string): ProductType {
    if (!PRODUCT_TYPES.includes(value as ProductType)) this.fail(`${field} is not a known product type`);
    return value as ProductType;
  }

  transactionStatus(obj: Obj): TransactionStatus {
    const value = obj.status;
    if (!STATUSES.includes(value as TransactionStatus))
      this.fail(`status ${JSON.stringify(value)} is unknown`);
    return value as TransactionStatus;
  }

  /** Metadata values are strings; money-looking values are checked so a bad one cannot slip by. */
  metadata(value: unknown): Record<string, string> {
    if (value === undefined || value === null) return {};
    const obj = this.object(value, 'metadata');
    const out: Record<string, string> = {};
    for (const [key, item] of Object.entries(obj)) {
      if (typeof item === 'string') out[key] = item;
      else if (typeof item === 'number' || typeof item === 'boolean') out[key] = String(item);
    }
    for (const key of ['vat', 'levy', 'regulatory_fee', 'charge', 'cost']) {
      if (out[key] !== undefined && out[key] !== '') this.parse(`metadata.${key}`, out[key]);
    }
    return out;
  }

  private parse(field: string, value: string): Money {
    try {
      return parseMoney(value);
    } catch (error) {
      if (error instanceof MoneyFormatError) this.fail(`${field}: ${error.message}`);
      throw error;
    }
  }
}

/** `12.5kWh` (legacy) and `12.5 kWh` (v1) → `12.5 kWh`. */
export function normaliseUnits(units: string | null): string | null {
  if (units === null) return null;
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*$/.exec(units);
  return match ? `${match[1]} ${match[2]}` : units.trim();
}

/** The amounts, spelt alike by v1 and legacy transactions. */
function amountsOf(r: WireReader, t: Record<string, unknown>) {
  return {
    total: r.money(t, 'total'),
    net: r.money(t, 'net'),
    charge: r.money(t, 'charge'),
    commission: r.optionalMoney(t, 'commission'),
    entry: r.optionalMoney(t, 'entry'),
  };
}

/** The token (parsed, and as sent), the provider's id and the metadata: v1 and legacy alike. */
function tokenAndMetadata(
  rawToken: string | null,
  metadata: Transaction['metadata'],
  requestId: string | null,
) {
  return {
    tokens: parseTokens(rawToken),
    rawToken,
    providerTransactionId: metadata.provider_transaction_identifier ?? null,
    metadata,
    requestId,
  };
}

/** The v1 transaction envelope (2.2). */
export function parseV1Transaction(body: unknown, requestId: string | null, status: number): Transaction {
  const r = new WireReader('transaction', requestId, status);
  const t = r.object(body, 'body');
  const product = r.object(t.product, 'product');
  const metadata = r.metadata(t.metadata);
  const rawToken = r.optionalString(product, 'token');
  return {
    id: r.integer(t, 'id'),
    status: r.transactionStatus(t),
    reference: r.optionalString(t, 'reference'),
    productType: r.productType(product.type, 'product.type'),
    providerCode: r.optionalString(product, 'provider'),
    subscriberIdentifier: r.string(t, 'subscriber_identifier'),
    subscriberDetails: r.optionalString(t, 'subscriber_details'),
    ...amountsOf(r, t),
    units: normaliseUnits(r.optionalString(product, 'units')),
    ...tokenAndMetadata(rawToken, metadata, requestId),
  };
}

/** The legacy electricity transaction (2.8), mapped to the same shape as v1. */
export function parseLegacyTransaction(
  body: unknown,
  requestId: string | null,
  status: number,
  providerCode: string | null,
): Transaction {
  const r = new WireReader('legacy transaction', requestId, status);
  const t = r.object(body, 'body');
  const metadata = r.metadata(t.metadata);
  // Legacy spells the provider's meter descriptor differently; expose it under the v1 key too.
  if (metadata.provider_meter_details !== undefined && metadata.provider_subscriber_details === undefined) {
    metadata.provider_subscriber_details = metadata.provider_meter_details;
  }
  const rawToken = r.optionalString(t, 'token');
  return {
    id: r.integer(t, 'id'),
    status: r.transactionStatus(t),
    reference: r.optionalString(t, 'reference'),
    productType: 'ELECTRICITY',
    providerCode,
    subscriberIdentifier: r.string(t, 'meter_number'),
    subscriberDetails: r.optionalString(t, 'meter_details'),
    ...amountsOf(r, t),
    units: normaliseUnits(r.optionalString(t, 'electricity_units')),
    ...tokenAndMetadata(rawToken, metadata, requestId),
  };
}

/** One account (2.6). */
export function parseAccount(value: unknown, requestId: string | null, status: number): Account {
  const r = new WireReader('account', requestId, status);
  const a = r.object(value, 'account');
  return {
    id: r.integer(a, 'id'),
    name: r.string(a, 'name'),
    currency: r.string(a, 'currency'),
    category: r.string(a, 'category'),
    rank: r.optionalInteger(a, 'rank') ?? 0,
    balance: r.money(a, 'balance'),
  };
}

/** One catalogue entry (2.7). */
export function parseProduct(value: unknown, requestId: string | null, status: number): VasProduct {
  const r = new WireReader('vas product', requestId, status);
  const p = r.object(value, 'product');
  const providers = r.array(p.providers, 'providers').map((item) => {
    const provider = r.object(item, 'provider');
    return {
      code: r.string(provider, 'code'),
      name: r.optionalString(provider, 'name') ?? r.string(provider, 'code'),
    };
  });
  const minLength = r.optionalInteger(p, 'subscriber_id_min_length');
  const maxLength = r.optionalInteger(p, 'subscriber_id_max_length');
  const identifier: IdentifierRule = {
    label: r.optionalString(p, 'subscriber_id_label'),
    minLength,
    maxLength,
    pattern: r.optionalString(p, 'subscriber_id_pattern'),
    hint: r.optionalString(p, 'subscriber_id_hint'),
  };
  return {
    productType: r.productType(p.product_type, 'product_type'),
    displayName: r.string(p, 'display_name'),
    providers,
    identifier,
  };
}
