/**
 * The bench's child processes: each server, sandbox and worker runs in a process of its own, so
 * that the load generator does not share their event loop.
 */
import { ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';

/** The build's dist/: the scripts the bench starts (this file is dist/bench/processes.js). */
export const distRoot = path.resolve(__dirname, '..');

export async function waitForHealth(port: number, child: ChildProcess, pathName: string): Promise<void> {
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

export function startProcess(
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
  root = distRoot,
): ChildProcess {
  // The user's records settings are not inherited: a process gets the bench's database or none.
  const { DATABASE_URL: _url, DATABASE_SCHEMA: _schema, DATA_DIR: _dir, ...inherited } = process.env;
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, script)], {
    env: { ...inherited, LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

/** Whether a child process has ended (a signal ends it with no exit code). */
export function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Asks a child process to end: SIGTERM, then SIGCONT, as a worker kept between drains may be
 * stopped (SIGSTOP) and acts on the SIGTERM only once continued.
 */
export function terminate(child: ChildProcess): void {
  child.kill('SIGTERM');
  child.kill('SIGCONT');
}

/** Stops a child process and waits for it to exit. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (exited(child)) return;
  const ended = new Promise((resolve) => child.once('exit', resolve));
  terminate(child);
  await ended;
}

/** The body of a GET to a local server of the bench (the gateway's metrics, a sandbox's accounts). */
export function getText(port: number, urlPath: string): Promise<string> {
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
