import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the SMS provider behaves right now. */
export type SinkMode =
  | { kind: 'ok' }
  | { kind: 'status'; status: number; retryAfterS?: number }
  /** Never answers (the request is held until `recover()` or `close()`). */
  | { kind: 'hang' };

/** One request the provider saw. */
export interface SinkHit {
  id: string;
  to: string;
  message: string;
  at: number;
  /** Answered 2xx: the provider took it (a second accepted copy of one id is a duplicate). */
  accepted: boolean;
}

/**
 * The SMS provider behind `SMS_DRIVER=http`, over real HTTP: accepts `POST {id,to,from,message}`
 * and answers `{messageId}`, or fails as told (5xx, 429 with Retry-After, hanging).
 */
export class SmsSink {
  url = '';
  mode: SinkMode = { kind: 'ok' };
  readonly hits: SinkHit[] = [];
  /** When the provider last failed a request (0: never): the fault's end for the recovery time. */
  lastFailureAt = 0;
  /** Called right after a copy was accepted and answered (the window is measured from there). */
  onAccepted: ((hit: SinkHit) => void) | undefined;
  /**
   * Awaited after a copy is accepted and before the answer is sent: the crash test kills the
   * worker there, so it dies with the SMS accepted and `sent` never written.
   */
  beforeAnswer: ((hit: SinkHit) => Promise<void>) | undefined;
  private readonly hanging: http.ServerResponse[] = [];
  private readonly server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => this.answer(JSON.parse(body) as { id: string; to: string; message: string }, res));
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/sms`;
  }

  /** Healthy again; requests held by a hang are cut (the driver sees a reset and retries). */
  recover(): void {
    this.mode = { kind: 'ok' };
    for (const res of this.hanging.splice(0)) res.destroy();
  }

  /** Accepted copies to `to`. */
  acceptedTo(to: string): SinkHit[] {
    return this.hits.filter((hit) => hit.accepted && hit.to === to);
  }

  async close(): Promise<void> {
    for (const res of this.hanging.splice(0)) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(sms: { id: string; to: string; message: string }, res: http.ServerResponse): void {
    const hit: SinkHit = { id: sms.id, to: sms.to, message: sms.message, at: Date.now(), accepted: false };
    this.hits.push(hit);
    const mode = this.mode;
    if (mode.kind === 'hang') {
      this.lastFailureAt = Date.now();
      this.hanging.push(res);
      return;
    }
    if (mode.kind === 'status') {
      this.lastFailureAt = Date.now();
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (mode.retryAfterS !== undefined) headers['retry-after'] = String(mode.retryAfterS);
      res.writeHead(mode.status, headers).end('{"error":"provider fault"}');
      return;
    }
    hit.accepted = true;
    const messageId = `sink-${this.hits.length}`;
    void (this.beforeAnswer?.(hit) ?? Promise.resolve()).then(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ messageId }), () => this.onAccepted?.(hit));
    });
  }
}
