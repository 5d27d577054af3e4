import { componentLogger, maskMsisdn, maskNumbersInText } from '../../observability/logger';
import { normaliseMsisdn, type CountryCode } from '../../phone';
import type { PurchaseLifecycle } from '../lifecycle/runner';
import type { PurchaseStore } from '../store';
import { RESOLUTION_OUTCOMES, type PurchaseRecord, type ResolutionOutcome } from '../types';
import type { AuditEntry, AuditTrail } from './audit';

/**
 * Customer care: find a subscriber's purchases (by number, identifier or reference), close a
 * `needs_attention` purchase with a note, or have it reconciled again (`retry` only: never a
 * second confirm). Every action is written to the audit trail with who did it. Shared by the
 * admin routes (`/admin/purchases`) and the operator CLI (`npm run cli -- purchases`).
 */

const log = componentLogger('care');

export const MAX_NOTE = 500;
export const MAX_LOOKUP = 64;
export const DEFAULT_FIND_LIMIT = 50;
export const MAX_FIND_LIMIT = 500;

/** What care staff search by; exactly one. */
export type CareQueryKind = 'msisdn' | 'identifier' | 'reference';
export const CARE_QUERY_KINDS: readonly CareQueryKind[] = ['msisdn', 'identifier', 'reference'];

/** The operator's input is unusable (answer 400); nothing was changed. */
export class CareInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'CareInputError';
  }
}

/** No purchase with that id (answer 404). */
export class CareNotFoundError extends Error {
  constructor(readonly purchaseId: string) {
    super(`no purchase ${purchaseId}`);
    this.name = 'CareNotFoundError';
  }
}

/** The purchase is not in a state that takes the action (answer 409); nothing was changed. */
export class CareStateError extends Error {
  constructor(
    readonly purchaseId: string,
    readonly state: string,
    action: string,
  ) {
    super(`purchase ${purchaseId} is ${state}: only a needs_attention purchase can be ${action}`);
    this.name = 'CareStateError';
  }
}

export interface CustomerCareOptions {
  store: Pick<PurchaseStore, 'get' | 'listByMsisdn' | 'listByIdentifier' | 'listByReference'>;
  lifecycle: Pick<PurchaseLifecycle, 'operatorDecision'>;
  audit: AuditTrail;
  /** Region of numbers typed without a country code (`DEFAULT_REGION`). */
  region: string;
  clock?: () => Date;
}

/** A search as typed: one of the kinds, a value, an optional limit. */
export type CareQuery = Partial<Record<CareQueryKind | 'limit', unknown>>;

export class CustomerCare {
  private readonly clock: () => Date;

  constructor(private readonly options: CustomerCareOptions) {
    this.clock = options.clock ?? (() => new Date());
  }

  /** Newest first. The number is normalised as the channels store it (`71234567` → `26771234567`). */
  async find(query: CareQuery): Promise<{ by: CareQueryKind; value: string; purchases: PurchaseRecord[] }> {
    const given = CARE_QUERY_KINDS.filter((kind) => query[kind] !== undefined);
    if (given.length !== 1)
      throw new CareInputError('query', `search by exactly one of: ${CARE_QUERY_KINDS.join(', ')}`);
    const by = given[0];
    const value = this.lookupValue(by, query[by]);
    const limit = limitOf(query.limit, DEFAULT_FIND_LIMIT, MAX_FIND_LIMIT);
    const { store } = this.options;
    const purchases =
      by === 'msisdn'
        ? await store.listByMsisdn(value, { limit })
        : by === 'identifier'
          ? await store.listByIdentifier(value, { limit })
          : await store.listByReference(value, { limit });
    return { by, value, purchases };
  }

  async get(id: string): Promise<PurchaseRecord> {
    const record = await this.options.store.get(id);
    if (!record) throw new CareNotFoundError(id);
    return record;
  }

  /**
   * Close a `needs_attention` purchase: the note says what was found and done (a refund, a token
   * given by hand); `outcome` what was found: `sold` or `not_sold`. An agent's sale needs it (its
   * float hold is spent or given back by it, at once); for any other purchase it is kept when given.
   * The audit entry says the outcome and what it did to the float.
   */
  async resolve(id: string, note: unknown, actor: string, outcome?: unknown): Promise<PurchaseRecord> {
    const text = noteOf(note, true)!;
    const record = await this.get(id);
    if (record.state !== 'needs_attention') throw new CareStateError(id, record.state, 'resolved');
    const found = outcomeOf(outcome, record.intent.agent !== undefined);
    const at = this.clock().toISOString();
    const written = await this.options.lifecycle.operatorDecision(
      record,
      { type: 'RESOLVE', at },
      { resolution: { by: actor, at, note: text, ...(found && { outcome: found }) } },
    );
    if (!written) throw await this.conflict(id, 'resolved');
    await this.audited({
      actor,
      action: 'resolve',
      purchaseId: id,
      note: text,
      ...(found && { detail: resolutionDetail(found, record.intent.agent !== undefined) }),
    });
    log.warn('purchase resolved by an operator', { purchaseId: id, actor, outcome: found });
    return written;
  }

