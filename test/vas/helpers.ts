import http from 'node:http';
import { Writable } from 'node:stream';
import winston from 'winston';
import { logger } from '../../src/observability/logger';
import type { AddressInfo } from 'node:net';
import axios from 'axios';
import { createPurchaseService, type PurchaseServiceOptions } from '../../src/vas';
import type { PurchaseRequest, PurchaseService } from '../../src/vas/port';
import { SANDBOX_ACCOUNTS, SANDBOX_CREDENTIALS } from '../../src/sandbox';

/** Test helpers: a service pointed at a URL, fault arming, and a counting HTTP proxy. */

export function serviceFor(
  baseUrl: string,
  overrides: { interface?: 'v1' | 'legacy'; timeoutMs?: number; confirmTimeoutMs?: number } = {},
  options: PurchaseServiceOptions = {},
): PurchaseService {
  return createPurchaseService(
    {
      baseUrl,
      interface: overrides.interface ?? 'v1',
      ...SANDBOX_CREDENTIALS,
      timeoutMs: overrides.timeoutMs ?? 3000,
      confirmTimeoutMs: overrides.confirmTimeoutMs ?? 5000,
    },
    options,
  );
}

let seq = 0;
export const ctx = (label = 'test') => ({ requestId: `${label}-${process.pid}-${(seq += 1)}` });
export const ref = (label = 'ref') => `${label}-${Date.now()}-${(seq += 1)}`;

export function purchase(overrides: Partial<PurchaseRequest> = {}): PurchaseRequest {
  return {
    sourceChannel: 'USSD',
    language: 'en-BW',
    productType: 'ELECTRICITY',
    providerCode: 'BPC',
    debitedAccountId: SANDBOX_ACCOUNTS.current,
    beneficiaryPhoneNumber: '26771234567',
    subscriberIdentifier: '01234567890',
    amount: { currency: 'BWP', minor: 10_000 },
    ...overrides,
  };
}

export async function armFault(
  sandboxUrl: string,
  fault: { endpoint: string; fault: string; count?: number; delayMs?: number; completes?: boolean },
): Promise<void> {
  await axios.post(`${sandboxUrl}/sandbox/faults`, fault);
}

export async function ledger(sandboxUrl: string): Promise<Array<Record<string, unknown>>> {
  return (await axios.get(`${sandboxUrl}/sandbox/transactions`)).data as Array<Record<string, unknown>>;
}

export interface CountingProxy {
  url: string;
  count(path: string): number;
  close(): Promise<void>;
}

/** Forwards every request to `target` and counts requests per path (logins, refreshes, confirms). */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const counts = new Map<string, number>();
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    count: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Collect the JSON log lines written (at level info and above) until `stop()`. */
export function captureLogs(): { lines: string[]; stop(): void } {
  const lines: string[] = [];
  const sink = new winston.transports.Stream({
    stream: new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  });
  const level = logger.level;
  logger.level = 'info';
  logger.add(sink);
  return {
    lines,
    stop() {
      logger.remove(sink);
      logger.level = level;
    },
  };
}
