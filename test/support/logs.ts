import { Writable } from 'node:stream';
import winston from 'winston';
import { logger } from '../../src/observability/logger';

/**
 * Every JSON log line the gateway writes, at debug level, kept in `lines` (the console stays
 * quiet) until `stop()`: for tests that prove what never reaches the logs (a number, a PIN).
 */
export function captureLogs(): { lines: string[]; stop(): void } {
  const lines: string[] = [];
  const capture = new winston.transports.Stream({
    stream: new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  });
  const level = logger.level;
  logger.level = 'debug';
  for (const t of logger.transports) t.silent = true;
  logger.add(capture);
  return {
    lines,
    stop() {
      logger.remove(capture);
      for (const t of logger.transports) t.silent = false;
      logger.level = level;
    },
  };
}
