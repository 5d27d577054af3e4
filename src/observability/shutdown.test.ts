import { Writable } from 'node:stream';
import winston from 'winston';
import { gracefulStop } from './shutdown';

function setup(close: () => Promise<void>, deadlineMs = 10_000) {
  const lines: Record<string, unknown>[] = [];
  const log = winston.createLogger({
    level: 'info',
    format: winston.format.json(),
    transports: [
      new winston.transports.Stream({
        stream: new Writable({
          write(chunk: Buffer, _encoding, done) {
            lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
            done();
          },
        }),
      }),
    ],
  });
  const codes: number[] = [];
  let exited: (code: number) => void = () => undefined;
  const firstExit = new Promise<number>((resolve) => (exited = resolve));
  const stop = gracefulStop({
    name: 'gateway',
    close,
    deadlineMs,
    log,
    exit: (code) => {
      codes.push(code);
      exited(code);
    },
  });
  return { stop, codes, firstExit, lines };
}

describe('gracefulStop (SIGTERM/SIGINT of the gateway and the worker)', () => {
  it('exits 0 once everything is closed; closes once', async () => {
    let closes = 0;
    const { stop, firstExit, codes } = setup(async () => {
      closes += 1;
    });
    stop('SIGTERM');
    expect(await firstExit).toBe(0);
    expect(codes).toEqual([0]);
    expect(closes).toBe(1);
  });

  it('exits 1 with a logged error when closing fails (never an unhandled rejection)', async () => {
    const { stop, firstExit, lines } = setup(() => Promise.reject(new Error('redis gone')));
    stop('SIGTERM');
    expect(await firstExit).toBe(1);
    expect(lines.at(-1)).toMatchObject({ level: 'error', message: 'gateway did not stop cleanly' });
  });

  it('exits 1 when closing outlasts the deadline (a Redis that never answers)', async () => {
    const { stop, firstExit, lines } = setup(() => new Promise<void>(() => undefined), 20);
    stop('SIGTERM');
    expect(await firstExit).toBe(1);
    expect(lines.at(-1)).toMatchObject({
      level: 'error',
      message: 'gateway did not stop within 20 ms; exiting anyway',
    });
  });

  it('a second signal while stopping exits 1 at once', async () => {
    let finish: () => void = () => undefined;
    const { stop, codes } = setup(() => new Promise<void>((resolve) => (finish = resolve)));
    stop('SIGINT');
    expect(codes).toEqual([]);
    stop('SIGINT');
    expect(codes).toEqual([1]);
    finish();
  });
});
