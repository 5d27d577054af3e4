/**
 * Money nobody holds: success notices no payment of ours took (`payment_notices`, `unmatched`),
 * past the time any could still be matched — and success signals a payment of ours left `unknown`
 * or `failed` did not take: a callback of another amount or currency (`mismatch`), the
 * provider's status saying paid after a failure callback decided the payment (`overruled`), a
 * callback its status never confirmed nor refuted (`unverified`). The provider says a buyer paid;
 * nothing here will confirm or refund it, so a person must, and then resolves the notice with a
 * note (audited), so it leaves the list; one whose payment ends paid after all leaves it too. Shared by `/admin/payments/unmatched`, `npm run cli -- payments unmatched`
 * and `resolve-unmatched`, and the `payment_notices_unmatched` gauge.
 */
import type { PaymentLifecycleSettings } from './lifecycle/machine';
import { componentLogger, maskMsisdn } from '../observability/logger';
import type { AuditTrail } from '../purchases/care/audit';
import { noteOf } from '../purchases/care/care';
import { formatMoney } from '../vas/money';
import type { ResolvedUnmatched, UnmatchedRefusal, UnmatchedSuccess } from './store/notices';
import type { SqlPaymentStore } from './store/sql';

const log = componentLogger('payments');

export const DEFAULT_UNMATCHED_LIMIT = 50;
export const MAX_UNMATCHED_LIMIT = 500;
/** The oldest age one may ask for (a year): past it, a typing slip rather than a question. */
export const MAX_UNMATCHED_AGE_MS = 366 * 24 * 3600_000;

/**
 * How long after it came a success notice may still be matched to a payment of ours, so the
 * view lists none that the lifecycle may yet take (and confirm or give back by itself):
 * - a Daraja callback faster than its push's answer is matched when the answer comes: within
 *   the collect's budget, well inside the payer's window;
 * - the callback of a push whose answer was never written (providers that are not resend-safe:
 *   Daraja) is adopted by payer and amount (`lostPaymentNotice`) if it came between the request
 *   and the expiry + `marginMs`, at the payment's expiry and at every re-check while it is
 *   `unknown`: until `recheckForMs` after the expiry. The notice came no earlier than the
 *   request, so at that last look it is at most `windowMs + marginMs + recheckForMs` old;
 * - a resend-safe provider's notice (MoMo, the generic one) echoes our reference: matched as it
 *   comes or never, and never adopted; the payer's window and margin bound it generously.
 * A payment whose expiry was applied late (every worker stopped) re-checks that much later.
 */
export function matchableForMs(
  settings: Pick<PaymentLifecycleSettings, 'windowMs' | 'marginMs' | 'recheckForMs' | 'resendSafe'>,
): number {
  return settings.windowMs + settings.marginMs + (settings.resendSafe ? 0 : settings.recheckForMs);
}

/** A limit or an age the view cannot take: `field` names it, `rule` says what it must be. */
export class UnmatchedQueryError extends Error {
  constructor(
    readonly field: 'limit' | 'olderThanMs',
    readonly rule: string,
  ) {
    super(`${field} ${rule}`);
    this.name = 'UnmatchedQueryError';
  }
}

/** A whole number from `min` to `max` given as text (a query value, a flag); null when it is not one. */
function wholeNumber(raw: string, min: number, max: number): number | null {
  if (!/^\d{1,15}$/.test(raw)) return null;
  const n = Number(raw);
  return n >= min && n <= max ? n : null;
}

/** `limit` and `olderThanMs` as a query or flags gave them (undefined: the default). */
export function unmatchedQuery(given: { limit?: unknown; olderThanMs?: unknown }): {
  limit?: number;
  olderThanMs?: number;
} {
  const out: { limit?: number; olderThanMs?: number } = {};
  if (given.limit !== undefined) {
    const limit = typeof given.limit === 'string' ? wholeNumber(given.limit, 1, MAX_UNMATCHED_LIMIT) : null;
    if (limit === null)
      throw new UnmatchedQueryError('limit', `must be a whole number from 1 to ${MAX_UNMATCHED_LIMIT}`);
    out.limit = limit;
  }
  if (given.olderThanMs !== undefined) {
    const age =
      typeof given.olderThanMs === 'string' ? wholeNumber(given.olderThanMs, 0, MAX_UNMATCHED_AGE_MS) : null;
    if (age === null)
      throw new UnmatchedQueryError(
        'olderThanMs',
        // Not the bound's digits: an admin answer masks a run of 9 and more as a phone number.
        'must be a whole number of milliseconds from 0 to a year (366 days)',
      );
    out.olderThanMs = age;
  }
  return out;
}

/** What the view shows: the age applied, how many in all, and the newest `count` of them. */
export interface UnmatchedView {
  olderThanMs: number;
  total: number;
  count: number;
  notices: UnmatchedSuccess[];
}

