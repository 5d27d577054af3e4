/**
 * What `npm run bench` prints: the run's plan, a row per target and round, the medians and
 * ratios of the rounds, CPU per hop by party, what the records cost a purchase and what the
 * purchases came to (a Buy not fulfilled fails the run).
 */
import type { Build } from './builds';
import type { Fulfilment, RoundFulfilment } from './fulfilment';
import { median } from './median';
import {
  BASELINE_ARGS,
  DURATION_MS,
  PGBENCH_SECONDS,
  profileFlags,
  START_ARGS,
  WORKER_ARGS,
  ROUNDS,
  SUBSCRIBERS,
  TOPOLOGY,
  WARMUP_MS,
} from './options';
import { BENCH_DATABASE_URL } from './records';
import type { LiveDialogueBytes } from './redis-keys';
import { HOP_PLACES } from './subscribers';
import type { Summary } from './summary';
import type { Target, Targets } from './targets';

/** PostgreSQL's own pace on this machine (pgbench), or why it was not measured. */
export function reportPgbench(pgbench: { tps: number } | { skipped: string }): void {
  console.log(
    'tps' in pgbench
      ? `pgbench (TPC-B, scale 1, 8 clients, 2 threads, ${PGBENCH_SECONDS} s) on ${new URL(BENCH_DATABASE_URL).host}: ${pgbench.tps.toFixed(0)} transactions/s`
      : `pgbench skipped: ${pgbench.skipped}`,
  );
}

/** What is played, how long, and where the gateway's purchases are fulfilled. */
export function reportPlan(withBaseline: boolean): void {
  const jobsRun = {
    'hop-path': 'purchases fulfilled by a worker process after each of its rounds',
    alongside: 'purchases fulfilled by a worker process during the rounds',
    single: 'purchases fulfilled in the HTTP process',
  }[TOPOLOGY];
  console.log(
    `playing electricity dialogues (5 hops; 6 where 'Send the token to' is asked) for ${SUBSCRIBERS} subscribers, ${WARMUP_MS} ms warm-up + ${DURATION_MS} ms measured, ` +
      `gateway: ${jobsRun} (node ${[...profileFlags('gateway'), ...START_ARGS].join(' ') || 'without flags'}` +
      `${withBaseline ? `; baseline: node ${BASELINE_ARGS.join(' ') || 'without flags'}` : ''}` +
      `${TOPOLOGY === 'single' ? '' : `; worker: node ${WORKER_ARGS.join(' ') || 'without flags'}`}), ` +
      `targets interleaved over ${ROUNDS} rounds, each round starting one target later (medians reported)`,
  );
}

/** The columns of a round's rows and of the medians'. */
export const header =
  `${'target'.padEnd(22)} ${'hops/s'.padStart(8)} ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)} ${'errors'.padStart(7)} ` +
  `${'cpu µs/hop'.padStart(11)} ${'machine busy'.padStart(13)} ${'machine µs/hop'.padStart(15)}`;
/** One target's figures under `header`: a round's, or the medians of the rounds. */
export const row = (name: string, s: Summary) =>
  `${name.padEnd(22)} ${s.hopsPerSec.toFixed(0).padStart(8)} ${s.p50.toFixed(2).padStart(9)} ${s.p99.toFixed(2).padStart(9)} ${String(s.errors).padStart(7)} ${s.cpuUsPerHop[0].us.toFixed(0).padStart(11)} ${`${(s.machineBusy * 100).toFixed(0)}%`.padStart(13)} ${s.machineUsPerHop.toFixed(0).padStart(15)}`;

/**
 * The medians of the rounds per target, their ratios (the gateway against the peer, the bare
 * handler, the baseline, the floor and itself without payment step), each party's CPU per hop and
 * the Redis memory of a live dialogue.
 */
