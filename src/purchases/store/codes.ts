import { ScriptReplyError } from '../../redis/scripts';

/** Return codes of the purchase scripts (`commands/*.lua`), as their headers list them. */
export enum PurchaseCode {
  /** Created or transitioned. */
  Written = 1,
  /** transitionPurchase: no such record. */
  NotFound = -1,
  /** transitionPurchase: version or state changed since the caller read the record. */
  Conflict = -2,
  /** createPurchase: the idempotency key already names a purchase; nothing written. */
  KeyTaken = -3,
}

/** What a purchase script's code means; anything unlisted is a bug. */
export function purchaseOutcome(
  command: string,
  code: unknown,
): 'written' | 'not_found' | 'conflict' | 'key_taken' {
  switch (code) {
    case PurchaseCode.Written:
      return 'written';
    case PurchaseCode.NotFound:
      return 'not_found';
    case PurchaseCode.Conflict:
      return 'conflict';
    case PurchaseCode.KeyTaken:
      return 'key_taken';
    default:
      throw new ScriptReplyError(command, code);
  }
}
