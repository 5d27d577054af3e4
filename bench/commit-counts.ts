/**
 * What the records cost: each gateway build's PostgreSQL commits, and of them its write
 * transactions (noted by a statement trigger on every table, bench/records.ts), counted before
 * the first round, around each round and its drain (bench/fulfilment.ts), and after the last.
 * The bench's own looks at a database are taken off its counts.
 */
import { TOPOLOGY } from './options';
import { stopProcess } from './processes';
import type { BenchDatabase, BenchDatabases } from './records';
import type { Build, StartWorker } from './builds';

/** A build's write transactions and commits so far (NaN: it has no database, or is not counted). */
export interface Counts {
  writes: number;
  commits: number;
}

/** The write transactions, then the commits, of `records` so far; NaN for both without it. */
export async function countsNow(
  databases: BenchDatabases,
  records: BenchDatabase | undefined,
): Promise<Counts> {
  const writes = records ? await databases.writes(records) : NaN;
  const commits = records ? await databases.commits(records) : NaN;
  return { writes, commits };
}

/** Where each build's counts start, before the first round (and, on the hop path, a worker's start). */
export async function startCounting(
  databases: BenchDatabases,
  builds: Build[],
  startWorker: StartWorker,
): Promise<void> {
  for (const build of builds) {
    if (!build.records) continue;
    // Its migrations are done (the build answered): from now on its writing transactions are noted.
    await databases.noteWrites(build.records);
    const startWrites = await databases.writes(build.records);
    const start = await databases.commits(build.records);
    build.fulfilled.commits = { start, end: NaN };
    build.fulfilled.writes = { start: startWrites, end: NaN };
    if (TOPOLOGY !== 'hop-path') continue;
    // What a worker's start and stop cost with nothing to do, taken off each drain's commits.
    await stopProcess(await startWorker(build));
    build.fulfilled.workerStartWrites = (await databases.writes(build.records)) - startWrites;
    build.fulfilled.workerStartCommits = (await databases.commits(build.records)) - start;
  }
}

/** After the last drain: where each build's counts end. */
export async function endCounting(databases: BenchDatabases, builds: Build[]): Promise<void> {
  for (const build of builds)
    if (build.records && build.fulfilled.commits) {
      if (build.fulfilled.writes) build.fulfilled.writes.end = await databases.writes(build.records);
      build.fulfilled.commits.end = await databases.commits(build.records);
    }
}

/**
 * Waits (up to 30 s) until no payment of the round is still `requested` or `pending`: its push's
 * answer and its callback are written. The Buy's END goes out before the push, and the payer
 * approves after it, so the round's last answers and callbacks may still be in the HTTP process
 * when the round ends; ending the database's connections to count commits then would lose them
 * (and their payments' keys). Answers its own commits.
 */
export async function answersWritten(databases: BenchDatabases, records: BenchDatabase): Promise<number> {
  const deadline = Date.now() + 30_000;
  const probed = await databases.withProbe(records, async (query) => {
    for (;;) {
      const [{ n }] = (await query(
        "SELECT count(*)::int AS n FROM payments WHERE state IN ('requested', 'pending')",
      )) as {
        n: number;
      }[];
      if (n === 0 || Date.now() > deadline) return n;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  // Its own commits, for the caller to take off the counts.
  return probed.ownCommits;
}
