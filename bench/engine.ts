/**
 * `npm run bench:engine`: the hop engine alone — the USSD machine, rendering,
 * the info log line per hop, a memory session store and services that answer at once — playing
 * the same five-hop electricity dialogue as `npm run bench`, with no HTTP, Redis or sandbox.
 * It measures what the engine and the machine cost per hop with far less noise than the whole
 * gateway under load, so a change to them can be judged on its own.
 *
 * `BENCH_BASELINE=<another build's dist/>` runs that build's engine too and alternates the two
 * round by round (the same moment): the median of the per-round ratios is the change. Each build
 * runs in a child process of its own, started the same way: two builds in one process were not
 * equal (the first loaded measured 1.15–1.3× the second with the same code on both sides). The
 * log lines are written to a sink (production writes them to stdout).
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { DialogueServices } from '../machines/ussd-session.machine';
import type { HopEngine } from '../src/ussd/engine/engine';
import { CATALOGUE } from '../src/sandbox/fixtures';
import { median } from './median';
import type { Account, Transaction } from '../src/vas/port';
import { parseProduct } from '../src/vas/wire';

const DIALOGUES = Number(process.env.BENCH_DIALOGUES ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
/** Rounds left out of the medians while V8 optimises. */
const WARM_UP_ROUNDS = 2;
const TEXTS = ['', '1', '1*04123456789', '1*04123456789*100', '1*04123456789*100*1'];

/** The sandbox's catalogue, as the purchase-service client reads it (what `npm run bench` plays on). */
const PRODUCTS = CATALOGUE.map((entry) => parseProduct(entry, null, 200));

/** Services that answer at once, with what the dialogue reads of a real answer. */
function services(languages: ReturnType<DialogueServices['languages']>): DialogueServices {
  return {
    products: async () => PRODUCTS,
    // The dialogue keeps only the account's id and currency.
    debitAccount: async () => ({ id: 1, currency: 'BWP' }) as Account,
    quote: async (req) =>
      ({
        subscriberDetails: 'MMOLOKI MOSARWA',
        units: '45.2 kWh',
        charge: { currency: 'BWP', minor: 500 },
        total: { currency: 'BWP', minor: req.amount.minor + 500 },
        metadata: {},
      }) as unknown as Transaction,
    order: async () => ({ id: 'purchase-1' }) as Awaited<ReturnType<DialogueServices['order']>>,
    resend: async () => undefined,
    languages: () => languages,
    defaultRegion: 'BW',
    // The same five hops on every build compared: builds before the question never ask it.
    askTokenRecipient: false,
  };
}

/** A build's hop engine over a memory store, logging at info as production does. */
async function engineOf(root: string): Promise<HopEngine> {
  const load = <T>(module: string): Promise<T> => import(path.join(root, module)) as Promise<T>;
  const { createHopEngine } =
    await load<typeof import('../src/ussd/engine/engine')>('src/ussd/engine/engine.js');
  const { MemorySessionStore } = await load<typeof import('../src/ussd/engine/store/memory')>(
    'src/ussd/engine/store/memory.js',
  );
  const machine = await load<typeof import('../machines/ussd-session.machine')>(
    'machines/ussd-session.machine.js',
  );
  const { loadLocales } = await load<typeof import('../src/i18n/catalogue')>('src/i18n/catalogue.js');
  (await load<typeof import('../src/observability/logger')>('src/observability/logger.js')).setLogLevel(
    'info',
  );
  const locales = loadLocales();
  const languages = locales.languages().map((code) => {
    const meta = locales.meta(code);
    return { code, tag: meta.tag, name: meta.name };
  });
  return createHopEngine({
    store: new MemorySessionStore(),
    machine: machine.createUssdMachine(services(languages)),
    machineVersion: machine.USSD_MACHINE_VERSION,
    sharedContextKeys: machine.USSD_SHARED_CONTEXT,
    // A build whose machine stores its screen has no `dialogueScreen`: the engine reads `context.screen`.
    screenOf: machine.dialogueScreen as never,
    locales,
    screenLimit: 182,
    hopBudgetMs: 8000,
    sessionTtlS: 180,
    resumeWindowS: 0,
    defaultLanguage: 'en-BW',
  });
}

