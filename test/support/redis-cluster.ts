import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { until } from './wait';

const run = promisify(execFile);

/**
 * A local Redis Cluster of three masters and no replicas (Debian's redis-server with
 * `--cluster-enabled yes`, created with `redis-cli --cluster create`), on free ports, its data
 * in a temporary directory; `destroy()` kills the servers and removes it.
 */
export class OwnRedisCluster {
  readonly ports: number[] = [];
  private readonly processes: ChildProcess[] = [];
  private readonly dir = mkdtempSync(join(tmpdir(), 'gw-cluster-'));

  /** The masters' process ids (the scale-out suite reads their CPU time). */
  get pids(): number[] {
    return this.processes.flatMap((child) => (child.pid === undefined ? [] : [child.pid]));
  }

  /** One node's URL: the gateway discovers the others from it. */
  get url(): string {
    return `redis://127.0.0.1:${this.ports[0]}`;
  }

  async start(masters = 3): Promise<void> {
    for (let i = 0; i < masters; i += 1) {
      const port = await freeClusterPort(this.ports);
      const dir = join(this.dir, String(port));
      mkdirSync(dir);
      this.ports.push(port);
      this.processes.push(
        spawn(
          'redis-server',
          [
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            join(dir, 'nodes.conf'),
            '--cluster-node-timeout',
            '5000',
            '--dir',
            dir,
            '--save',
            '',
            '--appendonly',
            'no',
          ],
          { stdio: 'ignore' },
        ),
      );
    }
    for (const port of this.ports) await until(`redis-server on ${port}`, () => accepts(port));
    await run('redis-cli', [
      '--cluster',
      'create',
      ...this.ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (const port of this.ports)
      await until(`cluster_state:ok on ${port}`, async () => {
        const { stdout } = await run('redis-cli', ['-p', String(port), 'cluster', 'info']);
        return stdout.includes('cluster_state:ok');
      });
  }

  async destroy(): Promise<void> {
    for (const child of this.processes) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A port whose cluster bus port (+10000) is free too, and not one of `taken`. */
async function freeClusterPort(taken: number[]): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.includes(port)) continue;
    if ((await listenable(port)) && (await listenable(port + 10_000))) return port;
  }
}

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
