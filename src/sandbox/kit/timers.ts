/**
 * A sandbox's timers. Every delayed answer goes through one `Timers` so `close()` can cancel
 * them all and let jest exit.
 */
export class Timers {
  private readonly pending = new Set<NodeJS.Timeout>();
  private closed = false;

  /** Runs `fn` after `ms` unless `cancelAll` ran first. */
  after(ms: number, fn: () => void): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      fn();
    }, ms);
    this.pending.add(timer);
  }

  /** Resolves after `ms`; never resolves once `cancelAll` ran (the handler is abandoned). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.after(ms, resolve));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  cancelAll(): void {
    this.closed = true;
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }
}
