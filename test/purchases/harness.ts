import { Redis } from 'ioredis';
import type { LifecycleSettings } from '../../src/purchases/lifecycle/machine';
import type { PurchaseNotifier } from '../../src/purchases/hand-over';
import { createPurchaseDesk, type RunningPurchaseDesk } from '../../src/purchases/desk';
import { BullJobQueue, InProcessJobQueue, type JobQueue } from '../../src/queue';
import { SETTLED_STATES, type PurchaseStore } from '../../src/purchases/store';
import type { PurchaseRecord } from '../../src/purchases/types';
import { startSandbox, SANDBOX_CREDENTIALS, type RunningSandbox } from '../../src/sandbox';
import { createPurchaseService } from '../../src/vas';
import type { PurchaseService } from '../../src/vas/port';
import { deleteKeysUnder, TEST_REDIS_URL, testPrefix } from '../support/redis';
import { until } from '../support/wait';
import { freshPurchaseStore } from './records';

/** Client timeouts of the lifecycle tests: confirm gives up long before the delayed meter answers. */
export const CONFIRM_TIMEOUT_MS = 300;
export const SANDBOX_DELAY_MS = 1500;

export interface Notified {
  record: PurchaseRecord;
  reason: 'settled' | 'resend';
  requestKey: string;
}

/** Records every hand-over; the real notifier de-duplicates by request key, this one just counts. */
export class RecordingNotifier implements PurchaseNotifier {
  readonly calls: Notified[] = [];
  async notify(record: PurchaseRecord, reason: 'settled' | 'resend', requestKey: string): Promise<void> {
    this.calls.push({ record, reason, requestKey });
  }
  for(id: string): Notified[] {
    return this.calls.filter((c) => c.record.id === id);
  }
}

export interface LedgerRow {
  id: number;
  status: string;
  external_reference: string | null;
  debited_minor: number;
  token: string | null;
}

export interface Harness {
  sandbox: RunningSandbox;
  service: PurchaseService;
  store: PurchaseStore;
  queue: JobQueue;
  desk: RunningPurchaseDesk;
  notifier: RecordingNotifier;
  ledger(externalReference: string): Promise<LedgerRow[]>;
  fault(body: Record<string, unknown>): Promise<void>;
  clearFaults(): Promise<void>;
  /** Poll (bounded) until the purchase is settled and handed to the notifier. */
  settled(id: string): Promise<PurchaseRecord>;
  close(): Promise<void>;
}

export type Mode = 'in-process' | 'bullmq';

export function makeService(url: string): PurchaseService {
  return createPurchaseService({
    baseUrl: url,
    interface: 'v1',
    ...SANDBOX_CREDENTIALS,
    timeoutMs: 2000,
    confirmTimeoutMs: CONFIRM_TIMEOUT_MS,
  });
}

export async function startHarness(
  mode: Mode,
  wrap: (service: PurchaseService) => PurchaseService = (s) => s,
  settings: Partial<LifecycleSettings> = {},
): Promise<Harness> {
  const sandbox = await startSandbox({ port: 0, delayMs: SANDBOX_DELAY_MS, silent: true });
  const service = wrap(makeService(sandbox.url));
  const prefix = testPrefix('purchases');
  let redis: Redis | null = null;
  const store: PurchaseStore = await freshPurchaseStore();
  let queue: JobQueue;
  if (mode === 'bullmq') {
    redis = new Redis(TEST_REDIS_URL);
    queue = new BullJobQueue({
      connection: { url: TEST_REDIS_URL },
      prefix: `${prefix}-bull`,
      retryDelayMs: 50,
    });
  } else {
    queue = new InProcessJobQueue({ retryDelayMs: 50 });
  }
  const notifier = new RecordingNotifier();
  const desk = createPurchaseDesk({
    store,
    queue,
    service,
    notifier,
    config: {
      purchaseApi: { confirmTimeoutMs: CONFIRM_TIMEOUT_MS } as never,
      reconcile: { baseDelayMs: 20, deadlineMs: 20_000 },
    },
    settings: { inFlightMarginMs: 100, maxDelayMs: 200, ...settings },
  });
  await desk.startWorker();

  const http = async (path: string, init?: RequestInit) => {
    const res = await fetch(`${sandbox.url}${path}`, init);
    if (!res.ok) throw new Error(`sandbox ${path}: ${res.status}`);
    return res.status === 204 ? null : res.json();
  };

  return {
    sandbox,
    service,
    store,
    queue,
    desk,
    notifier,
    async ledger(externalReference) {
      const rows = (await http('/sandbox/transactions')) as LedgerRow[];
      return rows.filter((r) => r.external_reference === externalReference);
    },
    async fault(body) {
      await http('/sandbox/faults', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    },
    async clearFaults() {
      await http('/sandbox/faults', { method: 'DELETE' });
    },
    async settled(id) {
      return until(`purchase ${id} settled and handed over`, async () => {
        const record = await store.get(id);
        return record && SETTLED_STATES.includes(record.state) && record.notifiedAt !== null ? record : null;
      });
    },
    async close() {
      await queue.close();
      await sandbox.close();
      if (redis) {
        await deleteKeysUnder(redis, prefix);
        await redis.quit();
      }
    },
  };
}