export function reportMedians(
  { targets, floorTarget, unpaidTarget, baseline }: Targets,
  liveBytes: LiveDialogueBytes,
): void {
  const med = (target: Target, pick: (s: Summary) => number) => median(target.results.map(pick));
  const medianOf = (target: Target): Summary => ({
    buys: target.results.reduce((sum, s) => sum + s.buys, 0),
    hopsPerSec: med(target, (s) => s.hopsPerSec),
    p50: med(target, (s) => s.p50),
    p99: med(target, (s) => s.p99),
    errors: target.results.reduce((sum, s) => sum + s.errors, 0),
    cpuUsPerHop: target.results[0].cpuUsPerHop.map(({ name }, i) => ({
      name,
      us: med(target, (s) => s.cpuUsPerHop[i].us),
    })),
    machineBusy: med(target, (s) => s.machineBusy),
    machineUsPerHop: med(target, (s) => s.machineUsPerHop),
    byHop: Array.from({ length: Math.max(...target.results.map((s) => s.byHop.length)) }, (_, place) => {
      const played = target.results.map((s) => s.byHop[place]).filter((hop) => hop !== undefined);
      return played.length === 0
        ? undefined
        : { p50: median(played.map((hop) => hop.p50)), p99: median(played.map((hop) => hop.p99)) };
    }),
  });
  const medians = targets.map(medianOf);
  const [gw, builder, bareTarget] = medians;
  console.log(`medians of ${ROUNDS} rounds (errors: the sum)`);
  console.log(header);
  targets.forEach((target, i) => console.log(row(target.name, medians[i])));
  const ratio = (a: Summary, b: Summary) =>
    `throughput ${(a.hopsPerSec / b.hopsPerSec).toFixed(2)}, p50 ${(a.p50 / b.p50).toFixed(2)}x, ` +
    `p99 ${(a.p99 / b.p99).toFixed(2)}x, server CPU/hop ${(a.cpuUsPerHop[0].us / b.cpuUsPerHop[0].us).toFixed(2)}x`;
  console.log(`ratio gateway/peer: ${ratio(gw, builder)} (target: throughput >= 1.0, p99 <= 1.0x)`);
  console.log(`ratio peer/bare:    ${ratio(builder, bareTarget)}`);
  console.log(`ratio gateway/bare: ${ratio(gw, bareTarget)}`);
  // The host's speed drifts during a run: a round's gateway and peer played back to back are
  // the closest pair, so the median of the per-round ratios is the steadier comparison.
  const paired = (a: Target, b: Target, pick: (s: Summary) => number) =>
    median(a.results.map((s, round) => pick(s) / pick(b.results[round]))).toFixed(2);
  const pairedRatios = (a: Target, b: Target) =>
    `throughput ${paired(a, b, (s) => s.hopsPerSec)}, p99 ${paired(a, b, (s) => s.p99)}x, ` +
    `server CPU/hop ${paired(a, b, (s) => s.cpuUsPerHop[0].us)}x`;
  console.log(`per-round ratios gateway/peer, median: ${pairedRatios(targets[0], targets[1])}`);
  if (baseline) {
    console.log(`ratio gateway/baseline: ${ratio(gw, medians[3])}`);
    console.log(`per-round ratios gateway/baseline, median: ${pairedRatios(targets[0], targets[3])}`);
  }
  // What the guarantees alone cost against the peer, and what the dialogue engine adds to them.
  const floorMedian = medians[targets.indexOf(floorTarget)];
  console.log(`ratio floor/peer:   ${ratio(floorMedian, builder)}`);
  console.log(`per-round ratios floor/peer, median: ${pairedRatios(floorTarget, targets[1])}`);
  console.log(`ratio gateway/floor: ${ratio(gw, floorMedian)}`);
  console.log(`per-round ratios gateway/floor, median: ${pairedRatios(targets[0], floorTarget)}`);
  const unpaidMedian = unpaidTarget ? medians[targets.indexOf(unpaidTarget)] : undefined;
  if (unpaidTarget && unpaidMedian) {
    console.log(`ratio gateway/no payment: ${ratio(gw, unpaidMedian)}`);
    console.log(`per-round ratios gateway/no payment, median: ${pairedRatios(targets[0], unpaidTarget)}`);
  }
  const breakdown = (s: Summary) =>
    s.cpuUsPerHop.map(({ name, us }) => `${name} ${us.toFixed(0)}`).join(', ');
  for (const [name, s] of [
    ['gateway', gw],
    ['peer', builder],
    ['bare', bareTarget],
    ...(baseline ? [['baseline', medians[3]] as const] : []),
    ['floor', floorMedian],
    ...(unpaidMedian ? [['unpaid', unpaidMedian] as const] : []),
  ] as const)
    console.log(`CPU µs per hop, ${name.padEnd(8)} ${breakdown(s)}`);
  // Where a target's tail is: which hops wait (the dial reads, the quote reads and calls, the Buy writes).
  targets.forEach((target, i) =>
    console.log(
      `p50/p99 ms by hop, ${target.name}: ` +
        medians[i].byHop
          .flatMap((hop, place) =>
            hop ? [`${HOP_PLACES[place] ?? place} ${hop.p50.toFixed(0)}/${hop.p99.toFixed(0)}`] : [],
          )
          .join(', '),
    ),
  );
  if (liveBytes !== null)
    console.log(
      `Redis per live dialogue (gateway): ${liveBytes.record} bytes (mean of ${liveBytes.records} records), ` +
        `plus ${liveBytes.shared} bytes of shared context stored once for all`,
    );
}

