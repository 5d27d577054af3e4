import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How the server keeps data: not at all, an RDB file written only on `snapshot()`, or AOF fsynced per write. */
export type TestPersistence = 'none' | 'snapshot' | 'aof-always';

/**
 * A redis-server of the test's own, on a free port, for tests that kill and restart Redis
 * (the shared one at 6379 must never be disturbed). With `snapshot` persistence a test takes
 * an RDB snapshot when it chooses and a restart loads it: exactly how a Redis restarted from an
 * older `SAVE` (or a lagging replica) loses the writes made after it.
 */
export class OwnRedisServer {
  private process: ChildProcess | undefined;
  private chosenPort = 0;
  /** Always a directory of its own: a test that turns AOF on must never write into the repo. */
  private readonly dir: string;

  constructor(private readonly persistence: TestPersistence = 'none') {
    this.dir = mkdtempSync(join(tmpdir(), 'gw-redis-'));
  }

  get port(): number {
    return this.chosenPort;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.chosenPort}`;
  }

  /** Starts it (again on the same port after `kill`) and resolves once it accepts connections. */
  async start(): Promise<void> {
    this.chosenPort ||= await freePort();
    const args = ['--port', String(this.chosenPort), '--bind', '127.0.0.1', '--save', ''];
    args.push('--dir', this.dir, '--dbfilename', 'dump.rdb');
    if (this.persistence === 'aof-always') args.push('--appendonly', 'yes', '--appendfsync', 'always');
    else args.push('--appendonly', 'no');
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    this.process = child;
    let failed: Error | undefined;
    child.once('error', (error: NodeJS.ErrnoException) => {
      failed =
        error.code === 'ENOENT'
          ? new Error(
              'redis-server is not on the PATH (Debian package redis-server): this test starts one of its own',
            )
          : error;
    });
    for (let i = 0; i < 100; i += 1) {
      if (failed) throw failed;
      if (await accepts(this.chosenPort)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('redis-server did not start');
  }

  /** Writes an RDB snapshot now (`SAVE`): what a restart will come back to. */
  async snapshot(): Promise<void> {
    if (this.persistence !== 'snapshot') throw new Error('snapshot() needs snapshot persistence');
    await command(this.chosenPort, 'SAVE');
  }

  /** Forgets every snapshot, so the next start is empty (Redis restarted with no persistence). */
  forgetData(): void {
    rmSync(join(this.dir, 'dump.rdb'), { force: true });
  }

  /** Kills it outright (SIGKILL, as a crash) and resolves once it has exited. */
  async kill(): Promise<void> {
    const running = this.process;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  }

  /** Kills it and removes its data directory. */
  async destroy(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
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

/** One inline command over a raw socket; resolves with the first reply line. */
function command(port: number, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`${line}\r\n`));
    socket.once('data', (data) => {
      socket.destroy();
      const reply = data.toString().trim();
      if (reply.startsWith('-')) reject(new Error(reply));
      else resolve(reply);
    });
    socket.on('error', reject);
  });
}
