import { componentLogger, maskToken } from '../observability/logger';
import type { Queryable } from '../records/database';
import type { Transaction } from '../vas/port';
import {
  awaitsNotification,
  SETTLED_STATES,
  type PurchasePatch,
  type PurchaseStore,
  type RecordTransaction,
} from './store';
import { resultFromTransaction, type PurchaseRecord, type PurchaseState } from './types';

const log = componentLogger('purchases');

/** Why the notifier is called: the purchase settled, or someone asked for its SMS again. */
export type NotifyReason = 'settled' | 'resend';

/** The seam to the notification side: called once per settled outcome, and on "resend". */
export interface PurchaseNotifier {
  /**
   * Hand the outcome over: queue the SMS (never send inline) and resolve once durably queued.
   * Must de-duplicate by `(record.id, requestKey)`: after a crash between this call and the
   * record noting it, the same `settled:<id>` key is handed over again and queues nothing new.
   * Throws {@link PurchaseNotSettledError} for a purchase with no outcome yet. `recipients`
   * (a resend): only the SMS to these numbers; absent: every recipient.
   */
  notify(
    record: PurchaseRecord,
    reason: NotifyReason,
    requestKey: string,
    recipients?: readonly string[],
  ): Promise<void>;
  /**
   * The settled outcome's SMS as rows of the outcome's own transaction: reads what they say
   * besides the record (`expected`: the outcome as it will be written) first, then `stage` reads
   * the buyer's payment and writes them on `tx`, and answers what starts their sending once `tx`
   * has committed.
   */
  prepare?(expected: PurchaseRecord): Promise<StagedOutcomeSms>;
}

/** See {@link PurchaseNotifier.prepare}. */
export interface StagedOutcomeSms {
  stage(record: PurchaseRecord, requestKey: string, tx: Queryable): Promise<() => Promise<void>>;
}

/**
 * The seam to the money outside the purchase (a field agent's float): called for every settled
 * outcome before anyone is told, also when no notifier is wired. Must be idempotent per
 * purchase: a crash before the hand-over is noted runs it again.
 */
export interface PurchaseSettlement {
  settled(record: PurchaseRecord): Promise<void>;
  /**
   * Optional: the rows of `settled` written on `tx`, the outcome's own transaction (a first success:
   * `OutcomeHandOver.writeTold`), so that they commit with it or not at all; `settledOutside` is
   * then the rest, run before. Together they are `settled`, idempotent like it.
   */
  settledOn?(record: PurchaseRecord, tx: Queryable): Promise<void>;
  settledOutside?(record: PurchaseRecord): Promise<void>;
}

export interface OutcomeHandOverOptions {
  store: PurchaseStore;
  notifier?: PurchaseNotifier;
  settlement?: PurchaseSettlement;
  now: () => string;
}

/**
 * What follows a settled outcome, in order: its settlement, its SMS, then the note on the record
 * (`notifiedAt`) — so a crash anywhere before the note leaves the record to the sweep
 * (`listUnnotified`), which runs both again; each is idempotent.
 */
export class OutcomeHandOver {
  constructor(private readonly options: OutcomeHandOverOptions) {}

  /**
   * Only the settlement of `record` (idempotent), nobody told: a purchase an operator resolved,
   * whose buyer was told when it needed attention.
   */
  async settle(record: PurchaseRecord): Promise<void> {
    await this.options.settlement?.settled(record);
  }

  /** Settle and hand a settled, not yet handed-over outcome to the notifier, then note it on the record. */
  async handOver(record: PurchaseRecord): Promise<void> {
    if (!awaitsNotification(record)) return;
    const { store, notifier, settlement } = this.options;
    await settlement?.settled(record);
    if (!notifier) {
      log.warn('no notifier configured; outcome not handed over', {
        purchaseId: record.id,
        state: record.state,
      });
      return;
    }
    const requestKey = requestKeyOf(record);
    await notifier.notify(record, 'settled', requestKey);
    let current: PurchaseRecord | null = record;
    for (let i = 0; i < 3 && current && awaitsNotification(current); i += 1) {
      const noted = await store.transition(current.id, [current.state], current.state, current.version, {
        notifiedAt: this.options.now(),
        notifications: current.notifications.includes(requestKey)
          ? current.notifications
          : [...current.notifications, requestKey],
      });
      if (noted.ok) return;
      current = noted.conflict.current;
    }
  }

