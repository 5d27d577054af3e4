import { randomUUID } from 'node:crypto';

/**
 * The audit trail of customer care: who did what to which purchase, when, and why. Written
 * before the action's answer is given (a reveal before anything is shown), so nothing an
 * operator did or saw is missing from it. Entries carry ids and the operator's note, never a
 * full number or token.
 */

export type CareAction =
  | 'resolve'
  | 'reconcile'
  | 'reveal'
  | 'resend_sms'
  // Complaint cases (cases.ts), the operator's notice and a data-deletion request (src/subscribers).
  | 'case_open'
  | 'case_close'
  | 'notice_set'
  | 'notice_clear'
  | 'forget'
  // A payment notice no payment took, closed once its money was dealt with (src/payments/unmatched.ts).
  | 'resolve_unmatched'
  // A payment whose outcome nobody learnt, looked up at the provider by a person (src/payments/unknown.ts).
  | 'review_unknown_payment'
  // Operator accounts and their console sessions (src/operators), and any other change an
  // operator made through the admin API (its method, path and answer's status).
  | OperatorAction
  | 'admin_change'
  // The reconciliation's mismatch queue (src/reconciliation/queue.ts): worked like a case.
  | 'mismatch_assign'
  | 'mismatch_note'
  | 'mismatch_close'
  // A mismatch a later run no longer finds (its statement came, the vend was found), closed by the run.
  | 'mismatch_clear'
  // A provider statement imported, money moved on the wallet declared (src/reconciliation/service.ts).
  | 'statement_import'
  | 'wallet_topup';

export type OperatorAction =
  | 'operator_add'
  | 'operator_reset'
  | 'operator_disable'
  | 'operator_enable'
  | 'operator_password'
  | 'operator_token'
  | 'operator_token_revoke'
  | 'operator_login'
  | 'operator_logout'
  | 'operator_lockout';

export interface AuditEntry {
  id: string;
  /** ISO time. */
  at: string;
  /** The operator's name (console or personal token), the admin token's label (`ADMIN_TOKENS`), or `cli:<user>`. */
  actor: string;
  action: CareAction;
  purchaseId: string | null;
  note: string | null;
  /** What was asked (a reveal: the request, numbers masked). */
  detail: string | null;
}

export type AuditInput = Pick<AuditEntry, 'actor' | 'action'> &
  Partial<Pick<AuditEntry, 'purchaseId' | 'note' | 'detail'>>;

export interface AuditTrail {
  record(input: AuditInput): Promise<AuditEntry>;
  /** Newest first; one purchase's entries, or every entry. */
  list(options?: { purchaseId?: string; limit?: number }): Promise<AuditEntry[]>;
}

export const DEFAULT_AUDIT_LIMIT = 50;

/** A new entry for `input` at `now`: the trail makes its entries here. */
export function auditEntryOf(input: AuditInput, now: Date): AuditEntry {
  return {
    id: randomUUID(),
    at: now.toISOString(),
    actor: input.actor,
    action: input.action,
    purchaseId: input.purchaseId ?? null,
    note: input.note ?? null,
    detail: input.detail ?? null,
  };
}
