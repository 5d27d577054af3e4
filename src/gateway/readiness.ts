/**
 * What "ready to take a Buy" means for a gateway or a worker, built from its money path: the
 * records answer, the schema has every migration this build ships, Redis answers (where it is
 * used). And the backlog of the job queues, for `/metrics`. Shared by `app.ts` and `worker.ts`.
 */
import type { ConnectionOptions } from 'bullmq';
import { INBOUND_SMS_QUEUE_NAME } from '../sms/inbound/queue';
import { SMS_QUEUE_NAME } from '../messaging/queue';
import { Probes, type ReadinessCheck } from '../observability/probes';
import { PAYMENT_QUEUE_NAME } from '../payments/queue';
import { PURCHASE_QUEUE_NAME, watchBacklog, type BacklogWatch } from '../queue';
import { migrationFiles, pendingMigrations } from '../records/migrate';
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

/**
 * The backlog of the queues the money path uses (the purchase lifecycle, payments when a
 * provider collects, outgoing and incoming SMS), for `/metrics`.
 */
export function watchQueues(
  bull: { connection: ConnectionOptions; prefix: string },
  options: { payments: boolean },
): BacklogWatch {
  return watchBacklog(bull, [
    PURCHASE_QUEUE_NAME,
    ...(options.payments ? [PAYMENT_QUEUE_NAME] : []),
    SMS_QUEUE_NAME,
    INBOUND_SMS_QUEUE_NAME,
  ]);
}
