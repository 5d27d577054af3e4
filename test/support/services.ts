import { spawnSync } from 'node:child_process';
import {
  accessSync,
  appendFileSync,
  chmodSync,
  chownSync,
  constants as fs,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import net from 'node:net';
import { constants, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Client } from 'pg';
import { withDefaultUser } from '../../src/records/database';
import { freePort, OwnRedisServer } from './redis-server';

/**
 * What the test run needs before any test starts (jest's global setup, test/global-setup.ts): a
 * Redis at `TEST_REDIS_URL` and a PostgreSQL at `TEST_DATABASE_URL`. One that answers at the
 * default address is used; where none answers and the variable is unset, a private one is
 * started for the run (`redis-server`, a cluster made by `initdb`) and its URL exported to the
 * workers. What cannot be had is one line ({@link ServicesError}), before any test runs.
 */

export const DEFAULT_TEST_REDIS_URL = 'redis://127.0.0.1:6379/15';
export const DEFAULT_TEST_DATABASE_URL = 'postgres://127.0.0.1:5432/test';

/** Something the run needs cannot be had: the one line to print before stopping. */
export class ServicesError extends Error {}

/** Services started for this run, stopped by `stop()`. */
export interface RunServices {
  /** One line per service started (for the person running the tests). */
  notes: string[];
  stop(): Promise<void>;
}

const CONNECT_MS = 1500;

/** True if something at `url` speaks Redis (`+PONG`, or an error such as NOAUTH: it answers). */
export function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port || 6379), hostname || '127.0.0.1', () => socket.write('PING\r\n'));
    const done = (answers: boolean) => {
      socket.destroy();
      resolve(answers);
    };
    socket.setTimeout(CONNECT_MS, () => done(false));
    socket.once('data', (data) => done(/^[+-]/.test(data.toString())));
    socket.once('error', () => done(false));
    socket.once('close', () => done(false));
  });
}

/** `null` if PostgreSQL at `url` runs a query; else why not, and whether anything listened at all. */
export async function postgresRefusal(url: string): Promise<{ listening: boolean; reason: string } | null> {
  const client = new Client({ connectionString: withDefaultUser(url), connectionTimeoutMillis: CONNECT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    const unreachable = ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'];
    const listening = !unreachable.includes(e.code ?? '') && !/timeout/i.test(e.message);
    return { listening, reason: e.message || e.code || String(error) };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The directory on `PATH` (or in `extra`) holding an executable `name`, if any. */
export function findExecutable(name: string, extra: string[] = []): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), ...extra]) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), fs.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Debian keeps PostgreSQL's server programs off the PATH: `/usr/lib/postgresql/<version>/bin`, newest first. */
function debianPostgresBins(): string[] {
  try {
    return readdirSync('/usr/lib/postgresql')
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a))
      .map((v) => `/usr/lib/postgresql/${v}/bin`);
  } catch {
    return [];
  }
}

/** Provides Redis and PostgreSQL for the run, writing the URLs into `env` (the workers inherit it). */
export async function provideServices(env: NodeJS.ProcessEnv = process.env): Promise<RunServices> {
  // A run stopped by a signal (Ctrl-C, a CI timeout) would die without its `exit` handlers, which
  // stop the servers: exit instead (PostgreSQL runs in a session of its own, out of reach of Ctrl-C).
  const onSignal = (signal: NodeJS.Signals) => process.exit(128 + (constants.signals[signal] ?? 0));
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forgetSignals = () => {
    for (const signal of signals) process.removeListener(signal, onSignal);
  };
  for (const signal of signals) process.once(signal, onSignal);
  const started: RunServices[] = [];
  try {
    // Both looked for at once; what is missing is told in this order, whichever answered first.
    const probes = await Promise.allSettled([redisProbe(env), postgresProbe(env)]);
    for (const probe of probes) if (probe.status === 'rejected') throw probe.reason;
    const [redis, postgres] = probes.map((p) => (p as PromiseFulfilledResult<Starter | null>).value);
    if (redis) started.push(await redis());
    if (postgres) started.push(await postgres());
  } catch (error) {
    forgetSignals();
    await Promise.all(started.map((s) => s.stop()));
    throw error;
  }
  if (started.length === 0) forgetSignals();
  return {
    notes: started.flatMap((s) => s.notes),
    stop: async () => {
      forgetSignals();
      await Promise.all(started.map((s) => s.stop()));
    },
  };
}

/** How to start a service for the run. */
type Starter = () => Promise<RunServices>;

/** Null when the configured or default Redis answers; else how to start a private one. */
async function redisProbe(env: NodeJS.ProcessEnv): Promise<Starter | null> {
  const explicit = env.TEST_REDIS_URL;
  if (await redisAnswers(explicit || DEFAULT_TEST_REDIS_URL)) {
    if (findExecutable('redis-server')) return null;
    // Tests that kill Redis start their own: without the program only they fail, each saying so.
    const note =
      "redis-server is not on the PATH: the tests that start Redis servers of their own will fail (install Debian's redis-server)";
    return async () => ({ notes: [note], stop: async () => undefined });
  }
  if (explicit)
    throw new ServicesError(
      `TEST_REDIS_URL=${safeUrl(explicit)} does not answer (unset it to use a private redis-server)`,
    );
  if (!findExecutable('redis-server'))
    throw new ServicesError(
      `no Redis answers at ${DEFAULT_TEST_REDIS_URL} and redis-server is not on the PATH: install Debian's redis-server (apt-get install redis-server), or set TEST_REDIS_URL to a Redis that answers`,
    );
  return async () => {
    const server = new OwnRedisServer();
    // A run cut short (Ctrl-C, a crash) leaves no server behind.
    const killNow = () => void server.kill();
    process.once('exit', killNow);
    await server.start();
    env.TEST_REDIS_URL = `${server.url}/15`;
    return {
      notes: [
        `no Redis at ${DEFAULT_TEST_REDIS_URL}: a private redis-server for this run at ${env.TEST_REDIS_URL}`,
      ],
      stop: async () => {
        process.removeListener('exit', killNow);
        await server.destroy();
      },
    };
  };
}

