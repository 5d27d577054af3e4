/**
 * Operator fault injection (`POST /sandbox/faults`), on the shared fault book and timers
 * (`src/sandbox/kit`). Faults name an operation, not a wire format: `collect` hits the STK push
 * and the request-to-pay alike.
 */
import { Faults as FaultBook, type Fault as KitFault } from '../../sandbox/kit/faults';

export { Timers } from '../../sandbox/kit/timers';

export const FAULT_OPERATIONS = [
  'token',
  'collect',
  'status',
  'refund',
  'refund_status',
  'callback',
] as const;
export const FAULT_KINDS = ['unavailable', 'internal_error', 'slow', 'drop', 'not_found'] as const;

export type FaultOperation = (typeof FAULT_OPERATIONS)[number];
export type FaultKind = (typeof FAULT_KINDS)[number];

export type Fault = KitFault<FaultKind>;

/** The ambiguous faults (the answer is lost or late) complete; the clean 5xx refusals do not. */
export function defaultCompletes(kind: FaultKind): boolean {
  return kind === 'slow' || kind === 'drop';
}

/**
 * A callback can only be lost (`drop`) or late (`slow`): it has no answer to turn into a 5xx.
 * `not_found` (the wire's 404 for a refund it does not know yet: MoMo lags behind its own 202)
 * is a refund status query's only.
 */
export function validFault(operation: FaultOperation, kind: FaultKind): boolean {
  if (kind === 'not_found') return operation === 'refund_status';
  return operation !== 'callback' || kind === 'drop' || kind === 'slow';
}

export class Faults extends FaultBook<FaultOperation, FaultKind> {}
