/**
 * Delivers callbacks over real HTTP, once each (no retries: Daraja documents none and MTN's
 * pages disagree), honouring the `callback` fault, and keeps a log of every delivery so tests
 * and operators can see what was sent, dropped or refused.
 */
import type { Logger } from 'winston';
import type { Faults, Timers } from './faults';

export interface Delivery {
  kind: 'payment' | 'refund';
  /** The payment or refund the callback is about. */
  id: string;
  url: string;
  method: 'POST' | 'PUT';
  /** HTTP status of the receiver, or null when it was dropped by a fault or could not be reached. */
  status: number | null;
  outcome: 'delivered' | 'dropped' | 'unreachable';
  at: string;
  body: unknown;
}

const TIMEOUT_MS = 5_000;

export class Callbacks {
  private readonly log: Delivery[] = [];

  constructor(
    private readonly faults: Faults,
    private readonly timers: Timers,
    private readonly logger: Logger,
  ) {}

  /** Sends one callback (fire and forget: the caller never waits on the receiver). */
  send(
    kind: Delivery['kind'],
    id: string,
    url: string,
    method: 'POST' | 'PUT',
    body: unknown,
  ): Promise<void> {
    return this.deliver({ kind, id, url, method, body }).catch((err: unknown) => {
      this.logger.error('payment sandbox callback failed', { error: String(err) });
    });
  }

  deliveries(): readonly Delivery[] {
    return this.log;
  }

  private async deliver(d: Pick<Delivery, 'kind' | 'id' | 'url' | 'method' | 'body'>): Promise<void> {
    const fault = this.faults.take('callback');
    const record = (status: number | null, outcome: Delivery['outcome']): void => {
      this.log.push({ ...d, status, outcome, at: new Date().toISOString() });
      this.logger.info('payment sandbox callback', { kind: d.kind, status, outcome });
    };
    if (fault?.fault === 'drop') return record(null, 'dropped');
    if (fault?.fault === 'slow') await this.timers.sleep(fault.delayMs);
    if (this.timers.isClosed) return;
    try {
      const res = await fetch(d.url, {
        method: d.method,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(d.body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await res.arrayBuffer();
      record(res.status, 'delivered');
    } catch {
      record(null, 'unreachable');
    }
  }
}
