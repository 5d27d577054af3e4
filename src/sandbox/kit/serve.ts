/**
 * Starting a sandbox on real HTTP, shared by the purchase and the payment sandbox: its JSON
 * request logger, the listen, and a `close()` that also cancels its timers and open sockets.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import winston from 'winston';
import { levelGate, type LogLevel } from '../../observability/logger';
import type { Timers } from './timers';

export interface ServeOptions {
  /** 0 = ephemeral (default). */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** No request logging. */
  silent?: boolean;
  /** winston level of its log lines (default `info`: a line per request). */
  logLevel?: LogLevel;
}

export interface RunningSandbox {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Builds the app with a logger tagged `service`, listens, and returns its URL and `close()`. */
export async function serveSandbox(
  service: string,
  opts: ServeOptions,
  build: (logger: winston.Logger) => { app: Express; timers: Timers },
): Promise<RunningSandbox> {
  const host = opts.host ?? '127.0.0.1';
  const logger: winston.Logger = winston.createLogger({
    level: opts.logLevel ?? 'info',
    silent: opts.silent ?? false,
    format: winston.format.combine(
      levelGate(() => logger),
      winston.format.timestamp(),
      winston.format.json(),
    ),
    defaultMeta: { service },
    transports: [new winston.transports.Console()],
  });
  const { app, timers } = build(logger);
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
