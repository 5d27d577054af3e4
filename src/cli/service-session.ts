/**
 * The purchase service the check/validate/confirm/retry commands call: PURCHASE_API_BASE_URL, else
 * the sandbox of a running `npm start` / `npm run sandbox`, else one started in this process for
 * the one command (said on stderr); and how a failure of it is told to the operator.
 */
import { loadConfig, type Config } from '../config';
import { setLogLevel } from '../observability/logger';
import {
  AuthenticationError,
  MalformedResponseError,
  PermissionError,
  PurchaseServiceError,
  TransportError,
  createPurchaseService,
  outcomeOf,
  type PurchaseService,
} from '../vas';
import type { CliIo } from './kit';

export interface Session {
  config: Config;
  baseUrl: string;
  service: PurchaseService;
  embedded: boolean;
  close(): Promise<void>;
}

export async function openSession(io: CliIo): Promise<Session> {
  const config = loadConfig(io.env);
  setLogLevel(config.logLevel ?? 'error'); // quiet unless asked: stdout is the command's output
  if (!config.embeddedSandbox) {
    const baseUrl = config.purchaseApi.baseUrl as string;
    return {
      config,
      baseUrl,
      embedded: false,
      service: createPurchaseService({ ...config.purchaseApi, baseUrl }),
      close: async () => undefined,
    };
  }
  const running = await runningSandbox(config);
  if (running) {
    io.stderr(`no PURCHASE_API_BASE_URL: using the sandbox running at ${running} (test data, no real money)`);
    return {
      config,
      baseUrl: running,
      embedded: true,
      service: createPurchaseService({ ...config.purchaseApi, baseUrl: running }),
      close: async () => undefined,
    };
  }
  const { startSandbox } = await import('../sandbox');
  const sandbox = await startSandbox({ ...config.sandbox, port: 0, silent: true });
  io.stderr(
    `no PURCHASE_API_BASE_URL: using an in-process sandbox at ${sandbox.url} (test data, no real money; ` +
      'it stops with this command: run npm start or npm run sandbox to keep purchases for a later retry)',
  );
  return {
    config,
    baseUrl: sandbox.url,
    embedded: true,
    service: createPurchaseService({ ...config.purchaseApi, baseUrl: sandbox.url }),
    close: () => sandbox.close(),
  };
}

/**
 * The sandbox of a running `npm start` or `npm run sandbox` (at SANDBOX_HOST:SANDBOX_PORT), so
 * that one command's purchase is there for the next (`confirm`, then `retry`); null when none
 * answers like one. SANDBOX_PORT=0 never looks.
 */
async function runningSandbox(config: Config): Promise<string | null> {
  const settings = config.sandbox;
  if (!settings || settings.port === 0) return null;
  const host = settings.host === '0.0.0.0' ? '127.0.0.1' : settings.host;
  const url = `http://${host}:${settings.port}`;
  try {
    const res = await fetch(`${url}/sandbox/scenarios`, { signal: AbortSignal.timeout(1000) });
    return res.ok && Array.isArray(await res.json()) ? url : null;
  } catch {
    return null;
  }
}

export function errorJson(error: unknown): Record<string, unknown> {
  if (error instanceof PurchaseServiceError) {
    const { type, code, message, param, retryable, requestId, status } = error;
    return {
      name: error.name,
      type,
      code,
      message,
      param,
      retryable,
      requestId,
      status,
      outcome: error.outcome,
    };
  }
  if (error instanceof Error) return { name: error.name, message: error.message, outcome: outcomeOf(error) };
  return { message: String(error) };
}

/** One clear line for any failure. */
export function explain(error: unknown, baseUrl: string | undefined): string {
  const where = baseUrl ?? 'the purchase service';
  if (error instanceof AuthenticationError) {
    return `login refused at ${where}: bad credentials (${error.message}); staging and production credentials are separate, check PURCHASE_API_* and the base URL`;
  }
  if (error instanceof TransportError) {
    return error.outcome === 'not_sent'
      ? `cannot reach ${where}: ${error.message}`
      : `no usable answer from ${where}: ${error.message}`;
  }
  if (
    error instanceof MalformedResponseError ||
    (error instanceof PurchaseServiceError && error.code.startsWith('http_'))
  ) {
    const status = (error as { status: number }).status;
    return `${where} does not answer like the purchase service (HTTP ${status}: ${error.message}): wrong PURCHASE_API_BASE_URL or environment?`;
  }
  if (error instanceof PermissionError) return `permission refused (${error.code}): ${error.message}`;
  if (error instanceof PurchaseServiceError) {
    return `${error.code}${error.param ? ` (${error.param})` : ''}: ${error.message} [request id ${error.requestId ?? '-'}]`;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}
