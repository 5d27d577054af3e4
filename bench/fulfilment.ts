/**
 * The worker's measure: every Buy a gateway build answered is a purchase to fulfil. A drain waits
 * until none is in flight and the job queues are empty, timing the worker and the machine; on the
 * hop path (BENCH_TOPOLOGY) a worker drains each round's purchases before the next target plays,
 * and the round's commits (bench/commit-counts.ts) are split between the HTTP path and the worker.
 */
import type { ChildProcess } from 'node:child_process';
import type { Redis } from 'ioredis';
import { answersWritten, countsNow, type Counts } from './commit-counts';
import { cpuMs, machineCpuMs } from './cpu';
import { exited, getText } from './processes';
import type { BenchDatabases } from './records';
import type { Build, StartWorker } from './builds';

/** `purchases_by_state` of the gateway's `/metrics` (read from the purchase store at each scrape). */
async function purchaseStates(port: number): Promise<Record<string, number>> {
  const text = await getText(port, '/metrics');
  const states: Record<string, number> = {};
  for (const [, state, count] of text.matchAll(/^purchases_by_state\{state="(\w+)"\} (\d+)/gm))
    states[state] = Number(count);
  return states;
}

const IN_FLIGHT = ['created', 'confirming', 'unknown', 'reconciling'];

/** One round's purchases of a build, fulfilled by a worker after the round (hop-path). */
export interface RoundFulfilment {
  buys: number;
  /** The build's commits while the round was played (the HTTP process alone), per Buy. */
  httpCommitsPerBuy: number;
  /** Of those, the write transactions (the rest read only, or a session's start). */
  httpWritesPerBuy: number;
  /** The worker's commits while it fulfilled them, per purchase. */
  workerCommitsPerPurchase: number;
  workerWritesPerPurchase: number;
  /** Purchases settled per second, from the worker's health answer to the last one settled. */
  purchasesPerSec: number;
  workerCpuMsPerPurchase: number;
  /** The whole machine's busy CPU (PostgreSQL, Redis and the sandbox included) per purchase. */
  machineCpuMsPerPurchase: number;
  /**
   * Whether its worker had drained a round before: its code compiled and optimised, as in a worker
   * that has run a while. A worker's first drain also pays V8's compiling (a quarter of its CPU in
   * a paying drain of 7 s: the optimising compiler on V8's background threads).
   */
  warm: boolean;
}

/** What the purchases of the run came to. */
export interface Fulfilment {
  buys: number;
  /** Worker CPU ms spent draining (hop-path only: the drains run between rounds). */
  drainCpuMs: number;
  drainMs: number;
  states: Record<string, number>;
  /** What the build's sandbox wallet had left at the end, when purchases failed. */
  walletLeft?: string | null;
  /** Per round (hop-path only). */
  rounds: RoundFulfilment[];
  /** The build's database commits before the first round and after the last drain; null without one. */
  commits: { start: number; end: number } | null;
  /** Commits the bench's own probe of the purchase states made (taken off the build's). */
  probeCommits: number;
  /** A worker's start and stop with nothing to do (hop-path: taken off each drain's commits). */
  workerStartCommits: number;
  workerStartWrites: number;
  /** The build's write transactions before the first round and after the last drain. */
  writes: { start: number; end: number } | null;
  /** Payments found successful, and succeeded purchases without one; null: the build collects nothing. */
  payments: { paid: number; succeededUnpaid: number } | null;
}

/**
 * What one drain took, from the last look at its purchases all in flight to the look that found
 * them all settled and the job queues empty: the worker's start is outside it.
 */
interface Drained {
  purchases: number;
  ms: number;
  cpuMs: number;
  machineMs: number;
}

const QUEUES = ['purchases', 'sms-notify', 'payments'];

/** Whether a build's purchase and SMS queues have no job waiting or running (BullMQ's keys). */
async function queuesIdle(redis: Redis, prefix: string): Promise<boolean> {
  const sizes = await Promise.all(
    QUEUES.flatMap((queue) => [
      redis.llen(`${prefix}-bull:${queue}:wait`),
      redis.llen(`${prefix}-bull:${queue}:active`),
      redis.zcard(`${prefix}-bull:${queue}:prioritized`),
    ]),
  );
  return sizes.every((size) => size === 0);
}

/**
 * Every Buy the gateway answered is a purchase to fulfil: waits until none is in flight and the
 * queues are empty, reading the purchases from the build's database when it has one (the
 * gateway's `/metrics` otherwise, which would add the gateway's commits), and adds the worker's
 * CPU to `totals`.
 */