let sessions = 0;

/** One whole dialogue; throws unless it ends with the Buy's thank-you screen. */
async function dialogue(engine: HopEngine): Promise<void> {
  const sessionId = `bench-${++sessions}`;
  let reply;
  for (const [i, text] of TEXTS.entries())
    reply = await engine.handleHop({
      aggregator: 'africastalking',
      sessionId,
      msisdn: '26771000001',
      serviceCode: '*123#',
      text: { kind: 'cumulative', value: text },
      isNew: i === 0,
      raw: null,
    });
  if (!reply?.end || !reply.text.startsWith('Thank you'))
    throw new Error(`the dialogue did not end with the Buy: ${JSON.stringify(reply)}`);
}

/** A child process playing one build: it answers each message (a round) with its CPU µs per hop. */
async function playBuild(root: string): Promise<void> {
  const engine = await engineOf(root);
  // The info lines go to a sink: only the CPU to write them counts, not the terminal's.
  process.stdout.write = () => true;
  process.on('message', () => {
    void (async () => {
      const before = process.cpuUsage();
      for (let i = 0; i < DIALOGUES; i += 1) await dialogue(engine);
      const used = process.cpuUsage(before);
      process.send!({ perHop: (used.user + used.system) / (DIALOGUES * TEXTS.length) });
    })().catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
  });
  // The parent is done: an orderly exit, so that a CPU profile (`--cpu-prof`) is written.
  process.once('disconnect', () => process.exit(0));
  process.send!({ ready: true });
}

/** A build's child process, ready for rounds. */
async function startBuild(root: string): Promise<ChildProcess> {
  const child = fork(__filename, [], {
    env: { ...process.env, BENCH_ENGINE_ROOT: root },
    execArgv: process.execArgv,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number | null) =>
      reject(new Error(`the engine of ${root} exited (${code}) before its rounds`));
    child.once('exit', onExit);
    child.once('message', () => {
      child.off('exit', onExit);
      resolve();
    });
  });
  return child;
}

/** One round on a build's child: its CPU µs per hop. */
function round(child: ChildProcess, index: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) =>
      reject(new Error(`an engine exited (${code}) in round ${index + 1}`));
    child.once('exit', onExit);
    child.once('message', (answer: { perHop: number }) => {
      child.off('exit', onExit);
      resolve(answer.perHop);
    });
    child.send({ round: index });
  });
}

async function main(): Promise<void> {
  const print = (line: string) => fs.writeSync(1, `${line}\n`);
  const roots = [
    { name: 'this build', root: path.resolve(__dirname, '..') },
    ...(process.env.BENCH_BASELINE
      ? [{ name: 'baseline', root: path.resolve(process.env.BENCH_BASELINE) }]
      : []),
  ];
  const builds = await Promise.all(
    roots.map(async ({ name, root }) => ({ name, child: await startBuild(root), perHop: [] as number[] })),
  );
  print(
    `${DIALOGUES} five-hop dialogues per build and round, ${ROUNDS} rounds alternating the builds ` +
      `(a process each), CPU µs per hop (user + system), medians after ${WARM_UP_ROUNDS} warm-up rounds`,
  );
  try {
    for (let index = 0; index < ROUNDS; index += 1)
      for (const build of index % 2 ? [...builds].reverse() : builds)
        build.perHop.push(await round(build.child, index));
  } finally {
    for (const build of builds) build.child.disconnect();
  }
  for (const build of builds)
    print(`${build.name.padEnd(11)} ${median(build.perHop.slice(WARM_UP_ROUNDS)).toFixed(1)} µs per hop`);
  if (builds.length === 2) {
    const [current, baseline] = builds;
    const ratios = current.perHop
      .slice(WARM_UP_ROUNDS)
      .map((us, i) => us / baseline.perHop[WARM_UP_ROUNDS + i]);
    print(`this build / baseline, median of the per-round ratios: ${median(ratios).toFixed(2)}`);
  }
}

(process.env.BENCH_ENGINE_ROOT ? playBuild(process.env.BENCH_ENGINE_ROOT) : main()).catch(
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