/** Null when the configured or default PostgreSQL answers; else how to start a private one. */
async function postgresProbe(env: NodeJS.ProcessEnv): Promise<Starter | null> {
  const explicit = env.TEST_DATABASE_URL;
  const refusal = await postgresRefusal(explicit || DEFAULT_TEST_DATABASE_URL);
  if (!refusal) return null;
  if (explicit)
    throw new ServicesError(
      `TEST_DATABASE_URL=${safeUrl(explicit)} does not answer: ${oneLine(refusal.reason)}`,
    );
  const bins = debianPostgresBins();
  const initdb = findExecutable('initdb', bins);
  const pgCtl = findExecutable('pg_ctl', bins);
  if (!initdb || !pgCtl)
    throw new ServicesError(
      `no PostgreSQL answers at ${DEFAULT_TEST_DATABASE_URL} and initdb/pg_ctl are not installed: install Debian's postgresql (apt-get install postgresql), or set TEST_DATABASE_URL to a PostgreSQL that answers`,
    );
  const why = refusal.listening
    ? `PostgreSQL at ${DEFAULT_TEST_DATABASE_URL} refused (${oneLine(refusal.reason)})`
    : `no PostgreSQL at ${DEFAULT_TEST_DATABASE_URL}`;
  return async () => {
    const cluster = await startPrivatePostgres(initdb, pgCtl);
    env.TEST_DATABASE_URL = cluster.url;
    return { notes: [`${why}: a private cluster for this run at ${cluster.url}`], stop: cluster.stop };
  };
}

/**
 * A throw-away PostgreSQL cluster for one test file (`tls`: it also takes TLS connections, under a
 * self-signed certificate made for it), or undefined where initdb and pg_ctl are not installed.
 */
export async function privatePostgres(
  options: { tls?: boolean } = {},
): Promise<{ url: string; stop(): Promise<void> } | undefined> {
  const bins = debianPostgresBins();
  const initdb = findExecutable('initdb', bins);
  const pgCtl = findExecutable('pg_ctl', bins);
  return initdb && pgCtl ? startPrivatePostgres(initdb, pgCtl, options) : undefined;
}

/**
 * A throw-away PostgreSQL cluster in a temporary folder: trust authentication, loopback only, a
 * database `test`, durability off (nothing in it outlives the run). PostgreSQL refuses to run as
 * root: as root it runs as the `postgres` user (Debian's package makes one), else `nobody`.
 */
async function startPrivatePostgres(
  initdb: string,
  pgCtl: string,
  options: { tls?: boolean } = {},
): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-postgres-'));
  const data = join(dir, 'data');
  const owner = process.getuid?.() === 0 ? (systemUser('postgres') ?? systemUser('nobody')) : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const run = (file: string, args: string[]) => {
    const r = spawnSync(file, args, { encoding: 'utf8', uid: owner?.uid, gid: owner?.gid, cwd: dir });
    if (r.status !== 0)
      throw new ServicesError(
        `could not start a private PostgreSQL (${file} ${args[0]}): ${oneLine(r.error?.message ?? `${r.stderr}`.trim().split('\n').at(-1) ?? '')}`,
      );
  };
  const stopNow = () => {
    if (existsSync(join(data, 'postmaster.pid')))
      spawnSync(pgCtl, ['stop', '-D', data, '-m', 'immediate', '-s'], {
        uid: owner?.uid,
        gid: owner?.gid,
        stdio: 'ignore',
      });
    rmSync(dir, { recursive: true, force: true });
  };
  // A run cut short (Ctrl-C, a crash), even while this starts, leaves no server or folder behind.
  process.once('exit', stopNow);
  try {
    run(initdb, [
      '-D',
      data,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
      '--no-instructions',
    ]);
    const port = await freePort();
    appendFileSync(
      join(data, 'postgresql.conf'),
      [
        `port = ${port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${dir}'`,
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        'max_connections = 200',
        ...(options.tls ? ['ssl = on'] : []),
        '',
      ].join('\n'),
    );
    // server.crt and server.key in the data folder are PostgreSQL's defaults for `ssl = on`.
    if (options.tls) {
      run('openssl', [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-keyout',
        join(data, 'server.key'),
        '-out',
        join(data, 'server.crt'),
      ]);
      chmodSync(join(data, 'server.key'), 0o600);
    }
    run(pgCtl, ['start', '-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-s']);
    const base = `postgres://postgres@127.0.0.1:${port}`;
    const admin = new Client({ connectionString: `${base}/postgres` });
    await admin.connect();
    try {
      await admin.query('CREATE DATABASE test');
    } finally {
      await admin.end();
    }
    return {
      url: `${base}/test`,
      stop: async () => {
        process.removeListener('exit', stopNow);
        stopNow();
      },
    };
  } catch (error) {
    process.removeListener('exit', stopNow);
    stopNow();
    throw error;
  }
}

/** uid and gid of a local user from /etc/passwd. */
function systemUser(name: string): { uid: number; gid: number } | undefined {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${name}:`));
    if (!line) return undefined;
    const [, , uid, gid] = line.split(':');
    return { uid: Number(uid), gid: Number(gid) };
  } catch {
    return undefined;
  }
}

function safeUrl(url: string): string {
  return url.replace(/\/\/[^/@]*@/, '//[redacted]@');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