  /** Reconcile a `needs_attention` purchase again from now (retry only); a success found sends the token. */
  async reconcile(id: string, note: unknown, actor: string): Promise<PurchaseRecord> {
    const text = noteOf(note, false);
    const record = await this.get(id);
    if (record.state !== 'needs_attention') throw new CareStateError(id, record.state, 'reconciled again');
    const written = await this.options.lifecycle.operatorDecision(record, {
      type: 'REOPEN',
      at: this.clock().toISOString(),
    });
    if (!written) throw await this.conflict(id, 'reconciled again');
    await this.audited({ actor, action: 'reconcile', purchaseId: id, note: text });
    log.warn('purchase reconciled again at an operator request', { purchaseId: id, actor });
    return written;
  }

  /** A purchase's outcome SMS queued again at an operator's request (it reaches the subscriber again). */
  async recordResend(actor: string, purchaseId: string, requestKey: string): Promise<void> {
    await this.audited({ actor, action: 'resend_sms', purchaseId, detail: maskNumbersInText(requestKey) });
    log.warn('purchase sms resent at an operator request', { purchaseId, actor });
  }

  /** A reveal of full numbers and tokens, recorded before anything is shown. */
  async recordReveal(actor: string, detail: string, purchaseId?: string): Promise<void> {
    await this.options.audit.record({ actor, action: 'reveal', detail, purchaseId });
  }

  trail(options: { purchaseId?: string; limit?: unknown } = {}): Promise<AuditEntry[]> {
    return this.options.audit.list({
      purchaseId: options.purchaseId,
      limit: limitOf(options.limit, DEFAULT_FIND_LIMIT, MAX_FIND_LIMIT),
    });
  }

  private lookupValue(kind: CareQueryKind, raw: unknown): string {
    if (typeof raw !== 'string' || raw.trim() === '' || raw.length > MAX_LOOKUP)
      throw new CareInputError(
        kind,
        `${kind} must be a non-empty string of at most ${MAX_LOOKUP} characters`,
      );
    if (kind === 'msisdn') {
      const n = normaliseMsisdn(raw, this.options.region as CountryCode);
      if (!n.ok) throw new CareInputError(kind, `not a mobile number: ${maskMsisdn(raw)}`);
      return n.e164;
    }
    // Identifiers are stored as bought, without spaces; references exactly as issued.
    return kind === 'identifier' ? raw.replace(/\s+/g, '') : raw.trim();
  }

  /** Why a decision was not written: the record moved on (or went) since it was read. */
  private async conflict(id: string, action: string): Promise<Error> {
    const now = await this.options.store.get(id);
    return now ? new CareStateError(id, now.state, action) : new CareNotFoundError(id);
  }

  /** The action happened: an audit entry that cannot be written is an error an operator must see. */
  private async audited(entry: Parameters<AuditTrail['record']>[0]): Promise<void> {
    try {
      await this.options.audit.record(entry);
    } catch (error) {
      log.error('AUDIT TRAIL WRITE FAILED after a care action: the action was done', {
        action: entry.action,
        purchaseId: entry.purchaseId,
        actor: entry.actor,
        error,
      });
      throw error;
    }
  }
}

/** A list's `limit` (a number, or digits from a query string): 1 to `max`, `fallback` when not given. */
export function limitOf(raw: unknown, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new CareInputError('limit', `limit must be a whole number from 1 to ${max}`);
  return n;
}

/**
 * The outcome an operator found, checked: `sold`, `not_sold`, or null when not given and not
 * `required` (an agent's sale requires it: its float hold follows it).
 */
export function outcomeOf(raw: unknown, required: boolean): ResolutionOutcome | null {
  if (raw === undefined && !required) return null;
  if (typeof raw !== 'string' || !RESOLUTION_OUTCOMES.includes(raw as ResolutionOutcome))
    throw new CareInputError(
      'outcome',
      required
        ? "an agent's sale is resolved with outcome sold or not_sold: its float hold is spent or given back by it"
        : 'outcome must be sold or not_sold',
    );
  return raw as ResolutionOutcome;
}

/** What the trail says a resolution found, and what it did to an agent's float. */
function resolutionDetail(outcome: ResolutionOutcome, agentSale: boolean): string {
  if (!agentSale) return `outcome ${outcome}`;
  return outcome === 'sold'
    ? 'outcome sold: the agent float hold is spent (commission credited)'
    : 'outcome not_sold: the agent float hold is given back';
}

/** An operator's note, trimmed: a non-empty text of at most MAX_NOTE characters; null when not given and not required. */
export function noteOf(raw: unknown, required: boolean): string | null {
  if (raw === undefined && !required) return null;
  if (typeof raw !== 'string' || raw.trim() === '' || raw.length > MAX_NOTE)
    throw new CareInputError('note', `note must be a non-empty text of at most ${MAX_NOTE} characters`);
  return raw.trim();
}
