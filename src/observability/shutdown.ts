import type winston from 'winston';

export interface GracefulStopOptions {
  /** What is stopping, for the log lines (`gateway`, `purchase worker`). */
  name: string;
  /** Closes everything; resolves when the process may exit. */
  close: () => Promise<void>;
  /**
   * Longest wait for `close`: a dependency that never answers (Redis down) must not keep the
   * process from stopping. Let a running confirm finish: at least the confirm timeout.
   */
  deadlineMs: number;
  log: winston.Logger;
  /** `process.exit` outside tests. */
  exit: (code: number) => void;
}

/**
 * The handler of SIGTERM/SIGINT: close once, exit 0 when closed, exit 1 when the close fails or
 * outlasts the deadline. A second signal while stopping exits 1 at once (a second Ctrl-C).
 */
export function gracefulStop(options: GracefulStopOptions): (signal: string) => void {
  const { name, close, deadlineMs, log, exit } = options;
  let stopping = false;
  return (signal) => {
    if (stopping) {
      log.error(`${name}: ${signal} while stopping; exiting without waiting`, { signal });
      exit(1);
      return;
    }
    stopping = true;
    log.info(`${name} stopping`, { signal, deadlineMs });
    const deadline = setTimeout(() => {
      log.error(`${name} did not stop within ${deadlineMs} ms; exiting anyway`, { signal });
      exit(1);
    }, deadlineMs);
    close().then(
      () => {
        clearTimeout(deadline);
        exit(0);
      },
      (error: unknown) => {
        clearTimeout(deadline);
        log.error(`${name} did not stop cleanly`, { error });
        exit(1);
      },
    );
  };
}
