import { componentLogger } from '../observability/logger';
import { HttpTransport, outgoingRequestId, type HttpAnswer, type HttpRequest } from '../vas/http';
import { TransportError } from '../vas/errors';
import {
  PaymentTokenError,
  PaymentTransportError,
  ProviderAuthenticationError,
  outcomeOf,
  RETRY_DELAY_MAX_MS,
  retryDelayMs,
  shouldRetry,
} from './errors';
import type { PaymentCallContext } from './port';

/**
 * The HTTP leg every payment adapter shares: the transport that knows whether a request may have
 * reached the provider (src/vas/http.ts), the access token cache, the retry of idempotent calls,
 * and one JSON log line per attempt — operation, status, duration, outcome; never a body, a
 * header, a number or a secret.
 */

const log = componentLogger('payments');

export interface CallerOptions {
  /** Budget of one attempt, connect included. */
  timeoutMs?: number;
  /** Re-attempts of an idempotent call (see `shouldRetry`). */
  maxRetries?: number;
  /** Injected by tests; a real timer otherwise. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** One call: the request as the transport sends it, less what the caller adds (token, budget, id). */
export interface ProviderCall extends Pick<
  HttpRequest,
  'operation' | 'method' | 'path' | 'body' | 'rawBody' | 'headers'
> {
  /** Safe to send again (a read, or a request the provider de-duplicates by our reference). */
  idempotent: boolean;
  /** Adds `Authorization: Bearer <token>` from this cache (refreshed once after a 401). */
  token?: TokenCache;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RETRIES = 2;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class ProviderCaller {
  private readonly transport: HttpTransport;

  constructor(
    readonly provider: string,
    baseUrl: string,
    private readonly options: CallerOptions = {},
  ) {
    this.transport = new HttpTransport(baseUrl);
  }

  get now(): number {
    return (this.options.now ?? Date.now)();
  }

  /**
   * The longest one `call` with a token may last: every attempt to its timeout (the retries, and
   * one more after a refused token), every wait at its longest, and the token fetched twice (at
   * first and after the refusal), each fetch a call of its own. Past it, nothing of the call can
   * still reach the provider.
   */
  get callBudgetMs(): number {
    const timeout = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const retries = this.options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const waits = retries * RETRY_DELAY_MAX_MS;
    const tokenFetch = (retries + 1) * timeout + waits;
    return 2 * tokenFetch + (retries + 2) * timeout + waits;
  }

  /**
   * Sends the call and hands every answer to `read`, which returns the result or throws the typed
   * error (usually `errorFromAnswer`). Idempotent calls are attempted again on a transport failure,
   * a 5xx or a rate limit; any call once more after a refused token (nothing was done with it).
   */
  async call<T>(spec: ProviderCall, ctx: PaymentCallContext, read: (answer: HttpAnswer) => T): Promise<T> {
    const requestId = outgoingRequestId(ctx.requestId);
    const maxRetries = this.options.maxRetries ?? DEFAULT_MAX_RETRIES;
    let refreshed = false;
    for (let attempt = 1; ; attempt += 1) {
      const bearer = spec.token ? await this.bearer(spec, ctx) : undefined;
      const started = this.now;
      let status = 0;
      try {
        const answer = await this.send(spec, requestId, bearer);
        status = answer.status;
        const result = read(answer);
        this.logAttempt(spec, requestId, started, status);
        return result;
      } catch (error) {
        this.logAttempt(spec, requestId, started, status, error);
        if (error instanceof ProviderAuthenticationError && bearer && !refreshed) {
          // The provider refused the token before doing anything: a fresh one, once, for any call.
          spec.token?.invalidate(bearer);
          refreshed = true;
          continue;
        }
        if (attempt > maxRetries || !shouldRetry(error, spec.idempotent)) throw error;
        await (this.options.sleep ?? defaultSleep)(retryDelayMs(attempt, error));
      }
    }
  }

  private async send(spec: ProviderCall, requestId: string, bearer: string | undefined): Promise<HttpAnswer> {
    try {
      return await this.transport.send({
        operation: spec.operation,
        method: spec.method,
        path: spec.path,
        body: spec.body,
        rawBody: spec.rawBody,
        headers: { ...spec.headers, ...(bearer && { Authorization: `Bearer ${bearer}` }) },
        timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        requestId,
      });
    } catch (error) {
      if (error instanceof TransportError)
        throw new PaymentTransportError(error.outcome, `${this.provider} ${error.message}`, { cause: error });
      throw error;
    }
  }

  private async bearer(spec: ProviderCall, ctx: PaymentCallContext): Promise<string> {
    try {
      return await (spec.token as TokenCache).get(ctx);
    } catch (error) {
      throw new PaymentTokenError(this.provider, spec.operation, error);
    }
  }

  private logAttempt(
    spec: ProviderCall,
    requestId: string,
    started: number,
    status: number,
    error?: unknown,
  ) {
    const fields = {
      provider: this.provider,
      operation: spec.operation,
      method: spec.method,
      status,
      durationMs: this.now - started,
      requestId,
      ...(error !== undefined && {
        outcome: outcomeOf(error),
        errorCode: (error as { code?: unknown }).code ?? (error as Error).name,
        error: (error as Error).message,
      }),
    };
    // A call that went through is told by the payment's own transition line: its timing is debug.
    if (error === undefined) log.debug(`payment provider ${spec.operation}`, fields);
    else log.warn(`payment provider ${spec.operation} failed`, fields);
  }
}

/** An access token and when to stop using it. */
export interface IssuedToken {
  token: string;
  /** Seconds of validity the provider announced (`expires_in`, a number or a numeric string). */
  expiresInS: number;
}

/** Parse `expires_in` as Daraja and MoMo send it: a number, or the same as a string (`"3599"`). */
export function expiresIn(value: unknown, fallbackS = 3600): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(n) && n > 0 ? n : fallbackS;
}

/**
 * One access token shared by every call of an adapter, fetched when missing or within a minute of
 * its expiry; concurrent callers wait on the same fetch. A token the provider refused is dropped
 * (only if still the current one, so a late 401 does not discard a fresh token).
 */
export class TokenCache {
  private current: { token: string; expiresAt: number } | null = null;
  private inFlight: Promise<string> | null = null;

  constructor(
    private readonly fetch: (ctx: PaymentCallContext) => Promise<IssuedToken>,
    private readonly now: () => number = Date.now,
    private readonly marginMs = 60_000,
  ) {}

  async get(ctx: PaymentCallContext): Promise<string> {
    if (this.current && this.now() < this.current.expiresAt - this.marginMs) return this.current.token;
    this.inFlight ??= this.fetch(ctx)
      .then(({ token, expiresInS }) => {
        this.current = { token, expiresAt: this.now() + expiresInS * 1000 };
        return token;
      })
      .finally(() => {
        this.inFlight = null;
      });
    return this.inFlight;
  }

  invalidate(token: string): void {
    if (this.current?.token === token) this.current = null;
  }
}
