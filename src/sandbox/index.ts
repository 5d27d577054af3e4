/**
 * The embedded purchase-service sandbox: a faithful imitation of the Value-Added Purchase
 * Service over real HTTP, for `npm start`, demos and every integration test.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import winston from 'winston';
import { createSandboxApp } from './app';

export { SANDBOX_ACCOUNTS, SANDBOX_CREDENTIALS, SANDBOX_READONLY_USER } from './fixtures';
export { SCENARIOS, TEST_AIRTIME_NUMBER, TEST_METERS, TEST_WATER_ACCOUNTS } from './scenarios';

export interface SandboxOptions {
  /** 0 = ephemeral (default). */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Seconds an access token lives (default 3600). */
  accessIn?: number;
  /** Staging meter lock, section 8.2 (default true). */
  meterLock?: boolean;
  /** Scenario 6 delay in milliseconds (default 95000). */
  delayMs?: number;
  /** Requests per window, per access token (per IP for login/refresh); null = unlimited (default). */
  rateLimit?: { limit: number; windowMs: number } | null;
  /** No request logging. */
  silent?: boolean;
}

export interface RunningSandbox {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the sandbox on real HTTP; `close()` also cancels delayed answers and open sockets. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = opts.host ?? '127.0.0.1';
  const logger = winston.createLogger({
    level: 'info',
    silent: opts.silent ?? false,
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    defaultMeta: { service: 'sandbox' },
    transports: [new winston.transports.Console()],
  });
  const { app, timers } = createSandboxApp(
    {
      accessIn: opts.accessIn ?? 3600,
      meterLock: opts.meterLock ?? true,
      delayMs: opts.delayMs ?? 95_000,
      rateLimit: opts.rateLimit ?? null,
    },
    logger,
  );
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(opts.port ?? 0, host, (err?: Error) => (err ? reject(err) : resolve(s)));
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${port}`,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        timers.cancelAll();
        server.close(() => resolve());
        server.closeAllConnections();
        logger.close();
      });
      return closing;
    },
  };
}
