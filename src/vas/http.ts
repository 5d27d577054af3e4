import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import axios, { type AxiosInstance } from 'axios';
import { TransportError } from './errors';

/**
 * The raw HTTP leg of every purchase-service call: one axios instance per adapter, per-call
 * timeouts, `X-Request-Id` out and back, and a precise answer to the question that decides
 * the money path — did the request possibly reach the server?
 *
 * axios' own `timeout` cannot tell "never connected" from "sent, no answer yet", so the
 * client runs its own two timers and watches the socket through a custom transport:
 * - nothing connected before the connect timer or a refused/DNS error → `not_sent`;
 * - anything after a socket connected (read timeout, reset, hang-up) → `unknown`.
 */

/** Largest `X-Request-Id` the service accepts (7.1, 8.1). */
export const MAX_REQUEST_ID_LENGTH = 128;

export interface HttpRequest {
  /** `login`, `validate`, `confirm`, … for logs and error messages. */
  operation: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** The JSON body as exact text (when a signature covers its bytes); wins over `body`. */
  rawBody?: string;
  bearer?: string;
  /** Further headers (a payment provider's `Basic` login, subscription key, reference); win over the defaults. */
  headers?: Record<string, string>;
  /** Budget for the whole call, connect included. */
  timeoutMs: number;
  requestId: string;
}

export interface HttpAnswer {
  status: number;
  /** Parsed JSON, or `undefined` when the body was empty or not JSON (see `text`). */
  body: unknown;
  text: string;
  headers: Record<string, string>;
  /** The `X-Request-Id` the server answered with (null when absent). */
  requestId: string | null;
}

export interface HttpTransportOptions {
  /** Time allowed to open the TCP (and TLS) connection; default min(timeout, 5 s). */
  connectTimeoutMs?: number;
}

/** `X-Request-Id` as sent: printable ASCII only, at most 128 characters. */
export function outgoingRequestId(raw: string): string {
  const clean = raw.replace(/[^\x21-\x7e]/g, '_').slice(0, MAX_REQUEST_ID_LENGTH);
  return clean === '' ? 'no-request-id' : clean;
}

interface SocketState {
  connected: boolean;
  flushed: boolean;
  /** The request went out on a kept-alive connection that served an earlier one. */
  reused: boolean;
}

/** `http.request` wrapped so the call can see when its socket connects and its body is written. */
function watchingTransport(state: SocketState, secure: boolean) {
  const base = secure ? https : http;
  return {
    request(options: http.RequestOptions, callback?: (res: http.IncomingMessage) => void) {
      const req = base.request(options, callback);
      req.on('socket', (socket: Socket) => {
        state.reused = req.reusedSocket;
        // A kept-alive socket is already connected; a fresh one connects (and for TLS, handshakes) later.
        const event = secure ? 'secureConnect' : 'connect';
        if (!socket.connecting && (!secure || (socket as { encrypted?: boolean }).encrypted)) {
          state.connected = true;
        } else {
          socket.once(event, () => {
            state.connected = true;
          });
        }
      });
      req.on('finish', () => {
        state.flushed = true;
      });
      return req;
    },
  };
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'ERR_CANCELED' && code !== 'ERR_NETWORK') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function headerRecord(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers || typeof headers !== 'object') return out;
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (typeof value === 'string') out[key.toLowerCase()] = value;
    else if (Array.isArray(value)) out[key.toLowerCase()] = value.join(', ');
    else if (typeof value === 'number') out[key.toLowerCase()] = String(value);
  }
  return out;
}

/**
 * Connections kept open between calls (a quote on every purchase dialogue), the most recently
 * used first so that idle ones age out.
 * - `timeout`: an idle connection is closed after 30 s, or 1 s before the server's own
 *   `Keep-Alive: timeout=` says it will close it. Node's agent applies that hint only when it
 *   has a timeout of its own; without one, a request could go out on a connection the server
 *   was closing as idle, and a confirm sent that way has an unknown outcome. (It does not abort
 *   a request in flight: the agent destroys only free sockets on it.)
 * - `keepAliveMsecs`: TCP keep-alive probes after 60 s, as axios sets on every request's
 *   socket: with the agent's default (1 s) the two would alternate, a setsockopt per request.
 */
const KEEP_ALIVE = { keepAlive: true, timeout: 30_000, keepAliveMsecs: 60_000, scheduling: 'lifo' } as const;

