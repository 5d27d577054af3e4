import { Writable } from 'node:stream';
import winston from 'winston';
import { logger } from '../../src/observability/logger';
import { startTestGateway } from './harness';

/** TRUST_PROXY set: a request that reached the port directly (no X-Forwarded-For) is reported once. */
it('warns once when TRUST_PROXY is set and the port is reached without the load balancer', async () => {
  const lines: string[] = [];
  const capture = new winston.transports.Stream({
    level: 'warn',
    stream: new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  });
  const level = logger.level;
  logger.level = 'warn';
  logger.add(capture);
  const gateway = await startTestGateway({ TRUST_PROXY: 'loopback' });
  try {
    await fetch(`${gateway.url}/healthz`, { headers: { 'x-forwarded-for': '196.201.214.9' } });
    expect(lines.filter((l) => l.includes('without X-Forwarded-For'))).toHaveLength(0);
    await fetch(`${gateway.url}/healthz`);
    await fetch(`${gateway.url}/healthz`);
    expect(lines.filter((l) => l.includes('without X-Forwarded-For'))).toHaveLength(1);
  } finally {
    await gateway.close();
    logger.remove(capture);
    logger.level = level;
  }
});
