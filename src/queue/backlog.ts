import { Queue, type ConnectionOptions } from 'bullmq';
import type { QueueState } from '../observability/metrics';
import { reportRedisError } from '../redis/errors';

/** Reads the backlog of BullMQ queues (what `queue_jobs` shows). */
export interface BacklogWatch {
  read(): Promise<QueueState[]>;
  close(): Promise<void>;
}

const COUNTED_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;

/** Read-only handles on the queues named, on connections of their own. */
export function watchBacklog(
  bull: { connection: ConnectionOptions; prefix: string },
  names: readonly string[],
): BacklogWatch {
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
