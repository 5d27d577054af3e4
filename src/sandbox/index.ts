/**
 * The embedded purchase-service sandbox: a faithful imitation of the Value-Added Purchase
 * Service over real HTTP, for `npm start`, demos and every integration test.
 */
import { createSandboxApp } from './app';
import { serveSandbox, type RunningSandbox, type ServeOptions } from './kit/serve';

export { SANDBOX_ACCOUNTS, SANDBOX_CREDENTIALS, SANDBOX_READONLY_USER } from './fixtures';
export { SCENARIOS, TEST_AIRTIME_NUMBER, TEST_METERS, TEST_WATER_ACCOUNTS } from './scenarios';

export type { RunningSandbox } from './kit/serve';

export interface SandboxOptions extends ServeOptions {
  /** Seconds an access token lives (default 3600). */
  accessIn?: number;
  /** Staging meter lock, section 8.2 (default true). */
  meterLock?: boolean;
  /** Scenario 6 delay in milliseconds (default 95000). */
  delayMs?: number;
  /** Requests per window, per access token (per IP for login/refresh); null = unlimited (default). */
  rateLimit?: { limit: number; windowMs: number } | null;
}

/** Starts the sandbox on real HTTP; `close()` also cancels delayed answers and open sockets. */
export function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  return serveSandbox('sandbox', opts, (logger) =>
    createSandboxApp(
      {
        accessIn: opts.accessIn ?? 3600,
        meterLock: opts.meterLock ?? true,
        delayMs: opts.delayMs ?? 95_000,
        rateLimit: opts.rateLimit ?? null,
      },
      logger,
    ),
  );
}