/** Sends one HTTP request and returns whatever status came back; throws only `TransportError`. */
export class HttpTransport {
  private readonly axios: AxiosInstance;
  private readonly secure: boolean;

  constructor(
    readonly baseUrl: string,
    private readonly options: HttpTransportOptions = {},
  ) {
    this.secure = baseUrl.startsWith('https:');
    this.axios = axios.create({
      baseURL: baseUrl.replace(/\/+$/, ''),
      maxRedirects: 0,
      validateStatus: () => true,
      responseType: 'text',
      transformResponse: [(data: unknown) => data],
      // Our own timers below; axios' single timeout cannot classify.
      timeout: 0,
      proxy: false,
      headers: { Accept: 'application/json' },
      httpAgent: new http.Agent(KEEP_ALIVE),
      httpsAgent: new https.Agent(KEEP_ALIVE),
    });
  }

  async send(request: HttpRequest): Promise<HttpAnswer> {
    const state: SocketState = { connected: false, flushed: false, reused: false };
    const controller = new AbortController();
    let fired: 'connect' | 'read' | null = null;
    const connectTimeoutMs = Math.min(request.timeoutMs, this.options.connectTimeoutMs ?? 5000);
    const connectTimer = setTimeout(() => {
      if (!state.connected) {
        fired = 'connect';
        controller.abort();
      }
    }, connectTimeoutMs);
    const readTimer = setTimeout(() => {
      fired = state.connected ? 'read' : 'connect';
      controller.abort();
    }, request.timeoutMs);

    const headers: Record<string, string> = { 'X-Request-Id': request.requestId };
    if (request.bearer) headers.Authorization = `Bearer ${request.bearer}`;
    if (request.body !== undefined || request.rawBody !== undefined)
      headers['Content-Type'] = 'application/json';
    Object.assign(headers, request.headers);

    try {
      const response = await this.axios.request<string>({
        method: request.method,
        url: request.path,
        data: request.rawBody ?? (request.body === undefined ? undefined : JSON.stringify(request.body)),
        headers,
        signal: controller.signal,
        transport: watchingTransport(state, this.secure),
      } as Parameters<AxiosInstance['request']>[0]);
      const text = typeof response.data === 'string' ? response.data : '';
      let body: unknown;
      if (text.trim() !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
      }
      const responseHeaders = headerRecord(response.headers);
      return {
        status: response.status,
        body,
        text,
        headers: responseHeaders,
        requestId: responseHeaders['x-request-id'] ?? null,
      };
    } catch (error) {
      throw this.classify(error, request, state, fired, connectTimeoutMs);
    } finally {
      clearTimeout(connectTimer);
      clearTimeout(readTimer);
    }
  }

  private classify(
    error: unknown,
    request: HttpRequest,
    state: SocketState,
    fired: 'connect' | 'read' | null,
    connectTimeoutMs: number,
  ): TransportError {
    const where = `${request.operation} ${request.method} ${this.baseUrl}${request.path}`;
    if (fired === 'connect') {
      return new TransportError(
        'not_sent',
        `${where}: could not connect within ${connectTimeoutMs} ms (nothing was sent)`,
        request.requestId,
        { cause: error },
      );
    }
    if (fired === 'read') {
      return new TransportError(
        'unknown',
        `${where}: no answer within ${request.timeoutMs} ms after the request was ${state.flushed ? 'sent' : 'started'} (outcome unknown)`,
        request.requestId,
        { cause: error },
      );
    }
    const code = errorCode(error) ?? 'EUNKNOWN';
    // Only a socket that never connected proves nothing was sent: once connected, even an
    // EHOSTUNREACH/ENETUNREACH (Linux reports them on established connections) may follow a
    // delivered request, and a confirm must then be reconciled, never re-sent.
    if (!state.connected) {
      return new TransportError('not_sent', `${where}: ${code} (nothing was sent)`, request.requestId, {
        cause: error,
      });
    }
    return new TransportError(
      'unknown',
      `${where}: ${code} after the request was ${state.flushed ? 'sent' : 'started'}${state.reused ? ' on a kept-alive connection' : ''} (outcome unknown)`,
      request.requestId,
      { cause: error, staleConnection: state.reused && (code === 'ECONNRESET' || code === 'EPIPE') },
    );
  }
}
