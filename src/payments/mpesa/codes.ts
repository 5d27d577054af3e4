import { wireTable } from '../../http/wire-table';
import type { PaymentFailureReason } from '../port';

/**
 * Daraja's STK `ResultCode`s (callback: a number; query: a string) and what each means for the
 * money. 0 is the only payment; every other code is final and not paid — one nobody listed here
 * too (`other`). Only the query's "being processed" error is still pending (see adapter.ts).
 */
export const STK_RESULTS = wireTable<
  { state: 'successful' } | { state: 'failed'; reason: PaymentFailureReason }
>({
  0: { state: 'successful' },
  1: { state: 'failed', reason: 'insufficient_funds' },
  // Below the minimum, above the maximum, the daily limit, the payee's balance limit.
  2: { state: 'failed', reason: 'limit_reached' },
  3: { state: 'failed', reason: 'limit_reached' },
  4: { state: 'failed', reason: 'limit_reached' },
  8: { state: 'failed', reason: 'limit_reached' },
  // Same amount to the same customer within 2 minutes.
  17: { state: 'failed', reason: 'limit_reached' },
  // An active USSD session holds the subscriber (third-party list).
  1001: { state: 'failed', reason: 'unreachable' },
  1019: { state: 'failed', reason: 'expired' },
  // The prompt could not be sent (longer than 182 characters): our request, not the payer.
  1025: { state: 'failed', reason: 'other' },
  9999: { state: 'failed', reason: 'other' },
  1031: { state: 'failed', reason: 'declined' },
  1032: { state: 'failed', reason: 'declined' },
  // Phone off, busy, or in another session.
  1037: { state: 'failed', reason: 'unreachable' },
  2001: { state: 'failed', reason: 'wrong_pin' },
  2028: { state: 'failed', reason: 'other' },
  SFC_IC0003: { state: 'failed', reason: 'other' },
  8006: { state: 'failed', reason: 'account_blocked' },
});

/**
 * Reversal `ResultCode`s (a number or a string): 0 reversed; R000001 reversed before (by us or by
 * hand): the money is back either way. Anything else: not reversed.
 */
export const REVERSAL_REFUNDED = wireTable<{ alreadyRefunded: boolean }>({
  0: { alreadyRefunded: false },
  R000001: { alreadyRefunded: true },
});
