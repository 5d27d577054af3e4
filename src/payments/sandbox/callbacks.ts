/**
 * Delivers callbacks over real HTTP, once each (no retries: Daraja documents none and MTN's
 * pages disagree), honouring the `callback` fault, and keeps a log of every delivery so tests
 * and operators can see what was sent, dropped or refused.
 */
import http from 'node:http';
import https from 'node:https';
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
/** Deliveries kept for `GET /sandbox/callbacks`, newest last: a long run must not grow without end. */
const KEPT_DELIVERIES = 10_000;

/**
 * One request on a kept-alive connection, answering the receiver's status. `node:http` rather
 * than `fetch`: the sandbox is a party of the bench, and fetch's streams cost it about a quarter
 * of its CPU per payment.
 */
const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
function post(url: string, method: 'POST' | 'PUT', body: string, again = true): Promise<number> {
  const secure = url.startsWith('https:');
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(
      url,
      {
        method,
        agent: secure ? agents.https : agents.http,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        timeout: TIMEOUT_MS,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('callback timed out')));
    // A kept-alive connection the receiver closed just as it was reused: a transport failure
    // before any answer, sent once more on a fresh connection (as fetch does), not a retry of a
    // delivery the receiver answered.
    req.on('error', (error: NodeJS.ErrnoException) =>
      again && req.reusedSocket && error.code === 'ECONNRESET'
        ? post(url, method, body, false).then(resolve, reject)
        : reject(error),
    );
    req.end(body);
  });
}

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
      if (this.log.length > KEPT_DELIVERIES) this.log.splice(0, this.log.length - KEPT_DELIVERIES);
      this.logger.info('payment sandbox callback', { kind: d.kind, status, outcome });
    };
    if (fault?.fault === 'drop') return record(null, 'dropped');
    if (fault?.fault === 'slow') await this.timers.sleep(fault.delayMs);
    if (this.timers.isClosed) return;
    try {
      record(await post(d.url, d.method, JSON.stringify(d.body)), 'delivered');
    } catch {
      record(null, 'unreachable');
    }
  }
}
