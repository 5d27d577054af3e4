/**
 * What the lifecycle's parts share: the one context they act through (its stores, provider, queue,
 * hooks, clock and the compare-and-set write), and the small helpers every part needs.
 */
import type { NoticeSpool } from '../spool';
import type { PaymentErrorInfo, PaymentEvent, PaymentLifecycleSettings } from './machine';
import { componentLogger } from '../../observability/logger';
import type { PurchaseStore } from '../../purchases/store';
import { outcomeOf } from '../errors';
import type { PaymentProvider } from '../port';
import type { PaymentJob, PaymentJobQueue } from '../queue';
import type { SqlPaymentStore } from '../store/sql';
import type { PaymentRecord } from '../store/types';
import type { Queryable } from '../../records/database';
import type { PaymentOutcomeHooks } from './settings';

export const log = componentLogger('payments');

/** A job re-enqueued by the sweep replaces a failed one of the same id. */
export const REVIVE = { replaceFailed: true } as const;

/** The lifecycle as its parts see it (built once by `PaymentLifecycle`). */
export interface LifecycleContext {
  readonly payments: SqlPaymentStore;
  readonly purchases: Pick<PurchaseStore, 'get'>;
  readonly provider: PaymentProvider;
  readonly queue: PaymentJobQueue;
  readonly hooks: PaymentOutcomeHooks;
  readonly settings: PaymentLifecycleSettings;
  readonly clock: () => Date;
  readonly random: () => number;
  readonly newId: () => string;
  /** Where what the records could not take waits for them (src/payments/spool.ts); none: not kept. */
  readonly spool?: NoticeSpool;
  /** Something was spooled: apply the spool again soon (every second until it is empty). */
  spooled(): void;
  now(): string;
  /**
   * Decide `event` and write it with compare-and-set, then do what the new state calls for.
   * `noticeId`: the kept notice that told it, marked `applied` by the same statement.
   */
  write(
    payment: PaymentRecord,
    event: PaymentEvent,
    noticeId?: string,
  ): Promise<{ record: PaymentRecord; written: boolean }>;
  /**
   * `write` on the caller's transaction `on`: what the new state calls for (and its log line) is
   * `followUp`, which the caller runs once `on` has committed.
   */
  move(payment: PaymentRecord, event: PaymentEvent, noticeId: string, on: Queryable): Promise<MoveResult>;
  /** `write`, answering the payment as it stands. */
  apply(payment: PaymentRecord, event: PaymentEvent): Promise<PaymentRecord>;
}

/** A decided event written (or not), and what its new state calls for, to run after the commit. */
export interface MoveResult {
  record: PaymentRecord;
  written: boolean;
  followUp(): Promise<void>;
}

/** The provider can be asked about it: it told us its key, or it keys payments by ours. */
export function canQuery(ctx: LifecycleContext, payment: PaymentRecord): boolean {
  return payment.providerReference !== null || ctx.settings.resendSafe;
}

/** A job for this version of the payment, `delayMs` from now. */
export async function later(
  ctx: LifecycleContext,
  kind: PaymentJob['kind'],
  payment: PaymentRecord,
  delayMs: number,
): Promise<void> {
  await ctx.queue.enqueue({ kind, purchaseId: payment.purchaseId, attempt: payment.version }, delayMs);
}

/** A failed provider call as plain data for the machine. */
export function errorInfo(error: unknown): PaymentErrorInfo {
  const e = error as { name?: string; code?: unknown; message?: string } | null;
  return {
    name: e?.name ?? 'Error',
    code: typeof e?.code === 'string' ? e.code : 'unexpected',
    message: e?.message ?? String(error),
    outcome: outcomeOf(error),
  };
}
