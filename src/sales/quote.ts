import { purchaseRequest } from '../purchases/request';
import type { PurchaseIntent } from '../purchases/types';
import { SpendRefusedError, type SpendRefusal } from '../spend/rules';
import type { ServiceErrorInfo } from '../vas/error-info';
import type { PurchaseRequest, Transaction } from '../vas/port';

/**
 * Quote a sale, the same for every channel (the USSD `quote` actor, an SMS purchase command):
 * the operator's spending rules, then the purchase service's validate, then — an agent's sale —
 * the agent's float and limits against the total it would pay. And where each refusal sends
 * the buyer. The quoted total is what the Buy hands in (buy.ts).
 */

/** What quoting calls; each is a read (nothing counted, nothing held). */
export interface QuotePorts {
  /** The operator's spending rules for this intent: why it is refused, or null. */
  checkSpend?(intent: PurchaseIntent): Promise<SpendRefusal | null>;
  /** The purchase service's validate; throws PurchaseServiceError / TransportError. */
  validate(request: PurchaseRequest): Promise<Transaction>;
  /** An agent's sale of `minor` against its float and limits: why it is refused, or null. */
  agentSaleCheck?(msisdn: string, minor: number): Promise<SpendRefusal | null>;
}

/**
 * The service's quote for `intent`. Throws {@link SpendRefusedError} when the spending rules or
 * the agent's float refuse it (an answer: {@link spendRoute}), else the service's own error
 * ({@link routeQuoteError}).
 */
export async function quoteSale(ports: QuotePorts, intent: PurchaseIntent): Promise<Transaction> {
  const refusal = await ports.checkSpend?.(intent);
  if (refusal) throw new SpendRefusedError(refusal);
  const tx = await ports.validate(purchaseRequest(intent));
  // The float pays the total (charges included): a quote it cannot pay is not shown.
  const overTotal =
    intent.agent && ports.agentSaleCheck
      ? await ports.agentSaleCheck(intent.agent.msisdn, tx.total.minor)
      : null;
  if (overTotal) throw new SpendRefusedError(overTotal);
  return tx;
}

/**
 * Where a failed quote sends the buyer: back to the identifier or the amount, "try later",
 * "unavailable", or `refused` — the end, saying why (the operator's spending rules, or the
 * provider refusing this subscriber for good, in its own words).
 */
export type QuoteErrorRoute = 'identifier' | 'amount' | 'tryLater' | 'unavailable' | 'refused';

/**
 * Where a refusal by the operator's spending rules sends the buyer: an amount out of the
 * product's range (or beyond the agent's float or limits) back to the amount; a daily limit, a
 * blocked number or a stopped agent to the end. Null for any other error.
 */
export function spendRoute(error: unknown): QuoteErrorRoute | null {
  if (!(error instanceof SpendRefusedError)) return null;
  const { code } = error.refusal;
  if (isAgentStopped(code)) return 'refused';
  return code === 'spend_below_minimum' || code === 'spend_above_maximum' || code.startsWith('agent_')
    ? 'amount'
    : 'refused';
}

/** The agent's account stopped selling (disabled, BLOCKed, locked): the sale ends saying so. */
export function isAgentStopped(code: string | undefined): boolean {
  return code === 'agent_disabled' || code === 'agent_locked';
}

/** Service codes the buyer fixes by typing the identifier again. */
export const IDENTIFIER_CODES: ReadonlySet<string> = new Set([
  'invalid_meter_number',
  'meter_not_found',
  'meter_not_allowed',
  'meter_blocked',
  'meter_unsupported',
]);
/** Service codes the buyer fixes with another amount. */
export const AMOUNT_CODES: ReadonlySet<string> = new Set([
  'amount_below_minimum',
  'amount_above_maximum',
  'amount_below_charges',
  'invalid_amount',
]);
/** Provider-side trouble the buyer can only wait out. */
const TRY_LATER_CODES = new Set([
  'provider_timeout',
  'provider_unavailable',
  'provider_busy',
  'provider_error',
  'upstream_error',
  'transaction_pending',
  'rate_limited',
  'transport_error',
]);
const TRY_LATER_TYPES = new Set(['provider_timeout', 'rate_limit_error']);

/**
 * Routes a quote (validate) failure. `airtime`: the beneficiary number is the identifier the
 * buyer typed, so `invalid_msisdn` is theirs to fix; otherwise the beneficiary is the caller's
 * own number, which re-typing a meter number cannot fix.
 */
export function routeQuoteError(
  err: Pick<ServiceErrorInfo, 'code' | 'type' | 'param'> & { retryable?: boolean },
  airtime: boolean,
): QuoteErrorRoute {
  if (IDENTIFIER_CODES.has(err.code)) return 'identifier';
  // "Purchase only allowed once the debt is paid": waiting will not help, the reason will.
  if (err.code === 'provider_error' && err.retryable === false) return 'refused';
  if (err.code === 'invalid_msisdn') return airtime ? 'identifier' : 'unavailable';
  if (err.code === 'invalid_argument' && err.param === 'subscriber_identifier') return 'identifier';
  if (err.code === 'invalid_argument' && err.param === 'amount') return 'amount';
  if (AMOUNT_CODES.has(err.code)) return 'amount';
  if (TRY_LATER_CODES.has(err.code) || (err.type !== null && TRY_LATER_TYPES.has(err.type)))
    return 'tryLater';
  return 'unavailable';
}

/**
 * The operator's own problems (credentials, permissions, balance, merchant credit, anything
 * unexpected): the buyer only sees "service unavailable", so the gateway must say why.
 */
export function isOperatorProblem(
  err: Pick<ServiceErrorInfo, 'code' | 'type' | 'param'>,
  airtime: boolean,
): boolean {
  return routeQuoteError(err, airtime) === 'unavailable';
}
