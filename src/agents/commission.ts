import { parseDecimalAmount } from '../vas/money';
import type { ProductType } from '../vas/port';

/**
 * Commission on an agent's sale (`AGENT_COMMISSION`, or the agent's own policy): per product, a
 * percentage of the amount sold, a fixed amount per sale, or a share of the `commission` the
 * purchase service answered the confirm with. Pure; amounts in exact minor units, rounded down.
 *
 *   ELECTRICITY:2%,AIRTIME:3%,WATER:1%     a percentage of the amount (2 decimals: 2.5%)
 *   ELECTRICITY:BWP 1.00                    a fixed amount per sale (the floats' currency)
 *   service:50%  or  AIRTIME:service 50%    a share of the service's commission (every product, or one)
 *   *:1%                                    every product not named
 */
export type CommissionRule =
  { kind: 'percent'; bp: number } | { kind: 'fixed'; minor: number } | { kind: 'service'; bp: number };

export type CommissionPolicy = Partial<Record<ProductType | '*', CommissionRule>>;

const PRODUCTS: readonly string[] = ['ELECTRICITY', 'AIRTIME', 'WATER', '*'];

/** `2%`, `2.5%`, `100%` → basis points; null when it is not one. */
export function parsePercent(text: string): number | null {
  const match = /^(\d{1,3}(?:\.\d{1,2})?)\s*%$/.exec(text.trim());
  if (!match) return null;
  const [whole, fraction = ''] = match[1].split('.');
  const bp = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return bp <= 10_000 ? bp : null;
}

/** Parse a policy; throws an Error naming the part that is wrong. Empty text: no commission. */
export function parseCommissionPolicy(text: string | undefined, currency: string): CommissionPolicy {
  const policy: CommissionPolicy = {};
  if (text === undefined || text.trim() === '') return policy;
  for (const part of text.split(',')) {
    const colon = part.indexOf(':');
    if (colon < 0) throw new Error(`"${part.trim()}" is not PRODUCT:RULE (e.g. ELECTRICITY:2%)`);
    let product = part.slice(0, colon).trim().toUpperCase();
    let rule = part.slice(colon + 1).trim();
    if (product === 'SERVICE') {
      product = '*';
      rule = `service ${rule}`;
    }
    if (!PRODUCTS.includes(product))
      throw new Error(`"${product}" is not a product (ELECTRICITY, AIRTIME, WATER or *)`);
    if (policy[product as ProductType | '*']) throw new Error(`${product} is named twice`);
    policy[product as ProductType | '*'] = parseRule(rule, currency);
  }
  return policy;
}

function parseRule(text: string, currency: string): CommissionRule {
  const service = /^service[\s:]+(.+)$/i.exec(text);
  if (service) {
    const bp = parsePercent(service[1]);
    if (bp === null) throw new Error(`"${text}": a share of the service's commission is a percentage`);
    return { kind: 'service', bp };
  }
  const bp = parsePercent(text);
  if (bp !== null) return { kind: 'percent', bp };
  // A fixed amount names its currency: a bare `2` (2%? 2.00?) is refused, not guessed.
  const fixed = new RegExp(`^${currency}\\s*(\\d+(?:\\.\\d+)?)$`, 'i').exec(text);
  const amount = fixed ? parseDecimalAmount(fixed[1]) : null;
  if (!amount?.ok)
    throw new Error(`"${text}" is not a percentage (2%) nor an amount with its currency (${currency} 1.00)`);
  return { kind: 'fixed', minor: amount.minor };
}

/** What a sale earns: the sale's product and amount, and the service's commission on it, if any. */
export interface SaleForCommission {
  productType: ProductType;
  amountMinor: number;
  serviceCommissionMinor: number | null;
}

/** The commission a sale earns under `policy` (0: none). */
export function commissionOf(policy: CommissionPolicy, sale: SaleForCommission): number {
  const rule = policy[sale.productType] ?? policy['*'];
  if (!rule) return 0;
  switch (rule.kind) {
    case 'fixed':
      return rule.minor;
    case 'percent':
      return share(sale.amountMinor, rule.bp);
    case 'service':
      return share(Math.max(0, sale.serviceCommissionMinor ?? 0), rule.bp);
  }
}

/** `minor × bp / 10 000`, rounded down, exact (BigInt: no float ever touches money). */
export function share(minor: number, bp: number): number {
  return Number((BigInt(minor) * BigInt(bp)) / 10_000n);
}

/** A retailer's commission split with its dealer: the dealer's `dealerBp` share, the rest the seller's. */
export function splitCommission(totalMinor: number, dealerBp: number): { seller: number; dealer: number } {
  const dealer = share(totalMinor, dealerBp);
  return { seller: totalMinor - dealer, dealer };
}
