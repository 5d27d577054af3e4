import { randomFillSync, randomUUID } from 'node:crypto';
import type { LifecycleSettings } from './lifecycle/machine';
import { componentLogger, maskMsisdn, premasked } from '../observability/logger';
import { localDay } from '../i18n/local-time';
import type { PurchaseService } from '../vas/port';
import type { PurchaseNotifier, PurchaseSettlement } from './hand-over';
import { PurchaseLifecycle } from './lifecycle/runner';
import { settingsFromConfig, type LifecycleConfig } from './settings';
import type { JobQueue } from '../queue';
import { SpendClaimRefusedError, type PurchaseStore, type SpendClaim } from './store';
import {
  newPurchaseRecord,
  type AlongsideWrite,
  type PurchaseDesk,
  type PurchaseIntent,
  type PurchaseRecord,
  type PurchaseState,
} from './types';

/**
 * The purchase desk: the counter where channels hand in orders (`create`), ask about them
 * (`get`, `list*`) and ask for an SMS again (`resendSms`). Behind the counter the lifecycle
 * (`lifecycle.ts`) works the orders off the job queue; the desk never calls the purchase
 * service itself.
 */

const log = componentLogger('purchases');

/** What a desk is built from; `config` gives the lifecycle its timings. */
export interface PurchaseDeskOptions {
  store: PurchaseStore;
  queue: JobQueue;
  service: PurchaseService;
  config: LifecycleConfig;
  /** Overrides of the lifecycle settings derived from config (tests shorten the in-flight margin). */
  settings?: Partial<LifecycleSettings>;
  /** Records the sweep reads per store call (tests make it small to page). */
  sweepPageSize?: number;
  notifier?: PurchaseNotifier;
  /** The money outside the purchase (a field agent's float), settled when the purchase settles. */
  settlement?: PurchaseSettlement;
  clock?: () => Date;
  random?: () => number;
  /**
   * The operator's spending rules (src/spend `Spend`), counted once per key by the statement that
   * writes a new purchase; a refusal (SpendRefusedError) writes nothing. Every channel hands in
   * here, so none escapes them.
   */
  spend?: {
    claim(intent: PurchaseIntent): SpendClaim;
    refusedError(claim: SpendClaim, currency: string, refusal: SpendClaimRefusedError['refusal']): Error;
  };
  /** The operator's zone (`TZ`): the day in a reference is the one care staff and subscribers see. */
  timeZone?: string;
}

/**
 * A desk with the controls of the lifecycle behind it, for the process that runs it (the
 * gateway or `npm run worker`); channels see only the {@link PurchaseDesk}.
 */
export interface RunningPurchaseDesk extends PurchaseDesk {
  lifecycle: PurchaseLifecycle;
  /** The records, for operator tools: care lookups, the retention purge, state gauges. */
  store: PurchaseStore;
  /**
   * Start consuming lifecycle jobs. With `sweepEveryMs`, also re-run `resumeStuck` on that
   * period: a purchase whose job was never queued (Redis blip between record and job) or whose
   * notification was never handed over is picked up within a period, not at the next restart.
   */
  startWorker(options?: { sweepEveryMs?: number; alsoSweep?: () => Promise<unknown> }): Promise<void>;
  /**
   * The buyer's payment for this purchase is known successful (src/payments): queue its confirm,
   * while it is still `created` (`seen`: the caller read it so, with its confirm attempts; else it
   * is read here). The job id de-duplicates a hook told twice; the records refuse a confirm whose
   * payment is not successful. `replaceFailed` (the payment sweep): a confirm job that failed for
   * good (its attempts spent while the records were away) is replaced, else the paid purchase
   * would wait `created` for ever.
   */
  confirmPaid(
    purchaseId: string,
    seen?: { confirmAttempts: number; nextAttemptAt?: string | null },
    options?: { replaceFailed?: boolean },
  ): Promise<void>;
  /** Stop the periodic sweep (the queue itself is closed by its owner). */
  stopSweep(): void;
  /** Re-queue what a crash or a Redis blip left half-done (see `PurchaseLifecycle.resumeStuck`). */
  resumeStuck(): ReturnType<PurchaseLifecycle['resumeStuck']>;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

const REFERENCE_BYTES = 10;

/**
 * Random bytes for references, drawn from a pool filled 100 references at a time: each
 * `randomBytes` call is a crypto job of its own, and one per Buy cost a loaded gateway 1% of
 * its CPU (`randomUUID` pools the same way).
 */
const randomPool = Buffer.alloc(REFERENCE_BYTES * 100);
let randomUsed = randomPool.length;

/** The offset in {@link randomPool} of `size` fresh random bytes. */
function drawRandom(size: number): number {
  if (randomUsed + size > randomPool.length) {
    randomFillSync(randomPool);
    randomUsed = 0;
  }
  randomUsed += size;
  return randomUsed - size;
}

/**
 * `GW-20250101-<16 base32>`: 28 characters, unique (80 random bits), safe in any form field.
 * The day is the local one in `timeZone`, so a purchase at 00:30 in Gaborone carries that day.
 */
export function newExternalReference(now: Date, timeZone: string): string {
  const day = localDay(now, timeZone).replace(/-/g, '');
  const at = drawRandom(REFERENCE_BYTES);
  let bits = 0;
  let value = 0;
  let out = '';
  for (let i = at; i < at + REFERENCE_BYTES; i++) {
    value = (value << 8) | randomPool[i];
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return `GW-${day}-${out}`;
}

/** `create` was handed an intent no purchase can be made from (amount, currency, MSISDNs, identifier). */
export class InvalidIntentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidIntentError';
  }
}

