import { ScriptReplyError } from '../../redis/scripts';
import type { LimitName } from './store';

/** Return codes of the float scripts (`commands/*.lua`), as their headers list them. */
export enum FloatCode {
  Written = 1,
  /** The key, reference or reservation was applied before: nothing written. */
  Already = 2,
  /** reserve: the purchase key holds another amount; settle/release: no reservation. */
  Mismatch = -1,
  /** The float does not cover it. */
  Insufficient = -2,
  OverMaxSale = -3,
  OverDayValue = -4,
  OverDayCount = -5,
  /** credit: the reference or idempotency key was used for another amount. */
  Conflict = -6,
}

/** The limit a refusal code names. */
export const LIMIT_OF: Partial<Record<FloatCode, LimitName>> = {
  [FloatCode.OverMaxSale]: 'max_sale',
  [FloatCode.OverDayValue]: 'day_value',
  [FloatCode.OverDayCount]: 'day_count',
};

/** Refuse a code a script's header does not list for it. */
export function expectCode(command: string, code: unknown, allowed: readonly FloatCode[]): FloatCode {
  if (!allowed.includes(code as FloatCode)) throw new ScriptReplyError(command, code);
  return code as FloatCode;
}
