/**
 * `npm run bench:durability`: what the money path's durability costs per purchase. Times the
 * compare-and-set that precedes a confirm (one Lua script updating a hash, as the purchase
 * store does) against three throw-away redis-servers: no persistence, AOF with
 * `appendfsync always`, and no persistence plus `WAIT 1` for a replica. Prints the mean and p99
 * per write, sequential (one purchase at a time) and with 32 in flight.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './ports';

const WRITES = Number(process.env.BENCH_WRITES ?? 2000);
const CAS = `
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'state', 'confirming', 'record', ARGV[3])
return 1`;

async function redisServer(args: string[]): Promise<{ port: number; process: ChildProcess; dir: string }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, ...args],
    {
      stdio: 'ignore',
    },
  );
  for (let i = 0; i < 100; i += 1) {
    const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => null });
    probe.on('error', () => undefined);
    const up = await probe.connect().then(
      () => true,
      () => false,
    );
    probe.disconnect();
    if (up) return { port, process: child, dir };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('redis-server did not start');
}

const record = JSON.stringify({ intent: 'x'.repeat(900) });

async function oneWrite(redis: Redis, id: number, wait: boolean): Promise<number> {
  const key = `bench:purchase:{${id}}`;
  await redis.hset(key, 'version', '1');
  const started = process.hrtime.bigint();
  await redis.eval(CAS, 1, key, '1', '2', record);
  if (wait) await redis.call('WAIT', '1', '1000');
  return Number(process.hrtime.bigint() - started) / 1000;
}

async function measure(
  redis: Redis,
  wait: boolean,
  concurrency: number,
): Promise<{ mean: number; p99: number }> {
  const times: number[] = [];
  let next = 0;
  const connections = Array.from({ length: concurrency }, () => redis.duplicate());
  await Promise.all(
    connections.map(async (connection) => {
      while (next < WRITES) {
        const id = next++;
        times.push(await oneWrite(connection, id, wait));
      }
    }),
  );
  connections.forEach((c) => c.disconnect());
  times.sort((a, b) => a - b);
  return {
    mean: times.reduce((a, b) => a + b, 0) / times.length,
    p99: times[Math.floor(times.length * 0.99)],
  };
}

async function main(): Promise<void> {
  const plain = await redisServer(['--appendonly', 'no']);
  const aof = await redisServer(['--appendonly', 'yes', '--appendfsync', 'always']);
  const primary = await redisServer(['--appendonly', 'no']);
  const replica = await redisServer(['--appendonly', 'no', '--replicaof', '127.0.0.1', String(primary.port)]);
  const servers = [plain, aof, primary, replica];
  try {
    const primaryClient = new Redis(primary.port);
    for (let i = 0; i < 100; i += 1) {
      const info = await primaryClient.info('replication');
      if (/connected_slaves:1/.test(info) && /state=online/.test(info)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const rows: [string, Redis, boolean][] = [
      ['no persistence (baseline)', new Redis(plain.port), false],
      ['AOF, appendfsync always', new Redis(aof.port), false],
      ['WAIT 1 replica', primaryClient, true],
    ];
    const results: string[] = [];
    let baseline = { seq: 0, par: 0 };
    for (const [name, client, wait] of rows) {
      const seq = await measure(client, wait, 1);
      const par = await measure(client, wait, 32);
      if (!wait && baseline.seq === 0) baseline = { seq: seq.mean, par: par.mean };
      results.push(
        `| ${name} | ${seq.mean.toFixed(0)} µs | ${seq.p99.toFixed(0)} µs | ${(seq.mean / baseline.seq).toFixed(1)}× | ` +
          `${par.mean.toFixed(0)} µs | ${par.p99.toFixed(0)} µs | ${(par.mean / baseline.par).toFixed(1)}× |`,
      );
      client.disconnect();
    }
    console.log(`compare-and-set before confirm, ${WRITES} writes each`);
    console.log(
      '| Redis | mean (1 at a time) | p99 | vs baseline | mean (32 in flight) | p99 | vs baseline |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const line of results) console.log(line);
  } finally {
    for (const server of servers) {
      server.process.kill('SIGKILL');
      rmSync(server.dir, { recursive: true, force: true });
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
