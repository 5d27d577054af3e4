/**
 * `npm run bench`: plays whole USSD dialogues (electricity purchase: five hops, six on a build
 * that asks who gets the token) for 64
 * concurrent subscribers against the gateway (Redis sessions and jobs, a sandbox purchase
 * service without artificial delay) and, in the same run, against a `ussd-builder` peer
 * (bench/peer-server.ts), a bare express handler that answers a constant screen, and the
 * gateway's floor (bench/floor-engine.ts: its guarantees without the dialogue engine). Prints
 * hops/s, p50 and p99 hop latency and CPU per hop for each, and their ratios.
 *
 * Every server, the sandbox and the baseline each run in their own process so the load
 * generator does not share their event loop.
 *
 * Each gateway build keeps its records in a PostgreSQL database of its own (bench/records.ts),
 * so its commits are counted exactly: per Buy on the HTTP path, per purchase in the worker that
 * fulfils them (with its purchases per second and CPU per purchase), beside `pgbench`'s TPC-B
 * transactions per second on the same server in the same run.
 *
 * This file runs the rounds; the rest, in the order a run meets it:
 * - bench/options.ts: the options (BENCH_* and REDIS_URL);
 * - bench/targets.ts, bench/builds.ts: starting the targets, each gateway build with its
 *   sandboxes, database and worker (bench/processes.ts: the child processes);
 * - bench/subscribers.ts: the subscribers' load, a round's hops timed (bench/cpu.ts: CPU meters);
 * - bench/commit-counts.ts: each build's commits and write transactions, around each round;
 * - bench/fulfilment.ts: the worker draining the purchases, timed;
 * - bench/redis-keys.ts: a live dialogue's Redis memory, and the run's keys removed;
 * - bench/report.ts: everything printed.
 */
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { countsNow, endCounting, startCounting } from './commit-counts';
import { loadGeneratorMeter, postgresMeter, processMeter, redisMeter } from './cpu';
import { drain, fulfilRound, walletLeft } from './fulfilment';
import { KEEP_KEYS, PGBENCH_SECONDS, REDIS_URL, ROUNDS, TOPOLOGY } from './options';
import { exited, terminate } from './processes';
import { benchDatabases, pgbenchTps } from './records';
import { liveDialogueBytes, removeKeys, type LiveDialogueBytes } from './redis-keys';
import {
  header,
  reportFulfilment,
  reportMedians,
  reportPgbench,
  reportPlan,
  reportRecords,
  row,
} from './report';
import { closeConnections, playDialogues } from './subscribers';
import { summary } from './summary';
import { freePorts, startTargets, type Target } from './targets';

async function main(): Promise<void> {
  const ports = await freePorts();
  const runId = Date.now().toString(36);
  const children: ChildProcess[] = [];
  const stopAll = () => children.forEach(terminate);
  process.on('exit', stopAll);

  const infoClient = new Redis(REDIS_URL);
  const databases = await benchDatabases(runId);
  try {
    // PostgreSQL's own pace on this machine, before anything else runs: the scale for commits.
    const pgbench =
      PGBENCH_SECONDS > 0
        ? await pgbenchTps(databases, PGBENCH_SECONDS)
        : { skipped: 'BENCH_PGBENCH_SECONDS=0' };
    reportPgbench(pgbench);
    const postgres = postgresMeter(await databases.postmasterPid());
    const started = await startTargets(ports, runId, databases, children);
    const { targets, current, baseline, unpaid, builds, worker, startWorker } = started;
    reportPlan(baseline !== undefined);
    // The server's own CPU, then everything else the machine spends on a hop.
    const others = (target: Target) => [
      loadGeneratorMeter,
      redisMeter(infoClient),
      processMeter('sandbox', target.sandbox.pid),
      // A party of its own: the build's M-Pesa sandbox (its STK pushes and callbacks).
      ...(target.build?.paymentSandbox
        ? [processMeter('payment sandbox', target.build.paymentSandbox.process.pid)]
        : []),
      ...(worker ? [processMeter('worker', worker.pid)] : []),
      // Every target's: the gateways' records, the peer's none (its share shows what idles there).
      postgres,
    ];
    // Assigned by the mid-round sampler of the gateway's rounds.
    let liveBytes: LiveDialogueBytes = null;
    await startCounting(databases, builds, startWorker);
    for (let round = 1; round <= ROUNDS; round += 1) {
      console.log(`round ${round}`);
      console.log(header);
      // Each round starts one target later (A B C, B C A, C A B, …): the first target of a round
      // plays right after the previous round's drain and measured 3–6% more CPU per hop than
      // the last one with the same build in both places.
      const shift = (round - 1) % targets.length;
      for (const target of [...targets.slice(shift), ...targets.slice(0, shift)]) {
        // The hop path alone plays against the build's database: its commits are the HTTP path's.
        const records = TOPOLOGY === 'hop-path' ? target.build?.records : undefined;
        const before = await countsNow(databases, records);
        const played = await playDialogues(
          target.port,
          '/ussd/africastalking',
          `${runId}-${round}`,
          [processMeter('server', target.server.pid), ...others(target)],
          // The gateway's live dialogue records, sampled mid-round (every dialogue ends by the round's end).
          target === targets[0]
            ? async (inFlight) => {
                liveBytes = (await liveDialogueBytes(infoClient, `bench-${runId}`, inFlight)) ?? liveBytes;
              }
            : undefined,
        );
        const result = summary(played);
        target.results.push(result);
        console.log(row(target.name, result));
        for (const answer of played.unexpected) console.log(`  unexpected answer: ${answer}`);
        if (target.build) {
          target.build.fulfilled.buys += result.buys;
          // The hop path alone: the round's purchases are fulfilled (and checked) before the next
          // target plays, so the worker's CPU falls in no measured window.
          if (TOPOLOGY === 'hop-path')
            await fulfilRound(target.build, result.buys, before, databases, infoClient, startWorker);
        }
      }
    }

    reportMedians(started, liveBytes);
    await drain(worker ?? current.server, current, current.fulfilled, databases, infoClient);
    if (baseline) await drain(baseline.server, baseline, baseline.fulfilled, databases, infoClient);
    if (unpaid) await drain(unpaid.server, unpaid, unpaid.fulfilled, databases, infoClient);
    await endCounting(databases, builds);
    reportRecords(
      [
        ['gateway', current],
        ...(baseline ? [['baseline', baseline] as const] : []),
        ...(unpaid ? [['unpaid', unpaid] as const] : []),
      ] as const,
      'tps' in pgbench ? pgbench.tps : null,
    );
    for (const build of builds)
      if ((build.fulfilled.states.failed ?? 0) > 0)
        build.fulfilled.walletLeft = await walletLeft(build.sandbox.port);
    reportFulfilment(current.fulfilled);
    if (baseline) {
      process.stdout.write('baseline ');
      reportFulfilment(baseline.fulfilled);
    }
    if (unpaid) {
      process.stdout.write('no payment ');
      reportFulfilment(unpaid.fulfilled);
    }
  } finally {
    stopAll();
    await Promise.all(
      children.map((child) =>
        exited(child) ? undefined : new Promise((resolve) => child.once('exit', resolve)),
      ),
    );
    closeConnections();
    infoClient.disconnect();
    if (!KEEP_KEYS) await databases.dropAll();
    await databases.close();
    if (!KEEP_KEYS) await removeKeys(`bench-${runId}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