export async function drain(
  worker: ChildProcess,
  build: Pick<Build, 'port' | 'records' | 'env' | 'paymentSandbox'>,
  totals: Fulfilment,
  databases: BenchDatabases,
  redis: Redis,
): Promise<Drained> {
  const from = Date.now();
  const look = () => ({
    at: Date.now(),
    cpu: cpuMs(worker.pid) ?? NaN,
    machine: machineCpuMs()?.busy ?? NaN,
  });
  const waitFor = async (inFlight: () => Promise<number>) => {
    const initial = await inFlight();
    let allInFlight = look();
    for (;;) {
      const [left, idle] = await Promise.all([inFlight(), queuesIdle(redis, build.env.REDIS_PREFIX)]);
      const now = look();
      if (left === initial) allInFlight = now;
      if (left === 0 && idle)
        return {
          purchases: initial,
          ms: now.at - allInFlight.at,
          cpuMs: now.cpu - allInFlight.cpu,
          machineMs: now.machine - allInFlight.machine,
        };
      if (Date.now() - from > 600_000) throw new Error(`purchases still in flight after 10 minutes: ${left}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const inFlightList = IN_FLIGHT.map((state) => `'${state}'`).join(', ');
  let drained: Drained;
  if (build.records) {
    const probed = await databases.withProbe(build.records, async (query) => {
      const took = await waitFor(
        async () =>
          (
            (await query(`SELECT count(*)::int AS n FROM purchases WHERE state IN (${inFlightList})`)) as {
              n: number;
            }[]
          )[0].n,
      );
      const rows = (await query('SELECT state, count(*)::int AS n FROM purchases GROUP BY state')) as {
        state: string;
        n: number;
      }[];
      totals.states = Object.fromEntries(rows.map(({ state, n }) => [state, n]));
      if (build.paymentSandbox) {
        const [paid] = (await query(
          `SELECT (SELECT count(*)::int FROM payments WHERE state = 'successful') AS paid,
                  (SELECT count(*)::int FROM purchases pu WHERE pu.state = 'succeeded' AND NOT EXISTS
                     (SELECT 1 FROM payments pa WHERE pa.purchase_id = pu.id AND pa.state = 'successful')) AS unpaid`,
        )) as { paid: number; unpaid: number }[];
        totals.payments = { paid: paid.paid, succeededUnpaid: paid.unpaid };
      }
      return took;
    });
    drained = probed.value;
    totals.probeCommits += probed.ownCommits;
  } else {
    drained = await waitFor(async () => {
      const states = await purchaseStates(build.port);
      return IN_FLIGHT.reduce((sum, state) => sum + (states[state] ?? 0), 0);
    });
    totals.states = await purchaseStates(build.port);
  }
  totals.drainCpuMs += drained.cpuMs;
  totals.drainMs += drained.ms;
  return drained;
}

/**
 * The sandbox's main wallet (account 1001, BWP 1,000,000) pays every Buy of a build: BWP 10 and
 * the charges. A run long or fast enough to spend it sees its last purchases fail as
 * `insufficient_balance`; the report then says so rather than leave it to guess.
 */
export async function walletLeft(sandboxPort: number): Promise<string | null> {
  const accounts = JSON.parse(await getText(sandboxPort, '/sandbox/accounts')) as Array<{
    id: number;
    balance?: unknown;
  }>;
  const main = accounts.find((account) => account.id === 1001);
  return main ? String(main.balance) : null;
}

/** A build's purchases before its first round: none yet. */
export function noFulfilment(): Fulfilment {
  return {
    buys: 0,
    drainCpuMs: 0,
    drainMs: 0,
    states: {},
    rounds: [],
    commits: null,
    writes: null,
    probeCommits: 0,
    workerStartCommits: 0,
    workerStartWrites: 0,
    payments: null,
  };
}

/**
 * The hop path's round of `build`, played (`before`: its counts before the round): the build's
 * worker fulfils the round's `buys` and is stopped (SIGSTOP) until the next round's drain, so its
 * CPU falls in no measured window; it is started at the first drain, and drains warm after it. The
 * round's commits and writes per Buy on the HTTP path and per purchase in the worker are noted.
 */
export async function fulfilRound(
  build: Build,
  buys: number,
  before: Counts,
  databases: BenchDatabases,
  redis: Redis,
  startWorker: StartWorker,
): Promise<void> {
  const { fulfilled, records } = build;
  // Counting ends the database's connections: first let the HTTP process write what it
  // still has in hand (a push's answer after the Buy's END), or a payment loses its key.
  const waited = records && build.paymentSandbox ? await answersWritten(databases, records) : 0;
  fulfilled.probeCommits += waited;
  const played = await countsNow(databases, records);
  const probeBefore = fulfilled.probeCommits;
  // Its connections to the database were ended by the counts: its pool opens new ones.
  const warm = build.drainer !== undefined && !exited(build.drainer);
  if (warm) build.drainer!.kill('SIGCONT');
  else build.drainer = await startWorker(build, false);
  const drained = await drain(build.drainer!, build, fulfilled, databases, redis);
  build.drainer!.kill('SIGSTOP');
  const afterDrain = await countsNow(databases, records);
  const perBuy = (value: number) => value / Math.max(1, buys);
  // A worker's start is taken off the drain that started it.
  const started = warm
    ? { writes: 0, commits: 0 }
    : { writes: fulfilled.workerStartWrites, commits: fulfilled.workerStartCommits };
  fulfilled.rounds.push({
    buys,
    httpCommitsPerBuy: perBuy(played.commits - before.commits - waited),
    httpWritesPerBuy: perBuy(played.writes - before.writes),
    workerWritesPerPurchase: perBuy(afterDrain.writes - played.writes - started.writes),
    workerCommitsPerPurchase: perBuy(
      afterDrain.commits - played.commits - (fulfilled.probeCommits - probeBefore) - started.commits,
    ),
    purchasesPerSec: drained.purchases / (drained.ms / 1000),
    workerCpuMsPerPurchase: drained.cpuMs / Math.max(1, drained.purchases),
    machineCpuMsPerPurchase: drained.machineMs / Math.max(1, drained.purchases),
    warm,
  });
}
