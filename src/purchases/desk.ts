import { randomFillSync, randomUUID } from 'node:crypto';
import type { LifecycleSettings } from '../../machines/purchase.machine';
import { componentLogger, maskMsisdn, premasked } from '../observability/logger';
import { localDay } from '../i18n/local-time';
import type { PurchaseService } from '../vas/port';
import {
  PurchaseLifecycle,
  settingsFromConfig,
  type LifecycleConfig,
  type PurchaseLifecycleOptions,
  type PurchaseNotifier,
} from './lifecycle';
import type { JobQueue } from './queue';
import type { PurchaseStore } from './store';
import {
  resultFromTransaction,
  newPurchaseRecord,
  type PurchaseDesk,
  type PurchaseIntent,
  type PurchaseRecord,
  type PurchaseState,
} from './types';
import type { Transaction } from '../vas/port';

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
  clock?: () => Date;
  random?: () => number;
  /** Redis data-loss and durability guards of the confirm (see PurchaseLifecycleOptions). */
  guards?: Pick<PurchaseLifecycleOptions, 'writesLostBefore' | 'confirmWriteDurable'>;
  /**
   * The operator's spending rules, counted once per key before a new purchase is written; a
   * refusal (SpendRefusedError) writes nothing. Every channel hands in here, so none escapes them.
   */
  spend?: { reserve(intent: PurchaseIntent, purchaseKey: string): Promise<void> };
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
  /** Stop the periodic sweep (the queue itself is closed by its owner). */
  stopSweep(): void;
  /** Re-queue what a crash or a Redis blip left half-done (see `PurchaseLifecycle.resumeStuck`). */
  resumeStuck(): ReturnType<PurchaseLifecycle['resumeStuck']>;
  /**
   * Record a purchase the service completed but this gateway lost (Redis restarted empty): a
   * `succeeded` record under `recover:<externalReference>` with the service's transaction, handed
   * to the notifier so its token SMS goes out. Never confirms. `created: false` when it was
   * recovered before (the same key): nothing is written or sent again.
   */
  adopt(
    intent: PurchaseIntent,
    externalReference: string,
    tx: Transaction,
  ): Promise<{ created: boolean; record: PurchaseRecord }>;
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

function checkIntent(intent: PurchaseIntent): void {
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
    settings: settingsFromConfig(options.config, options.settings),
    clock,
    random: options.random,
    sweepPageSize: options.sweepPageSize,
    ...options.guards,
  });

  let sweep: NodeJS.Timeout | undefined;

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

    async create(intent: PurchaseIntent, idempotencyKey: string): Promise<PurchaseRecord> {
      checkIntent(intent);
      const existing = await store.getByIdempotencyKey(idempotencyKey);
      if (!existing) await options.spend?.reserve(intent, idempotencyKey);
      const now = clock();
      const candidate =
        existing ??
        newPurchaseRecord({
          id: randomUUID(),
          idempotencyKey,
          externalReference: newExternalReference(now, options.timeZone ?? 'UTC'),
          intent,
          createdAt: now.toISOString(),
        });
      const { created, record } = existing
        ? { created: false, record: existing }
        : await store.create(candidate);
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
      if (record.state === 'created')
        await queue.enqueue({ kind: 'confirm', purchaseId: record.id, attempt: record.confirmAttempts });
      return record;
    },

    get: (id: string) => store.get(id),

    listByMsisdn: (msisdn: string, opts?: { limit?: number; state?: PurchaseState }) =>
      store.listByMsisdn(msisdn, opts),

    listByState: (state: PurchaseState, opts?: { limit?: number }) => store.listByState(state, opts),

    resendSms: (id: string, requestKey: string) => lifecycle.resend(id, requestKey),

    async adopt(intent, externalReference, tx) {
      checkIntent(intent);
      const now = clock().toISOString();
      const { created, record } = await store.create({
        ...newPurchaseRecord({
          id: randomUUID(),
          idempotencyKey: `recover:${externalReference}`,
          externalReference,
          intent,
          createdAt: now,
        }),
        state: 'succeeded',
        result: resultFromTransaction(tx),
        settledAt: now,
      });
      if (created) {
        log.warn('purchase recovered from the purchase service', {
          purchaseId: record.id,
          externalReference,
          beneficiary: maskMsisdn(intent.beneficiaryMsisdn),
        });
        await lifecycle.handOver(record);
      }
      return { created, record };
    },
  };
}
