import { componentLogger, maskNumbersInText, premasked } from '../observability/logger';
import { TokenManager, type Credentials } from './auth';
import { mapErrorResponse, isLegacyErrorBody } from './error-mapper';
import {
  AuthenticationError,
  MalformedResponseError,
  PurchaseServiceError,
  RateLimitError,
  TokenUnavailableError,
  TransportError,
  outcomeOf,
} from './errors';
import { HttpTransport, outgoingRequestId, type HttpRequest } from './http';
import type { CallContext } from './port';

/**
 * The policy around one purchase-service call, shared by both adapters: bearer token, the
 * single re-attempt after `invalid_credentials`, the bounded 429 wait for reads and validate,
 * error mapping and one JSON log line per HTTP attempt.
 *
 * Retry policy, deliberately narrow:
 * - `read` calls (catalogue, accounts, validate) wait out a 429's `Retry-After` when it is
 *   within `maxWaitMs`, up to `maxRetries` times;
 * - `write` calls (confirm, retry) are never re-sent by the client, except once after a 401:
 *   the server refused before doing anything, so nothing can be bought twice.
 */

const log = componentLogger('vas');

export type CallKind = 'read' | 'write';

export interface RateLimitPolicy {
  /** Re-attempts after a 429 on reads and validate. */
  maxRetries: number;
  /** Longest `Retry-After` the client waits; a longer one is thrown to the caller at once. */
  maxWaitMs: number;
  /** Wait when the 429 carries no usable `Retry-After`. */
  defaultWaitMs: number;
}

export interface CallerOptions {
  timeoutMs: number;
  confirmTimeoutMs: number;
  connectTimeoutMs?: number;
  rateLimit?: Partial<RateLimitPolicy>;
  /** Injected for tests; a real timer otherwise. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** One call: the request as the transport sends it, less what the caller adds (token, budget, id). */
export interface CallSpec extends Pick<HttpRequest, 'operation' | 'method' | 'path' | 'body'> {
  kind: CallKind;
}

export interface SuccessAnswer {
  status: number;
  body: unknown;
  /** The `X-Request-Id` the service answered with. */
  requestId: string | null;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class ServiceCaller {
  readonly tokens: TokenManager;
  private readonly transport: HttpTransport;
  private readonly rateLimit: RateLimitPolicy;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    baseUrl: string,
    credentials: Credentials,
    private readonly options: CallerOptions,
  ) {
    this.transport = new HttpTransport(baseUrl, { connectTimeoutMs: options.connectTimeoutMs });
    this.rateLimit = { maxRetries: 2, maxWaitMs: 5000, defaultWaitMs: 1000, ...options.rateLimit };
    this.sleep = options.sleep ?? defaultSleep;
    this.tokens = new TokenManager(
      credentials,
      async (operation, path, body, requestId) =>
        (
          await this.attempt({
            operation,
            method: 'POST',
            path,
            body,
            requestId,
            timeoutMs: options.timeoutMs,
          })
        ).body,
      { now: options.now },
    );
  }

  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  /** An authenticated call under the policy above; resolves with the success body. */
  async call(spec: CallSpec, ctx: CallContext): Promise<SuccessAnswer> {
    const requestId = outgoingRequestId(ctx.requestId);
    const timeoutMs = spec.kind === 'write' ? this.options.confirmTimeoutMs : this.options.timeoutMs;
    let bearer = await this.bearer(spec, requestId, () => this.tokens.accessToken(requestId));
    let authRetried = false;
    let rateLimitRetries = 0;
    let staleRetried = false;
    for (;;) {
      try {
        return await this.attempt({ ...spec, bearer, timeoutMs, requestId });
      } catch (error) {
        // The server closed the idle connection as the read went out on it: once more on a new
        // one (Node's agent picks a fresh socket). Never a write: a confirm may have arrived.
        if (
          error instanceof TransportError &&
          error.staleConnection &&
          spec.kind === 'read' &&
          !staleRetried
        ) {
          staleRetried = true;
          continue;
        }
        if (error instanceof AuthenticationError && error.code === 'invalid_credentials' && !authRetried) {
          authRetried = true;
          const rejected = bearer;
          bearer = await this.bearer(spec, requestId, () => this.tokens.afterRejected(rejected, requestId));
          continue;
        }
        if (
          error instanceof RateLimitError &&
          spec.kind === 'read' &&
          rateLimitRetries < this.rateLimit.maxRetries
        ) {
          const wait = error.retryAfterMs ?? this.rateLimit.defaultWaitMs;
          if (wait <= this.rateLimit.maxWaitMs) {
            rateLimitRetries += 1;
            await this.sleep(wait);
            continue;
          }
        }
        throw error;
      }
    }
  }

  /**
   * A token for this call. When a write (confirm) cannot get one, the write was never sent:
   * say so (`not_sent`), so the lifecycle sends it later instead of reconciling a purchase that
   * never reached the service.
   */
  private async bearer(spec: CallSpec, requestId: string, acquire: () => Promise<string>): Promise<string> {
    try {
      return await acquire();
    } catch (error) {
      if (spec.kind !== 'write') throw error;
      throw new TokenUnavailableError(spec.operation, error, requestId);
    }
  }

  /** One HTTP attempt: send, classify, map errors, log one line. */
  async attempt(request: HttpRequest): Promise<SuccessAnswer> {
    const started = performance.now();
    let status: number | undefined;
    let responseRequestId: string | null = null;
    try {
      const answer = await this.transport.send(request);
      status = answer.status;
      responseRequestId = answer.requestId;
      const body = answer.body;
      const envelope = typeof body === 'object' && body !== null && 'error' in body;
      if (status >= 400 || envelope || isLegacyErrorBody(body)) {
        throw mapErrorResponse(status, body, answer.headers);
      }
      if (body === undefined) {
        throw new MalformedResponseError(
          `${request.operation}: HTTP ${status} answer is not JSON`,
          answer.requestId,
          status,
        );
      }
      this.logAttempt(request, started, status, responseRequestId);
      return { status, body, requestId: answer.requestId };
    } catch (error) {
      this.logAttempt(request, started, status, responseRequestId, error);
      throw error;
    }
  }

  private logAttempt(
    request: HttpRequest,
    started: number,
    status: number | undefined,
    responseRequestId: string | null,
    error?: unknown,
  ): void {
    const fields: Record<string, unknown> = {
      operation: request.operation,
      method: request.method,
      path: request.path,
      status: status ?? null,
      durationMs: Math.round(performance.now() - started),
      requestId: request.requestId,
      responseRequestId,
    };
    if (error === undefined) {
      // One line per call of every quote: the free-text fields masked here, no masking walk.
      log.info(
        'purchase-service call',
        premasked({
          ...fields,
          path: maskNumbersInText(request.path),
          requestId: maskNumbersInText(request.requestId),
          responseRequestId: responseRequestId === null ? null : maskNumbersInText(responseRequestId),
        }),
      );
      return;
    }
    fields.outcome = outcomeOf(error);
    if (error instanceof PurchaseServiceError) {
      fields.errorCode = error.code;
      fields.errorType = error.type;
    } else if (error instanceof TransportError) {
      fields.errorCode = error.name;
      fields.errorMessage = error.message;
    } else if (error instanceof Error) {
      fields.errorCode = error.name;
      fields.errorMessage = error.message;
    }
    log.warn('purchase-service call failed', fields);
  }
}
