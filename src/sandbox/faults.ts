/**
 * Operator fault injection (`POST /sandbox/faults`) and the sandbox's own timers. Every timer
 * goes through `Timers` so `close()` can cancel delayed answers and let jest exit.
 */
import { SandboxError } from './errors';

export const FAULT_ENDPOINTS = [
  'login',
  'refresh',
  'vas-products',
  'accounts',
  'validate',
  'confirm',
  'retry',
] as const;
export const FAULT_KINDS = [
  'provider_timeout',
  'provider_unavailable',
  'internal_error',
  'slow',
  'drop',
] as const;

export type FaultEndpoint = (typeof FAULT_ENDPOINTS)[number];
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Fault {
  fault: FaultKind;
  remaining: number;
  delayMs: number;
  /** Confirm only: whether the purchase is performed (and debited) despite the fault. */
  completes: boolean;
}

/** Default of `completes`: the ambiguous faults complete, the clean refusals do not. */
export function defaultCompletes(kind: FaultKind): boolean {
  return kind === 'provider_timeout' || kind === 'slow' || kind === 'drop';
}

export class Faults {
  private readonly armed = new Map<FaultEndpoint, Fault>();

  arm(endpoint: FaultEndpoint, fault: Fault): void {
    this.armed.set(endpoint, fault);
  }

  clear(): void {
    this.armed.clear();
  }

  list(): Record<string, Fault> {
    return Object.fromEntries(this.armed);
  }

  /** Consumes one occurrence of the fault armed on `endpoint`, if any. */
  take(endpoint: FaultEndpoint): Fault | null {
    const fault = this.armed.get(endpoint);
    if (!fault) return null;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.armed.delete(endpoint);
    return fault;
  }
}

/** The error a fault answers with (`slow` and `drop` have none). */
export function faultError(kind: FaultKind): SandboxError {
  switch (kind) {
    case 'provider_timeout':
      return new SandboxError(
        'provider_timeout',
        'The provider did not respond in time; the transaction state is unknown: use retry, do not re-confirm',
      );
    case 'provider_unavailable':
      return new SandboxError('provider_unavailable', 'The provider is unreachable');
    default:
      return new SandboxError('internal_error', 'Unexpected server error (sandbox fault)');
  }
}

export class Timers {
  private readonly pending = new Set<NodeJS.Timeout>();
  private closed = false;

  /** Resolves after `ms`; never resolves once `cancelAll` ran (the handler is abandoned). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) return;
      const timer = setTimeout(() => {
        this.pending.delete(timer);
        resolve();
      }, ms);
      this.pending.add(timer);
    });
  }

  cancelAll(): void {
    this.closed = true;
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }
}
