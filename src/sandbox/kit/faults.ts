/**
 * The armed-fault book both sandboxes share (`POST /sandbox/faults`): a fault is armed on a
 * target (an endpoint or an operation) for a number of occurrences, and each request takes one.
 */

export interface Fault<Kind extends string> {
  fault: Kind;
  remaining: number;
  delayMs: number;
  /** Whether the request is still carried out behind the fault. */
  completes: boolean;
}

export class Faults<Target extends string, Kind extends string> {
  private readonly armed = new Map<Target, Fault<Kind>>();

  arm(target: Target, fault: Fault<Kind>): void {
    this.armed.set(target, fault);
  }

  clear(): void {
    this.armed.clear();
  }

  list(): Record<string, Fault<Kind>> {
    return Object.fromEntries(this.armed);
  }

  /** Consumes one occurrence of the fault armed on `target`, if any. */
  take(target: Target): Fault<Kind> | null {
    const fault = this.armed.get(target);
    if (!fault) return null;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.armed.delete(target);
    return fault;
  }
}
