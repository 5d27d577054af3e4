import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { TransportError } from '../../src/vas';
import { HttpTransport } from '../../src/vas/http';
import { until } from '../support/wait';

/**
 * The raw HTTP leg on its own (axios over node:http): what goes on the wire, what comes back, and
 * the not_sent/unknown classification of the failures the adapters' tests do not reach.
 */

type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;
let handler: Handler;
let server: http.Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handler(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
);

const call = { operation: 'test', timeoutMs: 2000, requestId: 'req-1' } as const;

describe('HttpTransport', () => {
  it('keeps the base path, sends JSON with its headers and reads a UTF-8 answer', async () => {
    let seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string } | undefined;
    handler = (req, body, res) => {
      seen = { method: req.method, url: req.url, headers: req.headers, body };
      res.setHeader('X-Request-Id', 'answer-1');
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ name: 'Sekgoma Pula ✓' }));
    };
    const transport = new HttpTransport(`http://127.0.0.1:${port}/base//`);
    const answer = await transport.send({
      ...call,
      method: 'POST',
      path: '/public/v1/purchases/validate',
      body: { amount: 'BWP 10.00', note: 'é' },
      bearer: 'tok',
    });
    expect(seen?.method).toBe('POST');
    expect(seen?.url).toBe('/base/public/v1/purchases/validate');
    expect(seen?.headers['x-request-id']).toBe('req-1');
    expect(seen?.headers.authorization).toBe('Bearer tok');
    expect(seen?.headers.accept).toBe('application/json');
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen?.body ?? '')).toEqual({ amount: 'BWP 10.00', note: 'é' });
    expect(Number(seen?.headers['content-length'])).toBe(Buffer.byteLength(seen?.body ?? ''));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ name: 'Sekgoma Pula ✓' });
    expect(answer.requestId).toBe('answer-1');
    expect(answer.headers['set-cookie']).toBe('a=1, b=2');
  });

  it('keeps its connection open between calls (one TCP connection for calls one after another)', async () => {
    const sockets = new Set<unknown>();
    handler = (req, _body, res) => {
      sockets.add(req.socket);
      res.end('{}');
    };
    const transport = new HttpTransport(`http://127.0.0.1:${port}`);
    for (let i = 0; i < 3; i += 1)
      expect((await transport.send({ ...call, method: 'GET', path: '/ping' })).status).toBe(200);
    expect(sockets.size).toBe(1);
  });

  it('closes an idle connection before the server does, as its Keep-Alive hint says: none is reused as the server closes it', async () => {
    // The server closes idle connections after 2 s and says so (`Keep-Alive: timeout=2`).
    const hinting = http.createServer((_req, res) => res.end('{}'));
    hinting.keepAliveTimeout = 2000;
    const closedBy: string[] = [];
    hinting.on('connection', (socket: net.Socket) => {
      let ended = false;
      socket.on('end', () => (ended = true));
      socket.on('close', () => closedBy.push(ended ? 'client' : 'server'));
    });
    await new Promise<void>((resolve) => hinting.listen(0, '127.0.0.1', resolve));
    try {
      const transport = new HttpTransport(`http://127.0.0.1:${(hinting.address() as AddressInfo).port}`);
      expect((await transport.send({ ...call, method: 'GET', path: '/ping' })).status).toBe(200);
      // Left idle: the client hangs up first (1 s before the server would), never the server.
      await until('the idle connection closed', () => closedBy.length === 1 || null, { timeoutMs: 10_000 });
      expect(closedBy).toEqual(['client']);
    } finally {
      await new Promise<void>((resolve) => hinting.close(() => resolve()));
    }
  });

  it('the idle timeout never cuts a slow answer short on a reused connection', async () => {
    // `timeout=2`: the client keeps an idle connection 1 s. The second answer takes 1.5 s.
    let calls = 0;
    const slow = http.createServer((_req, res) => {
      calls += 1;
      if (calls === 1) res.end('{}');
      else setTimeout(() => res.end('{"slow":true}'), 1500);
    });
    slow.keepAliveTimeout = 2000;
    const sockets = new Set<net.Socket>();
    slow.on('connection', (socket: net.Socket) => sockets.add(socket));
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const transport = new HttpTransport(`http://127.0.0.1:${(slow.address() as AddressInfo).port}`);
      await transport.send({ ...call, method: 'GET', path: '/first' });
      const answer = await transport.send({ ...call, timeoutMs: 5000, method: 'GET', path: '/slow' });
      expect(answer.body).toEqual({ slow: true });
      expect(sockets.size).toBe(1);
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });

  it('asks for one TCP keep-alive delay, as axios does: no setsockopt per request once connected', async () => {
    handler = (_req, _body, res) => res.end('{}');
    const delays: Array<number | undefined> = [];
    const original = net.Socket.prototype.setKeepAlive;
    net.Socket.prototype.setKeepAlive = function (this: net.Socket, enable?: boolean, delay?: number) {
      delays.push(delay);
      return original.call(this, enable, delay);
    };
    try {
      const transport = new HttpTransport(`http://127.0.0.1:${port}`);
      for (let i = 0; i < 3; i += 1) await transport.send({ ...call, method: 'GET', path: '/ping' });
    } finally {
      net.Socket.prototype.setKeepAlive = original;
    }
    // axios on every request's socket, the agent whenever the socket goes back to the pool.
    expect(delays.length).toBeGreaterThanOrEqual(5);
    expect(new Set(delays)).toEqual(new Set([60_000]));
  });

  it('a GET has no body; any status comes back as it is, redirects are not followed', async () => {
    let seen: { headers: http.IncomingHttpHeaders; body: string } | undefined;
    handler = (req, body, res) => {
      seen = { headers: req.headers, body };
      res.writeHead(302, { Location: '/elsewhere' }).end('not json');
    };
    const answer = await new HttpTransport(`http://127.0.0.1:${port}`).send({
      ...call,
      method: 'GET',
      path: 'accounts',
    });
    expect(seen?.body).toBe('');
    expect(seen?.headers['content-type']).toBeUndefined();
    expect(answer.status).toBe(302);
    expect(answer.body).toBeUndefined();
    expect(answer.text).toBe('not json');
    expect(answer.requestId).toBeNull();
  });

  it('an answer cut off mid-body is outcome unknown', async () => {
    handler = (_req, _body, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
      res.write('{"status":');
      setImmediate(() => res.socket?.destroy());
    };
    const error = await new HttpTransport(`http://127.0.0.1:${port}`)
      .send({ ...call, method: 'POST', path: '/confirm', body: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).outcome).toBe('unknown');
  });

  it('an invalid base URL is not_sent', async () => {
    const error = await new HttpTransport('not a url')
      .send({ ...call, method: 'GET', path: '/x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as TransportError).outcome).toBe('not_sent');
    expect((error as Error).message).toContain('ERR_INVALID_URL');
  });
});
