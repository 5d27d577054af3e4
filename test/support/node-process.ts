import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from './redis-server';
import { until } from './wait';

const ROOT = path.resolve(__dirname, '../..');
const HOOK = path.join(ROOT, 'test/entrypoints/ts-require-hook.js');

/**
 * The gateway (`src/main.ts`) or the purchase worker (`src/worker.ts`) as a real process,
 * transpiled on the fly as the entry-point tests run them, for tests that SIGKILL it and start
 * it again (on the same port). `start()` resolves once its /healthz answers.
 */
export class NodeProcess {
  private child: ChildProcess | undefined;
  private chosenPort = 0;
  private output = '';

  constructor(
    private readonly entry: 'src/main.ts' | 'src/worker.ts',
    private readonly env: Record<string, string>,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.chosenPort}`;
  }

  /** Its process id while it runs (the scale-out suite reads its CPU time from /proc). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** What it printed (stderr and stdout), for a failure's message. */
  get log(): string {
    return this.output;
  }

  /** Choose its port now (kept across restarts): for settings that name its URL before it starts. */
  async reserveUrl(): Promise<string> {
    this.chosenPort ||= await freePort();
    return this.url;
  }

  async start(): Promise<void> {
    this.chosenPort ||= await freePort();
    const portVariable = this.entry === 'src/main.ts' ? 'PORT' : 'WORKER_HEALTH_PORT';
    const child = spawn(process.execPath, ['-r', HOOK, path.join(ROOT, this.entry)], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'test',
        LOG_LEVEL: 'error',
        SANDBOX_PORT: '0',
        PAYMENT_SANDBOX_PORT: '0',
        ...this.env,
        [portVariable]: String(this.chosenPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child = child;
    await until(
      `${this.entry} answering /healthz`,
      async () => {
        if (child.exitCode !== null) throw new Error(`${this.entry} exited: ${this.output}`);
        return (await fetch(`${this.url}/healthz`).catch(() => null))?.ok ?? false;
      },
      { timeoutMs: 60_000, everyMs: 100 },
    );
  }

  /** SIGKILL, as a crash; resolves once it has exited. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** SIGTERM (the graceful stop), then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
