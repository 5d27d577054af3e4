/**
 * The options of `npm run bench` (bench/run.ts), all from the environment: read once, when the
 * bench starts, so that a wrong one stops it before anything runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { distRoot } from './processes';

export const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 64);
export const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 15000);
export const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 3000);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/**
 * Where the gateway's purchase jobs run: `hop-path` (default) — a worker process of each build
 * drains each round's purchases after the round, stopped while the targets play (the peer's Buy
 * only pushes onto a list that nothing reads);
 * `alongside` — a worker process runs them during the rounds (production's layout on one box);
 * `single` — the HTTP process runs them too (`npm start`).
 */
export const TOPOLOGY = process.env.BENCH_TOPOLOGY ?? 'hop-path';
if (!['hop-path', 'alongside', 'single'].includes(TOPOLOGY))
  throw new Error(`BENCH_TOPOLOGY must be hop-path, alongside or single, not ${TOPOLOGY}`);
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * The gateway row collects every Buy through M-Pesa at a payment sandbox process of its own, as
 * production would (a purchase service URL alone leaves PAYMENT_PROVIDER at `none`).
 * This build also plays with no payment step (PAYMENT_PROVIDER=none), as a row of its own, unless
 * `BENCH_PAYMENT=with` (or `alongside`, whose one worker serves one build).
 */
export const WITHOUT_PAYMENT = process.env.BENCH_PAYMENT !== 'with' && TOPOLOGY !== 'alongside';
/** How long the payment sandbox's payers take to approve a push (see `startPaymentSandbox`). */
export const APPROVE_DELAY_MS = Number(process.env.BENCH_APPROVE_DELAY_MS ?? 300);
/**
 * `BENCH_BASELINE=<a build's dist/>`: that build of the gateway (an earlier commit, built in
 * another checkout) plays too, as a fourth target right after this one, with its own prefix
 * and purchases: the change between the two, measured in the same run.
 */
export const BASELINE = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : undefined;
if (BASELINE && TOPOLOGY === 'alongside')
  throw new Error('BENCH_BASELINE needs BENCH_TOPOLOGY hop-path or single (one worker per build)');
/** Seconds of `pgbench -c 8 -j 2` at the start of the run (0: not run). */
export const PGBENCH_SECONDS = Number(process.env.BENCH_PGBENCH_SECONDS ?? 10);

/**
 * The node flags package.json's scripts run `script` with (`npm start` the gateway, `npm run
 * worker` the worker), so that the bench's processes and production's never differ.
 */
function scriptNodeArgs(name: string, script: string): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(distRoot, '..', 'package.json'), 'utf8'));
  const command: string = pkg.scripts?.[name] ?? '';
  return new RegExp(`\\bnode\\s+(.*?)\\s*dist/src/${script.replace('.', '\\.')}`).exec(command)?.[1] ?? '';
}
const START_NODE_ARGS = scriptNodeArgs('start', 'main.js');

// BENCH_PROFILE=<dir>: a V8 CPU profile of each server's process (gateway, baseline, unpaid, peer, floor),
// named after it and written when it exits; and of each worker process started (`worker-<its health
// port>-<n>`: one port per build, n counting the starts of the run).
// BENCH_NODE_ARGS: node flags for the gateway instead of `npm start`'s (e.g. GC settings to compare);
// BENCH_BASELINE_NODE_ARGS the same for the baseline build (the same flags unless given).
const nodeArgs = (flags: string) => flags.split(' ').filter((arg) => arg !== '');
export const START_ARGS = nodeArgs(process.env.BENCH_NODE_ARGS ?? START_NODE_ARGS);
export const BASELINE_ARGS = nodeArgs(
  process.env.BENCH_BASELINE_NODE_ARGS ?? process.env.BENCH_NODE_ARGS ?? START_NODE_ARGS,
);
/** The worker's flags, every build's (`npm run worker`'s: the Dockerfile's and the manifests' too). */
export const WORKER_ARGS = nodeArgs(scriptNodeArgs('worker', 'worker.js'));
/** The profile's flags for a target's process: its file is named after the target (`gateway.cpuprofile`). */
export const profileFlags = (target: string): string[] =>
  process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`, `--cpu-prof-name=${target}.cpuprofile`]
    : [];

/** `BENCH_KEEP_KEYS`: the run's databases and Redis keys are left in place, to look at. */
export const KEEP_KEYS = Boolean(process.env.BENCH_KEEP_KEYS);
