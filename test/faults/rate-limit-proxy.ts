import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SandboxError, v1ErrorBody } from '../../src/sandbox/errors';

/**
 * A real HTTP proxy in front of the sandbox that counts the calls it forwards and answers 429 with `Retry-After` for the next
 * calls of one endpoint, in the sandbox's own v1 envelope: the sandbox's fault injection has no
 * 429 of its own (its rate limit counts every call of a token, not one endpoint's).
 */
export class RateLimitProxy {
  url = '';
  /** When the last 429 was answered (0: never). */
  lastLimitedAt = 0;
  /** Calls forwarded to the sandbox, by path (`/public/v1/purchases/confirm`: confirms that left). */
  readonly forwarded = new Map<string, number>();
  private endpoint = '';
  private remaining = 0;
  private retryAfterS = 1;
  private readonly server = http.createServer((req, res) => this.handle(req, res));

  constructor(private readonly target: string) {}

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next `count` calls of `/public/v1/purchases/<endpoint>` get 429 `Retry-After: <s>`. */
  limit(endpoint: 'validate' | 'confirm' | 'retry', count: number, retryAfterS = 1): void {
    this.endpoint = `/public/v1/purchases/${endpoint}`;
    this.remaining = count;
    this.retryAfterS = retryAfterS;
  }

  /** Whether every armed 429 has been answered. */
  get spent(): boolean {
    return this.remaining === 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.remaining > 0 && req.url?.startsWith(this.endpoint)) {
      this.remaining -= 1;
      this.lastLimitedAt = Date.now();
      req.resume();
      const error = new SandboxError(
        'rate_limited',
        `Rate limit exceeded; retry after ${this.retryAfterS} s`,
      );
      res
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': String(this.retryAfterS) })
        .end(JSON.stringify(v1ErrorBody(error, 'proxy-429', this.url)));
      return;
    }
    const path = (req.url ?? '').split('?')[0];
    this.forwarded.set(path, (this.forwarded.get(path) ?? 0) + 1);
    const upstream = new URL(this.target);
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    // The sandbox's `drop` fault closes the socket: the caller sees the same.
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  }
}
