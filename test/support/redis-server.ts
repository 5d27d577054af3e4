import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

/**
 * A redis-server of the test's own, on a free port, for tests that kill and restart Redis
 * (the shared one at 6379 must never be disturbed). It keeps nothing on disk.
 */
export class OwnRedisServer {
  private process: ChildProcess | undefined;
  private chosenPort = 0;

  get port(): number {
    return this.chosenPort;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.chosenPort}`;
  }

  /** Starts it (again on the same port after `kill`) and resolves once it accepts connections. */
  async start(): Promise<void> {
    this.chosenPort ||= await freePort();
    this.process = spawn(
      'redis-server',
      ['--port', String(this.chosenPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    for (let i = 0; i < 100; i += 1) {
      if (await accepts(this.chosenPort)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('redis-server did not start');
  }

  /** Kills it outright (SIGKILL, as a crash) and resolves once it has exited. */
  async kill(): Promise<void> {
    const running = this.process;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  }
}

function freePort(): Promise<number> {
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
