/**
 * Group commit: the transactions that callers hand in while one is being written run together, one
 * after another on one transaction, and commit once for all. Each caller is answered only after
 * that commit, so what it writes is as durable before what it allows (a confirm, the next SMS
 * state) as in a transaction of its own; a commit is what PostgreSQL pays for most.
 *
 * For transaction bodies that only touch the records (no call out, no wait on anything but the
 * database) and may run again: when a body or a statement fails, the group is rolled back and each
 * body then runs alone, so one caller's refusal (a constraint, a thrown error of its own) costs the
 * others nothing but the re-run. A connection lost at the commit is not re-run (whether the commit
 * happened is not known): every caller gets it, as from a transaction of its own.
 */
import { isConnectionError, type Database, type Queryable } from './database';

/** At most this many bodies share one transaction (its locks are held until the last is done). */
const GROUP_MAX = 32;

interface Waiting {
  work: (tx: Queryable) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

export class TransactionGroup {
  private readonly waiting: Waiting[] = [];
  private writing = false;

  constructor(private readonly db: Pick<Database, 'transaction'>) {}

  /** `work` in a transaction, shared with the bodies handed in while the previous one was written. */
  run<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) await this.write(this.waiting.splice(0, GROUP_MAX));
    } finally {
      this.writing = false;
    }
  }

  private async write(group: Waiting[]): Promise<void> {
    if (group.length === 1) return this.alone(group[0]);
    let results: unknown[];
    let bodyFailed = false;
    try {
      results = await this.db.transaction(async (tx) => {
        const out: unknown[] = [];
        for (const { work } of group) {
          try {
            out.push(await work(tx));
          } catch (error) {
            bodyFailed = true;
            throw error;
          }
        }
        return out;
      });
    } catch (error) {
      // A body's failure rolled the whole group back, so nothing of it was written: each body runs
      // again alone and its caller gets its own answer. Only a connection lost outside the bodies
      // (at the commit) leaves it unknown whether the group was written.
      if (!bodyFailed && isConnectionError(error)) {
        for (const { reject } of group) reject(error);
        return;
      }
      for (const waiting of group) await this.alone(waiting);
      return;
    }
    group.forEach(({ resolve }, i) => resolve(results[i]));
  }

  private async alone({ work, resolve, reject }: Waiting): Promise<void> {
    await this.db.transaction(work).then(resolve, reject);
  }
}
