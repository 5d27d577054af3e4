/**
 * `npm run bench`: plays whole USSD dialogues (electricity purchase, five hops) for 64
 * concurrent subscribers against the gateway (Redis sessions and jobs, a sandbox purchase
 * service without artificial delay) and, in the same run, against a `ussd-builder` peer
 * (bench/peer-server.ts), a bare express handler that answers a constant screen, and the
 * gateway's floor (bench/floor-engine.ts: its guarantees without the dialogue engine). Prints
 * hops/s, p50 and p99 hop latency and CPU per hop for each, and their ratios.
 *
 * Every server, the sandbox and the baseline each run in their own process so the load
 * generator does not share their event loop.
 */
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Redis } from 'ioredis';
import { median } from './median';
import { freePort } from './ports';
import { sessionKeys, sharedPartKey } from '../src/session/store/keys';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 64);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 15000);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/**
 * Where the gateway's purchase jobs run: `hop-path` (default) — a worker process started after
 * the measured rounds drains them, as the peer's Buy only pushes onto a list that nothing reads;
 * `alongside` — a worker process runs them during the rounds (production's layout on one box);
 * `single` — the HTTP process runs them too (`npm start`).
 */
const TOPOLOGY = process.env.BENCH_TOPOLOGY ?? 'hop-path';
if (!['hop-path', 'alongside', 'single'].includes(TOPOLOGY))
  throw new Error(`BENCH_TOPOLOGY must be hop-path, alongside or single, not ${TOPOLOGY}`);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * `BENCH_BASELINE=<a build's dist/>`: that build of the gateway (an earlier commit, built in
 * another checkout) plays too, as a fourth target right after this one, with its own prefix
 * and purchases: the change between the two, measured in the same run.
 */
const BASELINE = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : undefined;
if (BASELINE && TOPOLOGY === 'alongside')
  throw new Error('BENCH_BASELINE needs BENCH_TOPOLOGY hop-path or single (one worker per build)');
const METER = '01234567890';

const distRoot = path.resolve(__dirname, '..');
const agent = new http.Agent({ keepAlive: true, maxSockets: SUBSCRIBERS });