/** Prints what the purchases came to; throws when a Buy was not fulfilled. */
export function reportFulfilment(totals: Fulfilment): void {
  const { buys, states } = totals;
  const settled = (states.succeeded ?? 0) + (states.failed ?? 0) + (states.needs_attention ?? 0);
  const perPurchase =
    TOPOLOGY === 'hop-path'
      ? `; worker CPU ${((totals.drainCpuMs * 1000) / Math.max(1, buys)).toFixed(0)} µs per purchase, ` +
        `drains between rounds ${(totals.drainMs / 1000).toFixed(1)} s in all`
      : '';
  const paid = totals.payments
    ? `, ${totals.payments.paid} paid through the M-Pesa sandbox`
    : ', nothing collected (no payment step)';
  console.log(
    `purchases: ${buys} Buys answered; ${states.succeeded ?? 0} succeeded, ${states.failed ?? 0} failed, ` +
      `${states.needs_attention ?? 0} need attention${paid}${perPurchase}`,
  );
  if (totals.payments && totals.payments.succeededUnpaid > 0)
    throw new Error(`${totals.payments.succeededUnpaid} purchases succeeded without a successful payment`);
  if (settled < buys || (states.failed ?? 0) > 0 || (states.needs_attention ?? 0) > 0)
    throw new Error(
      `not every Buy was fulfilled${totals.walletLeft ? ` (the sandbox's main wallet has ${totals.walletLeft} left: a shorter run spends less)` : ''}`,
    );
}

/**
 * What the records cost a purchase, per build: PostgreSQL commits per Buy on the HTTP path and
 * per purchase in the worker (medians of the rounds), and in all over the run; the worker's
 * purchases per second and CPU per purchase; against the baseline and pgbench.
 */
export function reportRecords(
  builds: readonly (readonly [string, Build])[],
  pgbenchTps: number | null,
): void {
  const medianOf = (build: Build, pick: (round: RoundFulfilment) => number) =>
    build.fulfilled.rounds.length ? median(build.fulfilled.rounds.map(pick)) : NaN;
  console.log(
    `records: PostgreSQL commits (pg_stat_database of a database of its own per build), target <= 3 per purchase; ` +
      `write transactions noted by a trigger (read-only: the rest, session starts included)`,
  );
  for (const [name, build] of builds) {
    const { commits, writes, buys, probeCommits } = build.fulfilled;
    const http = medianOf(build, (r) => r.httpCommitsPerBuy);
    const worker = medianOf(build, (r) => r.workerCommitsPerPurchase);
    const httpWrites = medianOf(build, (r) => r.httpWritesPerBuy);
    const workerWrites = medianOf(build, (r) => r.workerWritesPerPurchase);
    const writesInAll = writes ? (writes.end - writes.start) / Math.max(1, buys) : NaN;
    // Beside each total: its write transactions, and the rest (read-only, or a session's start).
    const split = (all: number, wrote: number) =>
      Number.isNaN(wrote) ? '' : ` (${wrote.toFixed(1)} write, ${(all - wrote).toFixed(1)} read-only)`;
    const inAll = commits ? (commits.end - commits.start - probeCommits) / Math.max(1, buys) : NaN;
    console.log(
      `${name.padEnd(9)} ` +
        (build.records
          ? `${http.toFixed(1)} commits per Buy on the HTTP path${split(http, httpWrites)} + ` +
            `${worker.toFixed(1)} per purchase in the worker${split(worker, workerWrites)}; ` +
            `${inAll.toFixed(1)} per Buy over the whole run${split(inAll, writesInAll)} (start-ups and sweeps included; a worker's start ${build.fulfilled.workerStartCommits})`
          : 'no PostgreSQL: this build keeps its records in Redis'),
    );
    const { rounds } = build.fulfilled;
    if (rounds.length) {
      // The warm drains' medians (a worker that has run a while); the first drain's, cold, beside.
      const warm = rounds.filter((r) => r.warm);
      const of = warm.length ? warm : rounds;
      const cold = rounds.find((r) => !r.warm);
      const workerFigures = (pick: (r: RoundFulfilment) => number) => median(of.map(pick));
      const rate = workerFigures((r) => r.purchasesPerSec);
      console.log(
        `${''.padEnd(9)} worker${warm.length ? `, warm (median of the ${warm.length} drains after its first)` : ', its one drain (cold)'}: ` +
          `${rate.toFixed(0)} purchases/s, ` +
          `${workerFigures((r) => r.workerCpuMsPerPurchase).toFixed(2)} ms CPU per purchase, ` +
          `machine ${workerFigures((r) => r.machineCpuMsPerPurchase).toFixed(2)} ms CPU per purchase (PostgreSQL, Redis, sandbox included)` +
          (build.records ? `; ${(rate * worker).toFixed(0)} commits/s while it fulfils them` : ''),
      );
      if (warm.length && cold)
        console.log(
          `${''.padEnd(9)} its first drain, cold (V8 compiling as it goes): ${cold.purchasesPerSec.toFixed(0)} purchases/s, ` +
            `${cold.workerCpuMsPerPurchase.toFixed(2)} ms CPU per purchase, machine ${cold.machineCpuMsPerPurchase.toFixed(2)} ms`,
        );
    }
  }
  for (const [name, b] of builds.slice(1)) {
    const a = builds[0][1];
    if (!a.fulfilled.rounds.length || !b.fulfilled.rounds.length) continue;
    // Round i of one build against round i of the other: both warm, or both the first drain.
    const pairs = (pick: (round: RoundFulfilment) => number, warm: boolean) => {
      const ratios = a.fulfilled.rounds.flatMap((r, i) => {
        const other = b.fulfilled.rounds[i];
        return other && r.warm === warm && other.warm === warm ? [pick(r) / pick(other)] : [];
      });
      return ratios.length ? median(ratios).toFixed(2) : 'n/a';
    };
    const figures = (warm: boolean) =>
      `worker purchases/s ${pairs((r) => r.purchasesPerSec, warm)}, ` +
      `worker CPU per purchase ${pairs((r) => r.workerCpuMsPerPurchase, warm)}x, machine CPU per purchase ${pairs((r) => r.machineCpuMsPerPurchase, warm)}x`;
    console.log(`per-round ratios gateway/${name}, median of the warm drains: ${figures(true)}`);
    console.log(`  the first drains (cold): ${figures(false)}`);
  }
  if (pgbenchTps !== null)
    console.log(`pgbench in the same run: ${pgbenchTps.toFixed(0)} TPC-B transactions/s (8 clients)`);
}
