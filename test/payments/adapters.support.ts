import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A provider played back over real HTTP on 127.0.0.1 port 0: each route answers what the test
 * scripted (status, JSON body, headers; or a dropped connection after the request arrived), and
 * every request is kept with its headers and exact body so a test can check the wire.
 */

export interface Recorded {
  method: string;
  path: string;
  query: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  body: unknown;
}

export type Answer =
  | { status: number; body?: unknown; text?: string; headers?: Record<string, string> }
  /** The request arrived; the connection is destroyed without an answer (outcome unknown). */
  | { drop: true };

export interface Replay {
  url: string;
  /** Answers for `METHOD /path` (no query), used in order; the last one repeats. */
  script(route: string, ...answers: Array<Answer | ((req: Recorded) => Answer)>): void;
  requests(route?: string): Recorded[];
  reset(): void;
  close(): Promise<void>;
}

export async function startReplay(): Promise<Replay> {
  const scripts = new Map<string, Array<Answer | ((req: Recorded) => Answer)>>();
  const seen: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const [path, query = ''] = (req.url ?? '/').split('?');
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = rawBody === '' ? undefined : JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const recorded: Recorded = {
        method: req.method ?? 'GET',
        path,
        query,
        headers: req.headers,
        rawBody,
        body,
      };
      seen.push(recorded);
      const route = routeOf(recorded);
      const list = scripts.get(route) ?? [];
      const next = list.length > 1 ? list.shift() : list[0];
      const answer =
        typeof next === 'function' ? next(recorded) : (next ?? { status: 599, text: 'unscripted' });
      if ('drop' in answer) {
        req.socket.destroy();
        return;
      }
      const text = answer.text ?? (answer.body === undefined ? '' : JSON.stringify(answer.body));
      res.writeHead(answer.status, {
        ...(text !== '' && { 'Content-Type': 'application/json' }),
        ...answer.headers,
      });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    script: (route, ...answers) => void scripts.set(route, answers),
    requests: (route) => (route ? seen.filter((r) => routeOf(r) === route) : [...seen]),
    reset: () => {
      scripts.clear();
      seen.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** `POST /mpesa/stkpush/v1/processrequest`: a route as scripts name it. */
export function routeOf(r: Pick<Recorded, 'method' | 'path'>): string {
  return `${r.method} ${r.path}`;
}

/** A URL on which nothing listens: every call to it fails before anything is sent. */
export async function closedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

let seq = 0;
export const ctx = (label = 'pay') => ({ requestId: `${label}-${process.pid}-${(seq += 1)}` });
/** Retries without waiting (the delays themselves have their own test). */
export const noWait = { sleep: async () => undefined };
