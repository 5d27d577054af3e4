import type { Worker } from 'bullmq';
import type winston from 'winston';

/** How long a BullMQ worker may take to close once its last job has finished. */
export const WORKER_CLOSE_GRACE_MS = 3000;

/**
 * Closes BullMQ workers without hanging. `Worker.close()` never settles when its blocking
 * connection is waiting to reconnect at that moment (taskforcesh/bullmq#4656: ioredis emits no
 * "end" for a socketless client), so a Redis blip just before a shutdown would hang it forever.
 * Jobs still running are always waited for: a confirm in flight must finish and record its
 * outcome. Only after them does the close get a grace period, and then it is abandoned: the
 * parked connection holds no socket and no timer, so nothing keeps the process alive.
 */
export class WorkerJobs {
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly log: winston.Logger,
    private readonly graceMs = WORKER_CLOSE_GRACE_MS,
  ) {}

  /** Wraps a job processor so that `close` knows which jobs are still running. */
  track<Args extends unknown[], Result>(
    processor: (...args: Args) => Promise<Result>,
  ): (...args: Args) => Promise<Result> {
    return (...args) => {
      const run = processor(...args);
      this.running.add(run);
      const forget = () => this.running.delete(run);
      run.then(forget, forget);
      return run;
    };
  }

  /** Closes the worker: waits for its jobs, then at most the grace period for BullMQ. */
  async close(worker: Worker): Promise<void> {
    // close() marks the worker closing at once, so no job starts after this snapshot.
    const closed = worker.close().then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const abandoned = Promise.allSettled([...this.running]).then(
      () =>
        new Promise<false>((resolve) => {
          timer = setTimeout(resolve, this.graceMs, false).unref();
        }),
    );
    const finished = await Promise.race([closed, abandoned]);
    clearTimeout(timer); // a timer started after `closed` won is unref'd and harmless
    if (!finished) {
      this.log.warn('job worker did not close after its jobs finished; left behind', {
        worker: worker.name,
        graceMs: this.graceMs,
      });
    }
  }
}
