import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { MalformedResponseError, RateLimitError, TransportError, MAX_REQUEST_ID_LENGTH } from '../../src/vas';
import { ctx, purchase, serviceFor } from './helpers';

/**
 * Odd answers the sandbox never gives, from a tiny local server on port 0 that speaks the
 * spec's shapes: request ids, non-JSON and malformed bodies, bare 5xx, 429 policy, closed port.
 */

type Mode = (req: express.Request, res: express.Response) => void;
let mode: Mode;
let hits: Array<{ path: string; requestId: string | undefined }>;
let server: http.Server;
let url: string;

const transaction = (overrides: Record<string, unknown> = {}) => ({
  id: 7,
  status: 'ON_GOING',
  type: 'TOPUP',
  reference: null,
  total: 'BWP 105.00',
  net: 'BWP 100.00',
  charge: 'BWP 5.00',
  commission: 'BWP 0.00',
  entry: 'BWP 105.00',
  subscriber_identifier: '01234567890',
  subscriber_details: 'JANE DOE',
  product: { type: 'ELECTRICITY', provider: 'BPC', units: '45.2 kWh' },
  metadata: { vat: 'BWP 1.00' },
  ...overrides,
});

beforeAll(async () => {
  const app = express();
  app.use(express.json());
  app.post('/public/v1/auth/login', (_req, res) => {
    res.json({
      access_token: 'at',
      access_in: 3600,
      token_type: 'bearer',
      refresh_token: 'rt',
      scope: 'read write',
    });
  });
  app.use((req, res) => {
    hits.push({ path: req.path, requestId: req.get('X-Request-Id') });
    mode(req, res);
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
);
beforeEach(() => {
  hits = [];
});

describe('request ids', () => {
  it('sends the caller id truncated to 128 printable characters and keeps the answer id', async () => {
    mode = (_req, res) => void res.setHeader('X-Request-Id', 'srv-42').json(transaction());
    const long = `hop-é-${'x'.repeat(200)}`;
    const quote = await serviceFor(url).validate(purchase(), { requestId: long });
    expect(hits[0].requestId).toHaveLength(MAX_REQUEST_ID_LENGTH);
    expect(hits[0].requestId).toMatch(/^hop-_-x+$/);
    expect(quote.requestId).toBe('srv-42');
    expect(quote.total).toEqual({ currency: 'BWP', minor: 10_500 });
    expect(quote.units).toBe('45.2 kWh');
  });
});

describe('malformed answers', () => {
  it('a 200 that is not JSON is MalformedResponseError (outcome unknown)', async () => {
    mode = (_req, res) => void res.type('text/html').send('<html>gateway</html>');
    const error = await serviceFor(url)
      .confirm(purchase(), ctx())
      .catch((e) => e);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.outcome).toBe('unknown');
  });

  it.each([
    ['a float-ish money string', { total: 'BWP 1.005' }],
    ['a money string without currency', { net: '100.00' }],
    ['NaN money', { charge: 'BWP NaN' }],
    ['a bad metadata money string', { metadata: { vat: 'lots' } }],
    ['a missing id', { id: undefined }],
    ['an unknown status', { status: 'DONE' }],
  ])('%s is MalformedResponseError, never NaN', async (_label, overrides) => {
    mode = (_req, res) => void res.json(transaction(overrides));
    await expect(serviceFor(url).validate(purchase(), ctx())).rejects.toBeInstanceOf(MalformedResponseError);
  });

  it('a bare 502 HTML page is outcome unknown; a 200 carrying an error envelope is an error', async () => {
    mode = (_req, res) => void res.status(502).type('text/html').send('<h1>Bad gateway</h1>');
    const error = await serviceFor(url)
      .confirm(purchase(), ctx())
      .catch((e) => e);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.outcome).toBe('unknown');
    mode = (_req, res) =>
      void res.json({
        error: {
          type: 'provider_error',
          code: 'meter_blocked',
          message: 'blocked',
          param: null,
          retryable: false,
        },
      });
    await expect(serviceFor(url).validate(purchase(), ctx())).rejects.toMatchObject({
      code: 'meter_blocked',
    });
  });
});

describe('429 policy', () => {
  const limited = (times: number, retryAfter: string): Mode => {
    let left = times;
    return (_req, res) => {
      if (left-- > 0) {
        res.status(429).setHeader('Retry-After', retryAfter);
        res.json({
          error: {
            type: 'rate_limit_error',
            code: 'rate_limited',
            message: 'slow down',
            param: null,
            retryable: true,
          },
        });
        return;
      }
      res.json(transaction());
    };
  };

  it('validate waits Retry-After and tries again, up to maxRetries', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    mode = limited(2, '2');
    const quote = await serviceFor(url, {}, { sleep }).validate(purchase(), ctx());
    expect(quote.status).toBe('ON_GOING');
    expect(waits).toEqual([2000, 2000]);
    expect(hits).toHaveLength(3);

    hits = [];
    mode = limited(3, '0');
    await expect(
      serviceFor(url, {}, { sleep, rateLimit: { maxRetries: 2 } }).validate(purchase(), ctx()),
    ).rejects.toBeInstanceOf(RateLimitError);
    expect(hits).toHaveLength(3);
  });

  it('a Retry-After beyond the bound is handed to the caller at once', async () => {
    mode = limited(1, '60');
    const error = await serviceFor(url, {}, { sleep: async () => undefined })
      .validate(purchase(), ctx())
      .catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(60_000);
    expect(hits).toHaveLength(1);
  });

  it('confirm and retry are never re-sent on 429', async () => {
    const sleep = jest.fn(async () => undefined);
    mode = limited(1, '0');
    await expect(serviceFor(url, {}, { sleep }).confirm(purchase(), ctx())).rejects.toBeInstanceOf(
      RateLimitError,
    );
    mode = limited(1, '0');
    await expect(
      serviceFor(url, {}, { sleep }).retry(
        {
          sourceChannel: 'USSD',
          language: 'en-BW',
          productType: 'ELECTRICITY',
          subscriberIdentifier: '01234567890',
          externalReference: 'r',
        },
        ctx(),
      ),
    ).rejects.toBeInstanceOf(RateLimitError);
    expect(hits).toHaveLength(2);
    expect(sleep).not.toHaveBeenCalled();
  });
});

describe('transport classification', () => {
  it('a closed port is not_sent', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await serviceFor(`http://127.0.0.1:${port}`)
      .confirm(purchase(), ctx())
      .catch((e) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error.outcome).toBe('not_sent');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('an unknown host is not_sent', async () => {
    const error = await serviceFor('http://no-such-host.invalid')
      .listAccounts(ctx())
      .catch((e) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error.outcome).toBe('not_sent');
  });

  it('a server that never answers is unknown after the timeout; a reset socket is unknown', async () => {
    mode = () => undefined; // never answers
    const error = await serviceFor(url, { timeoutMs: 200, confirmTimeoutMs: 300 })
      .confirm(purchase(), ctx())
      .catch((e) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error.outcome).toBe('unknown');
    expect(error.message).toContain('300 ms');
    mode = (req) => void req.socket.destroy();
    const reset = await serviceFor(url)
      .confirm(purchase(), ctx())
      .catch((e) => e);
    expect(reset).toBeInstanceOf(TransportError);
    expect(reset.outcome).toBe('unknown');
  });
});
