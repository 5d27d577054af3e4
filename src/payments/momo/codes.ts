import { createHash } from 'node:crypto';
import { wireTable } from '../../http/wire-table';
import type { PaymentFailureReason } from '../port';

/** The `reason` of a FAILED request-to-pay (a string, or `{code, message}`) as the buyer's reason. */
export const MOMO_REASONS = wireTable<PaymentFailureReason>({
  NOT_ENOUGH_FUNDS: 'insufficient_funds',
  // "Predominantly" insufficient funds, MTN says; not certainly.
  INTERNAL_PROCESSING_ERROR: 'other',
  PAYER_NOT_FOUND: 'unreachable',
  PAYER_LIMIT_REACHED: 'limit_reached',
  SENDER_ACCOUNT_NOT_ACTIVE: 'account_blocked',
  APPROVAL_REJECTED: 'declined',
  PAYMENT_NOT_APPROVED: 'declined',
  TRANSACTION_CANCELED: 'declined',
  EXPIRED: 'expired',
  // Not approved in time ("within 5 minutes").
  COULD_NOT_PERFORM_TRANSACTION: 'expired',
  RESOURCE_NOT_FOUND: 'not_found',
  NOT_ALLOWED: 'other',
  NOT_ALLOWED_TARGET_ENVIRONMENT: 'other',
  INVALID_CALLBACK_URL_HOST: 'other',
  INVALID_CURRENCY: 'other',
  SERVICE_UNAVAILABLE: 'other',
  PAYEE_NOT_FOUND: 'other',
  RESOURCE_ALREADY_EXIST: 'other',
});

/** `status` of a request-to-pay or refund; any other value (or none) is still pending. */
export const MOMO_STATES = wireTable<'successful' | 'failed'>({ SUCCESSFUL: 'successful', FAILED: 'failed' });

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/**
 * MoMo's `X-Reference-Id` for one of our references. MoMo requires a UUID v4 and de-duplicates
 * on it (409 on reuse), which is what makes a resend safe — so the same reference must always
 * give the same id. A reference that is a UUID v4 is used as it is (lower case); any other is
 * hashed (SHA-256) into one, with the version and variant bits of a v4 set: the same reference
 * always gives the same id, and two references practically never share one. Nothing needs to be
 * stored beside the reference.
 */
export function momoReferenceId(reference: string): string {
  if (UUID_V4.test(reference)) return reference.toLowerCase();
  const bytes = createHash('sha256').update(`momo-reference:${reference}`, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
