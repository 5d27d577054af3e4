/**
 * One round of one target in figures: what the subscribers measured (`Result`, bench/subscribers.ts)
 * turned into the numbers a row prints (`summary`).
 */

export interface Result {
  hops: number;
  /** Dialogues that ended on the Buy's answer, warm-up included: each is one purchase to fulfil. */
  buys: number;
  /** CPU ms each meter used during the measured window (null when unknown); the server first. */
  cpu: { name: string; ms: number | null }[];
  /** Busy and total CPU ms of the whole machine during the measured window. */
  machine: { busy: number; total: number } | null;
  errors: number;
  /** The first few unexpected answers, as received (the step, the HTTP status, the body). */
  unexpected: string[];
  elapsedMs: number;
  latencies: number[];
  /** The same latencies by the hop's place in its dialogue (0: the dial), the Buy last of all. */
  latenciesByHop: number[][];
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function summary(result: Result): {
  buys: number;
  hopsPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU µs per hop of each meter, the server first. */
  cpuUsPerHop: { name: string; us: number }[];
  machineBusy: number;
  machineUsPerHop: number;
  /** p50 and p99 of each hop of the dialogue (`latenciesByHop`'s places; a place never played: absent). */
  byHop: ({ p50: number; p99: number } | undefined)[];
} {
  const sorted = [...result.latencies].sort((a, b) => a - b);
  const byHop = Array.from(result.latenciesByHop, (hops) => {
    if (!hops) return undefined;
    const ordered = [...hops].sort((a, b) => a - b);
    return { p50: percentile(ordered, 50), p99: percentile(ordered, 99) };
  });
  return {
    buys: result.buys,
    hopsPerSec: result.hops / (result.elapsedMs / 1000),
    cpuUsPerHop: result.cpu.map(({ name, ms }) => ({
      name,
      us: ms === null ? NaN : (ms * 1000) / result.hops,
    })),
    machineBusy: result.machine ? result.machine.busy / result.machine.total : NaN,
    machineUsPerHop: result.machine ? (result.machine.busy * 1000) / result.hops : NaN,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    errors: result.errors,
    byHop,
  };
}

export type Summary = ReturnType<typeof summary>;