/** An intent the desk refuses (InvalidIntentError): checked again before anything is held for it. */
export function checkIntent(intent: PurchaseIntent): void {
  if (!Number.isSafeInteger(intent.amount.minor) || intent.amount.minor <= 0)
    throw new InvalidIntentError('amount must be a positive integer number of minor units');
  if (!/^[A-Z]{3}$/.test(intent.amount.currency)) throw new InvalidIntentError('currency must be ISO 4217');
  if (!/^\d{6,15}$/.test(intent.beneficiaryMsisdn) || !/^\d{6,15}$/.test(intent.requesterMsisdn))
    throw new InvalidIntentError('MSISDNs must be E.164 digits');
  if (intent.subscriberIdentifier.trim() === '')
    throw new InvalidIntentError('subscriber identifier is empty');
}

/** Open the desk: create once per key, then the lifecycle runs the purchase on the queue. */
export function createPurchaseDesk(options: PurchaseDeskOptions): RunningPurchaseDesk {
  const clock = options.clock ?? (() => new Date());
  const { store, queue } = options;
  const lifecycle = new PurchaseLifecycle({
    store,
    queue,
    service: options.service,
    notifier: options.notifier,
    settlement: options.settlement,
    settings: settingsFromConfig(options.config, options.settings),
    clock,
    random: options.random,
    sweepPageSize: options.sweepPageSize,
  });

  let sweep: NodeJS.Timeout | undefined;

  /** `store.create` with the spending rules' claim; a refusal throws the rules' error. */
  async function createCounted(
    candidate: PurchaseRecord,
    alongside?: AlongsideWrite,
  ): ReturnType<PurchaseStore['create']> {
    const { spend } = options;
    if (!spend) return store.create(candidate, undefined, alongside);
    let claim: SpendClaim;
    try {
      claim = spend.claim(candidate.intent);
    } catch (error) {
      // Out of the amount range now: a purchase made under this key before is still answered.
      const existing = await store.getByIdempotencyKey(candidate.idempotencyKey);
      if (existing) return { created: false, record: existing };
      throw error;
    }
    try {
      return await store.create(candidate, claim, alongside);
    } catch (error) {
      if (!(error instanceof SpendClaimRefusedError)) throw error;
      throw spend.refusedError(claim, candidate.intent.amount.currency, error.refusal);
    }
  }

  return {
    lifecycle,
    store,
    async startWorker({
      sweepEveryMs = 0,
      alsoSweep,
    }: { sweepEveryMs?: number; alsoSweep?: () => Promise<unknown> } = {}) {
      await queue.start(lifecycle.handle);
      if (sweepEveryMs > 0 && !sweep) {
        let running = false;
        sweep = setInterval(() => {
          if (running) return; // a slow sweep is never overlapped by the next one
          running = true;
          lifecycle
            .resumeStuck()
            .then(() => alsoSweep?.())
            .catch((error: unknown) => log.error('purchase sweep failed', { error }))
            .finally(() => (running = false));
        }, sweepEveryMs);
        sweep.unref();
      }
    },
    stopSweep() {
      if (sweep) clearInterval(sweep);
      sweep = undefined;
    },
    resumeStuck: () => lifecycle.resumeStuck(),

    async create(
      intent: PurchaseIntent,
      idempotencyKey: string,
      alongside?: AlongsideWrite,
    ): Promise<PurchaseRecord> {
      checkIntent(intent);
      const now = clock();
      const candidate = newPurchaseRecord({
        id: randomUUID(),
        idempotencyKey,
        externalReference: newExternalReference(now, options.timeZone ?? 'UTC'),
        intent,
        createdAt: now.toISOString(),
      });
      // One commit: the key's record if it exists, else the spend reservation and the purchase
      // together (PurchaseStore.create), with `alongside`; no read of the key before it.
      const { created, record } = await createCounted(candidate, alongside);
      // Our own ids and a masked number: no masking walk (one line per Buy).
      if (created)
        log.info(
          'purchase created',
          premasked({
            purchaseId: record.id,
            externalReference: record.externalReference,
            channel: record.intent.channel,
            beneficiary: maskMsisdn(record.intent.beneficiaryMsisdn),
          }),
        );
      // Enqueue again for a duplicate still in `created`: the job id de-duplicates, the CAS guards.
      // A purchase the buyer pays for is confirmed once paid (`confirmPaid`), never before.
      if (record.state === 'created' && !record.intent.paymentRequired)
        await queue.enqueue({ kind: 'confirm', purchaseId: record.id, attempt: record.confirmAttempts });
      return record;
    },

    async confirmPaid(
      id: string,
      seen?: { confirmAttempts: number; nextAttemptAt?: string | null },
      enqueue?: { replaceFailed?: boolean },
    ) {
      // Seen `created` by the caller (the payment's move read it): no read again. The confirm job's
      // compare-and-set and the records' purchase_confirm_needs_payment guard the rest.
      const record = seen ? { id, state: 'created', ...seen } : await store.get(id);
      if (record?.state !== 'created') return;
      // Its due attempt at its time: a re-confirm after not_sent/429 waits its backoff.
      const due =
        'nextAttemptAt' in record && record.nextAttemptAt
          ? Date.parse(record.nextAttemptAt) - clock().getTime()
          : 0;
      await queue.enqueue(
        { kind: 'confirm', purchaseId: record.id, attempt: record.confirmAttempts },
        Math.max(0, due),
        enqueue,
      );
    },

    get: (id: string) => store.get(id),

    listByMsisdn: (msisdn: string, opts?: { limit?: number; state?: PurchaseState }) =>
      store.listByMsisdn(msisdn, opts),

    listByState: (state: PurchaseState, opts?: { limit?: number }) => store.listByState(state, opts),

    resendSms: (id: string, requestKey: string, recipients?: readonly string[]) =>
      lifecycle.resend(id, requestKey, recipients),
  };
}
