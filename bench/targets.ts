/**
 * What the subscribers play against, started and answering: this gateway build (and the baseline
 * build, and this one without payment step, when they play; bench/builds.ts), the `ussd-builder`
 * peer (bench/peer-server.ts), the bare express handler (bench/bare-server.ts) and the gateway's
 * floor (bench/floor-server.ts), each on a port of its own.
 */
import type { ChildProcess } from 'node:child_process';
import {
  gatewayEnvOf,
  opensRecords,
  recordsOf,
  startGateway,
  startPaymentSandbox,
  startSandbox,
  startWorker,
  type Build,
  type StartWorker,
} from './builds';
import {
  BASELINE,
  BASELINE_ARGS,
  profileFlags,
  REDIS_URL,
  START_ARGS,
  TOPOLOGY,
  WITHOUT_PAYMENT,
} from './options';
import { freePort } from './ports';
import { distRoot, startProcess, waitForHealth } from './processes';
import type { BenchDatabases } from './records';
import type { Summary } from './summary';

export interface Target {
  name: string;
  port: number;
  server: ChildProcess;
  results: Summary[];
  /** The sandbox process that answers this target's purchase-service calls. */
  sandbox: ChildProcess;
  /** A gateway build (this one or the baseline): its Buys are purchases to fulfil. */
  build?: Build;
}

/** The servers of a run, each given a free port before anything starts. */
const SERVERS = [
  'gatewayPort',
  'sandboxPort',
  'barePort',
  'peerPort',
  'workerPort',
  'baselinePort',
  'baselineSandboxPort',
  'floorPort',
  'unpaidPort',
  'unpaidSandboxPort',
  'paymentSandboxPort',
  'baselinePaymentSandboxPort',
] as const;

/** A free port for each server of the run, taken before anything starts. */
export async function freePorts(): Promise<Record<(typeof SERVERS)[number], number>> {
  const ports = await Promise.all(SERVERS.map(() => freePort()));
  return Object.fromEntries(SERVERS.map((name, i) => [name, ports[i]])) as Record<
    (typeof SERVERS)[number],
    number
  >;
}

export type Ports = Awaited<ReturnType<typeof freePorts>>;

/** The targets, in the order of the first round, and the builds among them. */
export interface Targets {
  /** The gateway first, then the peer and the bare handler (the ratios read them by place). */
  targets: Target[];
  floorTarget: Target;
  unpaidTarget?: Target;
  /** This build, the gateway row. */
  current: Build;
  baseline?: Build;
  unpaid?: Build;
  /** Every build that plays: this one, the baseline, the one without payment step. */
  builds: Build[];
  /** The worker that runs during the rounds (BENCH_TOPOLOGY=alongside). */
  worker?: ChildProcess;
  startWorker: StartWorker;
}

/**
 * Starts every target and the parties they need, in the run's order, each child noted in
 * `children` as it starts (so that a failure stops those already running), and waits until all
 * of them answer.
 */
