/**
 * What "ready to take a Buy" means for a gateway or a worker, built from its money path: the
 * records answer, the schema has every migration this build ships, Redis answers (where it is
 * used). And the backlog of the job queues, for `/metrics`. Shared by `app.ts` and `worker.ts`.
 */
import { Queue, type ConnectionOptions } from 'bullmq';
import { INBOUND_SMS_QUEUE_NAME } from '../sms/inbound/queue';
import { SMS_QUEUE_NAME } from '../messaging/queue';
import type { QueueState } from '../observability/metrics';
import { Probes, type ReadinessCheck } from '../observability/probes';
import { PAYMENT_QUEUE_NAME } from '../payments/queue';
import { PURCHASE_QUEUE_NAME } from '../queue';
import { migrationFiles, pendingMigrations } from '../records/migrate';
import { reportRedisError } from '../redis/errors';
import type { MoneyPath } from './money-path';

/** The readiness checks of a process on this money path. */
export function readinessChecks(
  moneyPath: Pick<MoneyPath, 'records' | 'redis'>,
): Record<string, ReadinessCheck> {
  // This build's migrations, read once: the probe asks the database only.
  const expected = migrationFiles().map((file) => file.name);
  const checks: Record<string, ReadinessCheck> = {
    records: async () => {
      await moneyPath.records.query('SELECT 1');
    },
    migrations: async () => {
      const pending = await pendingMigrations(moneyPath.records, expected);
      if (pending.length > 0)
        throw new Error(
          `${pending.length} migration(s) not applied: ${pending.join(', ')} (run npm run migrate)`,
        );
    },
  };
  const { redis } = moneyPath;
  if (redis)
    checks.redis = async () => {
      await redis.ping();
    };
  return checks;
}

/** The probes of a process (`role`: gateway or worker) on this money path. */
export function probesFor(role: string, moneyPath: Pick<MoneyPath, 'records' | 'redis'>): Probes {
  return new Probes(role, readinessChecks(moneyPath));
}

/** Reads the backlog of the BullMQ queues of this deployment (what `queue_jobs` shows). */
export interface QueueWatch {
  read(): Promise<QueueState[]>;
  close(): Promise<void>;
}

const COUNTED_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;

/**
 * Read-only handles on the queues the money path uses (the purchase lifecycle, payments when a
 * provider collects, outgoing and incoming SMS), on connections of their own.
 */
export function watchQueues(
  bull: { connection: ConnectionOptions; prefix: string },
  options: { payments: boolean },
): QueueWatch {
  const names = [
    PURCHASE_QUEUE_NAME,
    ...(options.payments ? [PAYMENT_QUEUE_NAME] : []),
    SMS_QUEUE_NAME,
    INBOUND_SMS_QUEUE_NAME,
  ];
  const queues = names.map((name) => {
    const queue = new Queue(name, { connection: bull.connection, prefix: bull.prefix });
    queue.on('error', reportRedisError);
    return queue;
  });
  return {
    async read() {
      const now = Date.now();
      return Promise.all(
        queues.map(async (queue): Promise<QueueState> => {
          const [counts, [oldest]] = await Promise.all([
            queue.getJobCounts(...COUNTED_STATES),
            // The wait list is pushed at its head: ascending order gives the oldest first.
            queue.getJobs(['wait'], 0, 0, true),
          ]);
          // A job added with a delay waits from the end of its delay, not from its creation.
          const waitingSince = oldest ? oldest.timestamp + (oldest.delay ?? 0) : now;
          return {
            queue: queue.name,
            counts,
            oldestWaitingSeconds: Math.max(0, (now - waitingSince) / 1000),
          };
        }),
      );
    },
    async close() {
      await Promise.all(queues.map((queue) => queue.close().catch(() => undefined)));
    },
  };
}