  /**
   * A success and its hand-over in one commit, when the notifier can stage its SMS: settled first
   * (idempotent, and a success is settled as one whatever the record then takes: `lateSuccess`),
   * the SMS read for, then one transaction holds the outcome `write` makes on the locked record —
   * given the note that it is told —, the settlement's own rows (`settledOn`: the saved meter) and
   * the SMS rows; their sending starts once it committed.
   * `expected` is the outcome as it will be written. 'unavailable': the caller writes and hands
   * over in turn; null: `write` wrote nothing (the record moved).
   */
  async writeTold(
    expected: PurchaseRecord,
    write: (
      read: PurchaseRecord | null,
      told: PurchasePatch,
      tx: RecordTransaction,
    ) => Promise<PurchaseRecord | null>,
  ): Promise<PurchaseRecord | null | 'unavailable'> {
    const { store, notifier, settlement } = this.options;
    if (!notifier?.prepare) return 'unavailable';
    if (settlement?.settledOn) await settlement.settledOutside?.(expected);
    else await settlement?.settled(expected);
    const sms = await notifier.prepare(expected);
    const requestKey = requestKeyOf(expected);
    let start: (() => Promise<void>) | undefined;
    const written = await store.withRecord(expected.id, async (read, tx) => {
      const told = {
        notifiedAt: this.options.now(),
        notifications: read?.notifications.includes(requestKey)
          ? read.notifications
          : [...(read?.notifications ?? []), requestKey],
      };
      const record = await write(read, told, tx);
      if (!record) return record;
      // Re-run with the outcome after a crash before this commit: the rows are idempotent.
      await settlement?.settledOn?.(record, tx.on);
      start = await sms.stage(record, requestKey, tx.on);
      return record;
    });
    await start?.();
    return written;
  }

  /** `resendSms` of the desk: only outcomes the subscriber was (or will be) told about. */
  async resend(id: string, requestKey: string, recipients?: readonly string[]): Promise<void> {
    const record = await this.options.store.get(id);
    if (!record) throw new PurchaseNotFoundError(id);
    if (!SETTLED_STATES.includes(record.state)) throw new PurchaseNotSettledError(record.id, record.state);
    if (!this.options.notifier) throw new Error('no notifier configured');
    await this.options.notifier.notify(record, 'resend', requestKey, recipients);
  }

  /**
   * A successful answer the record can no longer take (it settled otherwise, or is gone): the
   * token was issued and is never discarded. The sale is settled as a success, the token goes to
   * the beneficiary as a success SMS under a key of its own, and an operator is told loudly.
   */
  async lateSuccess(record: PurchaseRecord, tx: Transaction, state: string): Promise<void> {
    if (state === 'succeeded') {
      log.info('purchase success answered again; already told', { purchaseId: record.id });
      return;
    }
    log.error(
      'PURCHASE SUCCEEDED BUT ITS RECORD CANNOT TAKE IT: sending the token anyway; check the record',
      {
        purchaseId: record.id,
        state,
        externalReference: record.externalReference,
        reference: tx.reference,
        token: tx.rawToken ? maskToken(tx.rawToken) : null,
      },
    );
    const succeeded: PurchaseRecord = {
      ...record,
      state: 'succeeded',
      result: resultFromTransaction(tx),
      failure: null,
    };
    await this.options.settlement?.settled(succeeded);
    await this.options.notifier?.notify(
      succeeded,
      'settled',
      `late:${record.id}:${tx.id ?? tx.reference ?? 'tx'}`,
    );
  }
}

/** A corrected outcome (a success found after a failure was told) is a new message. */
function requestKeyOf(record: PurchaseRecord): string {
  return record.notifications.some((key) => key === `settled:${record.id}`)
    ? `corrected:${record.id}`
    : `settled:${record.id}`;
}

/** `get`/`resendSms` named a purchase that does not exist. */
export class PurchaseNotFoundError extends Error {
  constructor(readonly purchaseId: string) {
    super(`purchase ${purchaseId} not found`);
    this.name = 'PurchaseNotFoundError';
  }
}

/** `resendSms` or `notify` for a purchase whose outcome is not known yet (nothing to send). */
export class PurchaseNotSettledError extends Error {
  constructor(
    readonly purchaseId: string,
    readonly state: PurchaseState,
  ) {
    super(`purchase ${purchaseId} is ${state}: it has no outcome SMS yet`);
    this.name = 'PurchaseNotSettledError';
  }
}