/** No payment notice has that id (answer 404); nothing was changed. */
export class UnmatchedNotFoundError extends Error {
  constructor(readonly noticeId: string) {
    super(`no payment notice ${noticeId}`);
    this.name = 'UnmatchedNotFoundError';
  }
}

/**
 * The notice cannot be resolved (answer 409); nothing was changed. `reason`: resolved already,
 * not money nobody holds (a payment took it, or a decline, or a refund's result), or still young
 * enough for a payment of ours to take it.
 */
export class UnmatchedStateError extends Error {
  readonly reason: Exclude<UnmatchedRefusal['refusal'], 'not_found'>;

  constructor(
    readonly noticeId: string,
    refused: Exclude<UnmatchedRefusal, { refusal: 'not_found' }>,
    matchableMs: number,
  ) {
    super(refusalMessage(noticeId, refused, matchableMs));
    this.name = 'UnmatchedStateError';
    this.reason = refused.refusal;
  }
}

function refusalMessage(
  id: string,
  refused: Exclude<UnmatchedRefusal, { refusal: 'not_found' }>,
  matchableMs: number,
): string {
  switch (refused.refusal) {
    case 'already_resolved':
      return `payment notice ${id} was resolved already, by ${refused.resolution.by} at ${refused.resolution.at}`;
    case 'not_unmatched_success':
      return refused.paymentId !== null
        ? `payment notice ${id} was taken by payment ${refused.paymentId} (${refused.outcome}): only money no payment took is resolved here`
        : `payment notice ${id} is no payment's success (${refused.kind} ${refused.state ?? '-'}, ${refused.outcome}): only money no payment took is resolved here`;
    case 'still_matchable': {
      const until = new Date(new Date(refused.receivedAt).getTime() + matchableMs).toISOString();
      return `payment notice ${id} came at ${refused.receivedAt}: a payment of ours may still take it until ${until} (and confirm or refund it itself); resolve it after that`;
    }
  }
}

export class UnmatchedPayments {
  constructor(
    private readonly store: Pick<SqlPaymentStore, 'unmatchedSuccesses' | 'resolveUnmatched'>,
    /** The default age: `matchableForMs` of the lifecycle's settings. */
    readonly matchableMs: number,
    /** Care's audit trail (src/purchases/care): a resolution is written to it with who did it. */
    private readonly audit: Pick<AuditTrail, 'record'>,
  ) {}

  /** The newest unmatched successes older than `olderThanMs` (default: none still matchable). */
  async list(options: { limit?: number; olderThanMs?: number } = {}): Promise<UnmatchedView> {
    const olderThanMs = options.olderThanMs ?? this.matchableMs;
    const { total, notices } = await this.store.unmatchedSuccesses(
      olderThanMs,
      options.limit ?? DEFAULT_UNMATCHED_LIMIT,
    );
    return { olderThanMs, total, count: notices.length, notices };
  }

  /** How many the default view holds (the gauge). */
  async count(): Promise<number> {
    return (await this.store.unmatchedSuccesses(this.matchableMs, 0)).total;
  }

  /**
   * Close notice `id` once its money is dealt with (given back through the provider's own tool,
   * or found to belong to something else): `note` says what was done (care's rule: not blank, at
   * most MAX_NOTE characters; a `CareInputError` otherwise). Only an unresolved unmatched success
   * past its matching time is taken; else `UnmatchedNotFoundError` or `UnmatchedStateError`, and
   * nothing is changed. Audited (`resolve_unmatched`) as care audits its own resolutions.
   */
  async resolve(id: string, note: unknown, actor: string): Promise<ResolvedUnmatched> {
    const text = noteOf(note, true)!;
    const outcome = await this.store.resolveUnmatched(id, actor, text, this.matchableMs);
    if (!outcome.resolved) {
      if (outcome.refusal === 'not_found') throw new UnmatchedNotFoundError(id);
      throw new UnmatchedStateError(id, outcome, this.matchableMs);
    }
    const notice = outcome.notice;
    try {
      await this.audit.record({
        actor,
        action: 'resolve_unmatched',
        note: text,
        detail: auditDetail(notice),
      });
    } catch (error) {
      log.error('AUDIT TRAIL WRITE FAILED after a care action: the action was done', {
        action: 'resolve_unmatched',
        noticeId: id,
        actor,
        error,
      });
      throw error;
    }
    log.warn('unmatched payment notice resolved by an operator', { noticeId: id, actor });
    return notice;
  }
}

/** What the trail says of the notice: enough to find the money at the provider, the payer masked. */
function auditDetail(n: UnmatchedSuccess): string {
  return [
    `payment notice ${n.id} (${n.why === 'no_payment' ? 'no payment' : `${n.why}, payment ${n.paymentId}`}): ${n.provider} ${n.providerReference ?? '-'}`,
    n.amount ? formatMoney(n.amount) : '-',
    `receipt ${n.receipt ?? '-'}`,
    `payer ${n.payerMsisdn ? maskMsisdn(n.payerMsisdn) : '-'}`,
  ].join(', ');
}