function post(
  port: number,
  urlPath: string,
  form: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: urlPath,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function waitForHealth(port: number, child: ChildProcess, pathName: string): Promise<void> {
  const deadline = Date.now() + 60000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`process exited with ${child.exitCode} before answering ${pathName}`);
    const ok = await new Promise<boolean>((resolve) => {
      http
        .get({ host: '127.0.0.1', port, path: pathName }, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        })
        .on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing answered ${pathName} on port ${port}`);
}

function startProcess(
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  root = distRoot,
): ChildProcess {
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, script)], {
    env: { ...process.env, LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

/** Stops a child process and waits for it to exit. */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); null elsewhere. */
function cpuMs(pid: number | undefined): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line (11 and 12 after the command name).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/**
 * Busy and total CPU time of the whole machine so far (all cores, ms), from /proc/stat; null
 * elsewhere. The load generator, Redis and the sandbox share the cores with the server: when
 * the machine is saturated, its CPU per hop bounds the throughput whatever the server does.
 */
function machineCpuMs(): { busy: number; total: number } | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    const total = ticks.reduce((sum, tick) => sum + tick, 0);
    const idle = ticks[3] + (ticks[4] ?? 0); // idle + iowait
    return { busy: ((total - idle) * 1000) / 100, total: (total * 1000) / 100 };
  } catch {
    return null;
  }
}

/** A source of cumulative CPU time (ms): one process, Redis, the load generator. */
interface CpuMeter {
  name: string;
  read: () => Promise<number | null>;
}

function processMeter(name: string, pid: number | undefined): CpuMeter {
  return { name, read: async () => cpuMs(pid) };
}

/** This process: the load generator's own cost, part of every hop on a shared machine. */
const loadGeneratorMeter: CpuMeter = {
  name: 'load generator',
  read: async () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  },
};

/** Redis's CPU from INFO (it may run outside our process tree). */
function redisMeter(redis: Redis): CpuMeter {
  return {
    name: 'redis',
    read: async () => {
      const info = await redis.info('cpu');
      const seconds = (field: string) => Number(new RegExp(`${field}:([\\d.]+)`).exec(info)?.[1] ?? NaN);
      return (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1000;
    },
  };
}

interface Result {
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
}

/** Each subscriber plays dialogues back to back; only hops after the warm-up are counted. */
async function load(
  port: number,
  urlPath: string,
  runId: string,
  meters: CpuMeter[],
  /** Called once halfway through the measured window with the session ids of the dialogues in flight. */
  midway?: (inFlight: string[]) => Promise<void>,
): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  const unexpected: string[] = [];
  let buys = 0;
  const start = Date.now();
  const measureFrom = start + WARMUP_MS;
  const stopAt = measureFrom + DURATION_MS;
  // CPU time over the measured window: less sensitive to other load than hops/s.
  const readAll = async () => ({
    meters: await Promise.all(meters.map((meter) => meter.read().catch(() => null))),
    machine: machineCpuMs(),
  });
  const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const windowFrom = delay(WARMUP_MS).then(readAll);
  const windowTo = delay(WARMUP_MS + DURATION_MS).then(readAll);
  const inFlight: string[] = [];
  const sampled = midway ? delay(WARMUP_MS + DURATION_MS / 2).then(() => midway([...inFlight])) : undefined;
  // BWP 10 a purchase (and BWP 1.50 of charges): a build's sandbox wallet pays about 87,000 (see walletLeft).
  const steps = ['', '1', `1*${METER}`, `1*${METER}*10`, `1*${METER}*10*1`];

  async function subscriber(index: number): Promise<void> {
    const phone = `+2677${String(1000000 + index).slice(-7)}`;
    for (let dialogue = 0; Date.now() < stopAt; dialogue += 1) {
      const sessionId = `bench-${runId}-${index}-${dialogue}`;
      inFlight[index] = sessionId;
      for (const [step, text] of steps.entries()) {
        const sent = process.hrtime.bigint();
        const reply = await post(port, urlPath, {
          sessionId,
          phoneNumber: phone,
          serviceCode: '*384*1#',
          networkCode: '99999',
          text,
        });
        const tookMs = Number(process.hrtime.bigint() - sent) / 1e6;
        // A dialogue that ends before its Buy (a refusal, a limit) is unfinished: counted as an error.
        const last = step === steps.length - 1;
        const ok = reply.status === 200 && (last ? /^END /.test(reply.body) : /^CON /.test(reply.body));
        if (ok && last) buys += 1;
        const now = Date.now();
        if (now >= measureFrom && now < stopAt) {
          if (ok) latencies.push(tookMs);
          else {
            errors += 1;
            if (unexpected.length < 3)
              unexpected.push(
                `hop ${step + 1} (${JSON.stringify(text)}): ${reply.status} ${JSON.stringify(reply.body)}`,
              );
          }
        }
        if (!ok || reply.body.startsWith('END')) break;
      }
    }
  }

  await Promise.all(Array.from({ length: SUBSCRIBERS }, (_, i) => subscriber(i)));
  const [from, to] = await Promise.all([windowFrom, windowTo, sampled]);
  const cpu = meters.map((meter, i) => {
    const [before, after] = [from.meters[i], to.meters[i]];
    return { name: meter.name, ms: before !== null && after !== null ? after - before : null };
  });
  const machine =
    from.machine && to.machine
      ? { busy: to.machine.busy - from.machine.busy, total: to.machine.total - from.machine.total }
      : null;
  return {
    hops: latencies.length,
    buys,
    cpu,
    machine,
    errors,
    unexpected,
    elapsedMs: DURATION_MS,
    latencies,
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summary(result: Result): {
  buys: number;
  hopsPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU µs per hop of each meter, the server first. */
  cpuUsPerHop: { name: string; us: number }[];
  machineBusy: number;
  machineUsPerHop: number;
} {
  const sorted = [...result.latencies].sort((a, b) => a - b);
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
  };
}

/** The run's sessions, purchases and jobs are test data: leave Redis as it was. */
async function removeKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** The node flags `npm start` runs the gateway with (from package.json, so the two never differ). */
const START_NODE_ARGS = (() => {
  const pkg = JSON.parse(fs.readFileSync(path.join(distRoot, '..', 'package.json'), 'utf8'));
  const start: string = pkg.scripts?.start ?? '';
  return /\bnode\s+(.*?)\s*dist\/src\/main\.js/.exec(start)?.[1] ?? '';
})();

/**
 * Redis memory of a live dialogue (`MEMORY USAGE`, key and value with overhead): the mean over
 * the dialogues in flight mid-round that are waiting for a hop, and the shared context parts
 * they name (stored once for all of them); null when there are none.
 */
async function liveDialogueBytes(
  redis: Redis,
  prefix: string,
  sessionIds: string[],
): Promise<{ record: number; records: number; shared: number } | null> {
  // The dialogues the load generator has in flight, read by key: a SCAN of the keyspace (every
  // purchase and job of the run) cost Redis more than the hops it was measuring.
  const keys = sessionIds.map(
    (sessionId) => sessionKeys(prefix, { aggregator: 'africastalking', sessionId }).record,
  );
  const values = keys.length ? await redis.mget(...keys) : [];
  const live = keys.filter((_key, i) => values[i]?.includes('"status":"active"'));
  if (live.length === 0) return null;
  const usage = async (names: string[]) =>
    (await Promise.all(names.map((key) => redis.memory('USAGE', key)))).map((size) => Number(size ?? 0));
  const sizes = await usage(live);
  const hashes = new Set<string>();
  for (const value of values) {
    const shared = value && (JSON.parse(value) as { shared?: unknown }).shared;
    if (typeof shared === 'string') hashes.add(shared);
  }
  const shared = (await usage([...hashes].map((hash) => sharedPartKey(prefix, hash)))).reduce(
    (a, b) => a + b,
    0,
  );
  return {
    record: Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length),
    records: live.length,
    shared,
  };
}

/** The body of a GET to a local server of the bench (the gateway's metrics, a sandbox's accounts). */
function getText(port: number, urlPath: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: urlPath }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

/** `purchases_by_state` of the gateway's `/metrics` (read from the purchase store at each scrape). */
async function purchaseStates(port: number): Promise<Record<string, number>> {
  const text = await getText(port, '/metrics');
  const states: Record<string, number> = {};
  for (const [, state, count] of text.matchAll(/^purchases_by_state\{state="(\w+)"\} (\d+)/gm))
    states[state] = Number(count);
  return states;
}

const IN_FLIGHT = ['created', 'confirming', 'unknown', 'reconciling'];

/** What the purchases of the run came to. */
interface Fulfilment {
  buys: number;
  /** Worker CPU ms spent draining (hop-path only: the drains run between rounds). */
  drainCpuMs: number;
  drainMs: number;
  states: Record<string, number>;
  /** What the build's sandbox wallet had left at the end, when purchases failed. */
  walletLeft?: string | null;
}

/**
 * Every Buy the gateway answered is a purchase to fulfil: waits until none is in flight and
 * adds the worker's CPU over the wait to `totals` (meaningful when it drains between rounds).
 */
async function drain(worker: ChildProcess, port: number, totals: Fulfilment): Promise<void> {
  const cpuBefore = cpuMs(worker.pid);
  const from = Date.now();
  let states = await purchaseStates(port);
  const inFlight = () => IN_FLIGHT.reduce((sum, state) => sum + (states[state] ?? 0), 0);
  while (inFlight() > 0) {
    if (Date.now() - from > 600_000)
      throw new Error(`purchases still in flight after 10 minutes: ${JSON.stringify(states)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    states = await purchaseStates(port);
  }
  totals.drainCpuMs += (cpuMs(worker.pid) ?? 0) - (cpuBefore ?? 0);
  totals.drainMs += Date.now() - from;
  totals.states = states;
}

/**
 * The sandbox's main wallet (account 1001, BWP 1,000,000) pays every Buy of a build: BWP 10 and
 * the charges. A run long or fast enough to spend it sees its last purchases fail as
 * `insufficient_balance`; the report then says so rather than leave it to guess.
 */
async function walletLeft(sandboxPort: number): Promise<string | null> {
  const accounts = JSON.parse(await getText(sandboxPort, '/sandbox/accounts')) as Array<{
    id: number;
    balance?: unknown;
  }>;
  const main = accounts.find((account) => account.id === 1001);
  return main ? String(main.balance) : null;
}

/** Prints what the purchases came to; throws when a Buy was not fulfilled. */
function reportFulfilment(totals: Fulfilment): void {
  const { buys, states } = totals;
  const settled = (states.succeeded ?? 0) + (states.failed ?? 0) + (states.needs_attention ?? 0);
  const perPurchase =
    TOPOLOGY === 'hop-path'
      ? `; worker CPU ${((totals.drainCpuMs * 1000) / Math.max(1, buys)).toFixed(0)} µs per purchase, ` +
        `drains between rounds ${(totals.drainMs / 1000).toFixed(1)} s in all`
      : '';
  console.log(
    `purchases: ${buys} Buys answered; ${states.succeeded ?? 0} succeeded, ${states.failed ?? 0} failed, ` +
      `${states.needs_attention ?? 0} need attention${perPurchase}`,
  );
  if (settled < buys || (states.failed ?? 0) > 0 || (states.needs_attention ?? 0) > 0)
    throw new Error(
      `not every Buy was fulfilled${totals.walletLeft ? ` (the sandbox's main wallet has ${totals.walletLeft} left: a shorter run spends less)` : ''}`,
    );
}

type Summary = ReturnType<typeof summary>;

interface Target {
  name: string;
  port: number;
  server: ChildProcess;
  results: Summary[];
  /** The sandbox process that answers this target's purchase-service calls. */
  sandbox: ChildProcess;
  /** A gateway build (this one or the baseline): its Buys are purchases to fulfil. */
  build?: Build;
}

/** A build of the gateway: this one, or the baseline's on its own port and prefix. */
interface Build {
  root: string;
  port: number;
  env: Record<string, string>;
  server: ChildProcess;
  fulfilled: Fulfilment;
  /** The build's own sandbox: its wallet pays only this build's purchases. */
  sandbox: { process: ChildProcess; port: number };
}

async function main(): Promise<void> {
  const [
    gatewayPort,
    sandboxPort,
    barePort,
    peerPort,
    workerPort,
    baselinePort,
    baselineSandboxPort,
    floorPort,
  ] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const runId = Date.now().toString(36);
  const children: ChildProcess[] = [];
  const stopAll = () => children.forEach((child) => child.kill('SIGTERM'));
  process.on('exit', stopAll);

  const infoClient = new Redis(REDIS_URL);
  try {
    // A sandbox per gateway build: two builds paying from one wallet ran it dry in a long run.
    const startSandbox = async (port: number) => {
      const started = startProcess('src/sandbox/main.js', {
        SANDBOX_PORT: String(port),
        SANDBOX_DELAY_MS: '0',
      });
      children.push(started);
      await waitForHealth(port, started, '/sandbox/scenarios');
      return { process: started, port };
    };
    const sandbox = await startSandbox(sandboxPort);
    const purchaseService = `http://127.0.0.1:${sandboxPort}`;

    // BENCH_PROFILE=<dir>: a V8 CPU profile of the gateway process (and the peer's), written when it exits.
    // BENCH_NODE_ARGS: node flags for the gateway instead of `npm start`'s (e.g. GC settings to compare);
    // BENCH_BASELINE_NODE_ARGS the same for the baseline build (the same flags unless given).
    const nodeArgs = (flags: string) => flags.split(' ').filter((arg) => arg !== '');
    const startArgs = nodeArgs(process.env.BENCH_NODE_ARGS ?? START_NODE_ARGS);
    const baselineArgs = nodeArgs(
      process.env.BENCH_BASELINE_NODE_ARGS ?? process.env.BENCH_NODE_ARGS ?? START_NODE_ARGS,
    );
    const profileFlags = process.env.BENCH_PROFILE
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
      : [];
    const profileArgs = [...profileFlags, ...startArgs];
    const gatewayEnv = {
      REDIS_URL,
      REDIS_PREFIX: `bench-${runId}`,
      PURCHASE_API_BASE_URL: purchaseService,
      PURCHASE_API_CLIENT_ID: 'sandbox-client',
      PURCHASE_API_CLIENT_SECRET: 'sandbox-secret',
      PURCHASE_API_USERNAME: 'integration',
      PURCHASE_API_PASSWORD: 'sandbox-pass',
      PURCHASE_API_ORG_CODE: 'SANDBOX',
      // 64 subscribers buy hundreds of times each: the per-number daily limits must not end them.
      SPEND_DAY_MAX_COUNT: '100000',
      SPEND_DAY_MAX_VALUE: '100000000',
    };
    // Production's layout: the HTTP process answers hops, a worker process runs the purchase and
    // SMS jobs (during the rounds, or after them for the hop path alone; see TOPOLOGY).
    const split = TOPOLOGY !== 'single';
    const startGateway = (
      root: string,
      port: number,
      env: Record<string, string>,
      nodeArgs: string[],
      ownSandbox: Build['sandbox'],
    ): Build => {
      const server = startProcess(
        'src/main.js',
        // Info, as production logs (a line per hop); the other parties log errors only.
        { ...env, PORT: String(port), GATEWAY_WORKERS: split ? 'false' : 'true', LOG_LEVEL: 'info' },
        nodeArgs,
        root,
      );
      children.push(server);
      const fulfilled = { buys: 0, drainCpuMs: 0, drainMs: 0, states: {} };
      return { root, port, env, server, fulfilled, sandbox: ownSandbox };
    };
    const current = startGateway(distRoot, gatewayPort, gatewayEnv, profileArgs, sandbox);
    const gateway = current.server;
    const baselineSandbox = BASELINE ? await startSandbox(baselineSandboxPort) : undefined;
    const baseline =
      BASELINE && baselineSandbox
        ? startGateway(
            BASELINE,
            baselinePort,
            {
              ...gatewayEnv,
              REDIS_PREFIX: `bench-${runId}-baseline`,
              PURCHASE_API_BASE_URL: `http://127.0.0.1:${baselineSandboxPort}`,
            },
            baselineArgs,
            baselineSandbox,
          )
        : undefined;
    const startWorker = async (build: Build = current): Promise<ChildProcess> => {
      const started = startProcess(
        'src/worker.js',
        { ...build.env, WORKER_HEALTH_PORT: String(workerPort) },
        [],
        build.root,
      );
      children.push(started);
      await waitForHealth(workerPort, started, '/healthz');
      return started;
    };
    const worker = TOPOLOGY === 'alongside' ? await startWorker() : undefined;
    // The peer is profiled too (its own file in BENCH_PROFILE): a profile is read against the peer's.
    const peer = startProcess(
      'bench/peer-server.js',
      {
        PORT: String(peerPort),
        REDIS_URL,
        PEER_PREFIX: `bench-${runId}-peer`,
        PURCHASE_API_BASE_URL: purchaseService,
      },
      profileFlags,
    );
    children.push(peer);
    const bare = startProcess('bench/bare-server.js', { PORT: String(barePort) });
    children.push(bare);
    // The floor: the gateway with the dialogue engine replaced by what its guarantees alone
    // require (bench/floor-engine.ts), as `npm start` runs; its Buys are queued, never fulfilled.
    const floor = startProcess(
      'bench/floor-server.js',
      {
        ...gatewayEnv,
        PORT: String(floorPort),
        REDIS_PREFIX: `bench-${runId}-floor`,
        GATEWAY_WORKERS: 'false',
        LOG_LEVEL: 'info',
      },
      [...profileFlags, ...startArgs],
    );
    children.push(floor);
    await Promise.all([
      waitForHealth(gatewayPort, gateway, '/healthz'),
      ...(baseline ? [waitForHealth(baselinePort, baseline.server, '/healthz')] : []),
      waitForHealth(peerPort, peer, '/healthz'),
      waitForHealth(barePort, bare, '/healthz'),
      waitForHealth(floorPort, floor, '/healthz'),
    ]);
    const jobsRun = {
      'hop-path': 'purchases fulfilled by a worker process after each of its rounds',
      alongside: 'purchases fulfilled by a worker process during the rounds',
      single: 'purchases fulfilled in the HTTP process',
    }[TOPOLOGY];

    console.log(
      `playing electricity dialogues (5 hops) for ${SUBSCRIBERS} subscribers, ${WARMUP_MS} ms warm-up + ${DURATION_MS} ms measured, ` +
        `gateway: ${jobsRun} (node ${profileArgs.join(' ') || 'without flags'}` +
        `${baseline ? `; baseline: node ${baselineArgs.join(' ') || 'without flags'}` : ''}), ` +
        `targets interleaved over ${ROUNDS} rounds, each round starting one target later (medians reported)`,
    );
    const targets: Target[] = [
      {
        name: 'gateway (Redis)',
        port: gatewayPort,
        server: gateway,
        results: [],
        sandbox: sandbox.process,
        build: current,
      },
      // The peer's quotes go to this build's sandbox (a quote debits nothing).
      { name: 'ussd-builder peer', port: peerPort, server: peer, results: [], sandbox: sandbox.process },
      { name: 'bare express handler', port: barePort, server: bare, results: [], sandbox: sandbox.process },
      ...(baseline
        ? [
            {
              name: 'gateway baseline',
              port: baselinePort,
              server: baseline.server,
              results: [],
              sandbox: baseline.sandbox.process,
              build: baseline,
            },
          ]
        : []),
    ];
    const floorTarget: Target = {
      name: 'gateway floor',
      port: floorPort,
      server: floor,
      results: [],
      sandbox: sandbox.process,
    };
    targets.push(floorTarget);
    // The server's own CPU, then everything else the machine spends on a hop.
    const others = (target: Target) => [
      loadGeneratorMeter,
      redisMeter(infoClient),
      processMeter('sandbox', target.sandbox.pid),
      ...(worker ? [processMeter('worker', worker.pid)] : []),
    ];
    const header =
      `${'target'.padEnd(22)} ${'hops/s'.padStart(8)} ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)} ${'errors'.padStart(7)} ` +
      `${'cpu µs/hop'.padStart(11)} ${'machine busy'.padStart(13)} ${'machine µs/hop'.padStart(15)}`;
    const row = (name: string, s: Summary) =>
      `${name.padEnd(22)} ${s.hopsPerSec.toFixed(0).padStart(8)} ${s.p50.toFixed(2).padStart(9)} ${s.p99.toFixed(2).padStart(9)} ${String(s.errors).padStart(7)} ${s.cpuUsPerHop[0].us.toFixed(0).padStart(11)} ${`${(s.machineBusy * 100).toFixed(0)}%`.padStart(13)} ${s.machineUsPerHop.toFixed(0).padStart(15)}`;
    let liveBytes: Awaited<ReturnType<typeof liveDialogueBytes>> = null;
    for (let round = 1; round <= ROUNDS; round += 1) {
      console.log(`round ${round}`);
      console.log(header);
      // Each round starts one target later (A B C, B C A, C A B, …): the first target of a round
      // plays right after the previous round's drain and measured 3–6% more CPU per hop than
      // the last one with the same build in both places.
      const shift = (round - 1) % targets.length;
      for (const target of [...targets.slice(shift), ...targets.slice(0, shift)]) {
        const played = await load(
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
          if (TOPOLOGY === 'hop-path') {
            const drainer = await startWorker(target.build);
            await drain(drainer, target.port, target.build.fulfilled);
            await stopProcess(drainer);
          }
        }
      }
    }

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
    const breakdown = (s: Summary) =>
      s.cpuUsPerHop.map(({ name, us }) => `${name} ${us.toFixed(0)}`).join(', ');
    for (const [name, s] of [
      ['gateway', gw],
      ['peer', builder],
      ['bare', bareTarget],
      ...(baseline ? [['baseline', medians[3]] as const] : []),
      ['floor', floorMedian],
    ] as const)
      console.log(`CPU µs per hop, ${name.padEnd(8)} ${breakdown(s)}`);
    // Assigned by the mid-round sampler (TypeScript cannot see the callback write it).
    const redisBytes = liveBytes as Awaited<ReturnType<typeof liveDialogueBytes>>;
    if (redisBytes !== null)
      console.log(
        `Redis per live dialogue (gateway): ${redisBytes.record} bytes (mean of ${redisBytes.records} records), ` +
          `plus ${redisBytes.shared} bytes of shared context stored once for all`,
      );
    await drain(worker ?? gateway, gatewayPort, current.fulfilled);
    if (baseline) await drain(baseline.server, baselinePort, baseline.fulfilled);
    for (const build of [current, ...(baseline ? [baseline] : [])])
      if ((build.fulfilled.states.failed ?? 0) > 0)
        build.fulfilled.walletLeft = await walletLeft(build.sandbox.port);
    reportFulfilment(current.fulfilled);
    if (baseline) {
      process.stdout.write('baseline ');
      reportFulfilment(baseline.fulfilled);
    }
  } finally {
    stopAll();
    await Promise.all(
      children.map((child) =>
        child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined,
      ),
    );
    agent.destroy();
    infoClient.disconnect();
    if (!process.env.BENCH_KEEP_KEYS) await removeKeys(`bench-${runId}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
