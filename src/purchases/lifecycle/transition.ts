/**
 * One decided purchase transition written: compare-and-set on the record's version (the commit
 * that must come before the side effect it allows) and its log line. One home for both, so no
 * step of the lifecycle writes a state without them.
 */
import type { Decision } from './machine';
import { componentLogger, maskMsisdn } from '../../observability/logger';
import { SETTLED_STATES, type PurchasePatch, type PurchaseStore, type RecordTransaction } from '../store';
import type { PurchaseRecord } from '../types';

const log = componentLogger('purchases');

export type TransitionWrite =
  { ok: true; record: PurchaseRecord } | { ok: false; current: PurchaseRecord | null };

/**
 * `writer` is the store, or a transaction of it (a read and its write in one commit), whose
 * lines are logged once it has committed: a transition rolled back is not one.
 */
export async function writeTransition(
  record: PurchaseRecord,
  decision: Decision,
  extra: PurchasePatch | undefined,
  writer: Pick<PurchaseStore, 'transition'> & Partial<Pick<RecordTransaction, 'afterCommit'>>,
  clock: () => Date,
): Promise<TransitionWrite> {
  const logged = (line: () => void) => (writer.afterCommit ? writer.afterCommit(line) : line());
  const nextAttemptAt =
    decision.delayMs === null ? null : new Date(clock().getTime() + decision.delayMs).toISOString();
  const result = await writer.transition(record.id, [record.state], decision.to, record.version, {
    ...decision.patch,
    ...extra,
    nextAttemptAt,
    // A corrected outcome (a settled or operator-resolved record re-settling) is handed over again.
    ...(SETTLED_STATES.includes(decision.from) || decision.from === 'resolved' ? { notifiedAt: null } : {}),
  });
  if (!result.ok) {
    const { reason } = result.conflict;
    logged(() =>
      log.info('purchase transition lost a race', {
        purchaseId: record.id,
        from: record.state,
        to: decision.to,
        reason,
      }),
    );
    return { ok: false, current: result.conflict.current };
  }
  const written = result.record;
  logged(() =>
    log.info('purchase transition', {
      purchaseId: written.id,
      from: decision.from,
      to: written.state,
      version: written.version,
      externalReference: written.externalReference,
      beneficiary: maskMsisdn(written.intent.beneficiaryMsisdn),
      ...(written.lastError && decision.from !== written.state ? { code: written.lastError.code } : {}),
      ...(decision.delayMs !== null ? { nextInMs: decision.delayMs } : {}),
    }),
  );
  return { ok: true, record: written };
}