export async function startTargets(
  ports: Ports,
  runId: string,
  databases: BenchDatabases,
  children: ChildProcess[],
): Promise<Targets> {
  const {
    gatewayPort,
    sandboxPort,
    barePort,
    peerPort,
    workerPort,
    baselinePort,
    baselineSandboxPort,
    floorPort,
    unpaidPort,
    unpaidSandboxPort,
    paymentSandboxPort,
    baselinePaymentSandboxPort,
  } = ports;
  const currentRecords = await recordsOf(databases, 'gateway');
  // A baseline built before the records moved to PostgreSQL keeps them in Redis.
  const baselineRecords =
    BASELINE && opensRecords(BASELINE) ? await recordsOf(databases, 'baseline') : undefined;
  const floorRecords = await recordsOf(databases, 'floor');
  const unpaidRecords = WITHOUT_PAYMENT ? await recordsOf(databases, 'unpaid') : undefined;
  const sandbox = await startSandbox(children, sandboxPort);
  const purchaseService = `http://127.0.0.1:${sandboxPort}`;
  const gatewayEnv = gatewayEnvOf(runId, purchaseService);
  const paymentSandbox = await startPaymentSandbox(children, distRoot, paymentSandboxPort, 'gateway');
  const current = startGateway(
    children,
    distRoot,
    gatewayPort,
    gatewayEnv,
    [...profileFlags('gateway'), ...START_ARGS],
    sandbox,
    currentRecords,
    paymentSandbox,
  );
  const gateway = current.server;
  const baselineSandbox = BASELINE ? await startSandbox(children, baselineSandboxPort) : undefined;
  const baselinePaymentSandbox = BASELINE
    ? await startPaymentSandbox(children, BASELINE, baselinePaymentSandboxPort, 'baseline')
    : undefined;
  const baseline =
    BASELINE && baselineSandbox
      ? startGateway(
          children,
          BASELINE,
          baselinePort,
          {
            ...gatewayEnv,
            REDIS_PREFIX: `bench-${runId}-baseline`,
            PURCHASE_API_BASE_URL: `http://127.0.0.1:${baselineSandboxPort}`,
          },
          [...profileFlags('baseline'), ...BASELINE_ARGS],
          baselineSandbox,
          baselineRecords,
          baselinePaymentSandbox,
        )
      : undefined;
  // This build again with no payment step (PAYMENT_PROVIDER=none: the sale on the operator's
  // wallet), its own sandbox, prefix and database: what the payment step costs, in the same run.
  const unpaidSandbox = WITHOUT_PAYMENT ? await startSandbox(children, unpaidSandboxPort) : undefined;
  const unpaid = unpaidSandbox
    ? startGateway(
        children,
        distRoot,
        unpaidPort,
        {
          ...gatewayEnv,
          REDIS_PREFIX: `bench-${runId}-unpaid`,
          PURCHASE_API_BASE_URL: `http://127.0.0.1:${unpaidSandboxPort}`,
          PAYMENT_PROVIDER: 'none',
        },
        [...profileFlags('unpaid'), ...START_ARGS],
        unpaidSandbox,
        unpaidRecords,
      )
    : undefined;
  // A health port per build: a build's worker is kept between its drains (stopped), holding its port.
  const workerPorts = new Map<Build, number>([[current, workerPort]]);
  const workerOf: StartWorker = async (build = current, healthy = true) => {
    let port = workerPorts.get(build);
    if (port === undefined) workerPorts.set(build, (port = await freePort()));
    return startWorker(children, build, port, healthy);
  };
  const worker = TOPOLOGY === 'alongside' ? await workerOf() : undefined;
  // The peer is profiled too (its own file in BENCH_PROFILE): a profile is read against the peer's.
  const peer = startProcess(
    'bench/peer-server.js',
    {
      PORT: String(peerPort),
      REDIS_URL,
      PEER_PREFIX: `bench-${runId}-peer`,
      PURCHASE_API_BASE_URL: purchaseService,
    },
    profileFlags('peer'),
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
      ...floorRecords.env,
      PORT: String(floorPort),
      REDIS_PREFIX: `bench-${runId}-floor`,
      GATEWAY_WORKERS: 'false',
      LOG_LEVEL: 'info',
    },
    [...profileFlags('floor'), ...START_ARGS],
  );
  children.push(floor);
  await Promise.all([
    waitForHealth(gatewayPort, gateway, '/healthz'),
    ...(baseline ? [waitForHealth(baselinePort, baseline.server, '/healthz')] : []),
    ...(unpaid ? [waitForHealth(unpaidPort, unpaid.server, '/healthz')] : []),
    waitForHealth(peerPort, peer, '/healthz'),
    waitForHealth(barePort, bare, '/healthz'),
    waitForHealth(floorPort, floor, '/healthz'),
  ]);

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
  const unpaidTarget: Target | undefined = unpaid
    ? {
        name: 'gateway, no payment',
        port: unpaidPort,
        server: unpaid.server,
        results: [],
        sandbox: unpaid.sandbox.process,
        build: unpaid,
      }
    : undefined;
  if (unpaidTarget) targets.push(unpaidTarget);
  const builds = [current, ...(baseline ? [baseline] : []), ...(unpaid ? [unpaid] : [])];
  return {
    targets,
    floorTarget,
    unpaidTarget,
    current,
    baseline,
    unpaid,
    builds,
    worker,
    startWorker: workerOf,
  };
}
