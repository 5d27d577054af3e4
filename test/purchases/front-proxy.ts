import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP proxy in front of the sandbox that can answer some calls itself, as a load
 * balancer, a filter or a broken gateway would: the client under test talks real HTTP to it.
 */
export interface FrontProxy {
  url: string;
  /** Where calls are forwarded (set once the sandbox runs). */
  target: string;
  /** The next `count` retry calls get `status` with an HTML body instead of reaching the service. */
  breakRetries(count: number, status: number): void;
  /** The next confirm reaches the service (and is performed), but its caller gets `status` + `body` instead. */
  replaceNextConfirmAnswer(status: number, body: unknown): void;
  close(): Promise<void>;
}

export async function startFrontProxy(): Promise<FrontProxy> {
  let broken = 0;
  let brokenStatus = 404;
  let replacement: { status: number; body: unknown } | null = null;
  const proxy: FrontProxy = {
    url: '',
    target: '',
    breakRetries(count, status) {
      broken = count;
      brokenStatus = status;
    },
    replaceNextConfirmAnswer(status, body) {
      replacement = { status, body };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/public/v1/purchases/retry') && broken > 0) {
      broken -= 1;
      req.resume();
      res.writeHead(brokenStatus, { 'content-type': 'text/html' }).end('<html><body>Not here</body></html>');
      return;
    }
    const replace = req.url?.startsWith('/public/v1/purchases/confirm') ? replacement : null;
    if (replace) replacement = null;
    const upstream = new URL(proxy.target);
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        if (replace) {
          answer.resume();
          answer.on('end', () => {
            res
              .writeHead(replace.status, { 'content-type': 'application/json' })
              .end(JSON.stringify(replace.body));
          });
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
