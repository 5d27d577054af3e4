import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { checkRedisReachable, PreflightError, redisUrlForDisplay } from '../../src/redis/preflight';
import { TEST_REDIS_URL } from '../support/redis';

const REDIS_URL = TEST_REDIS_URL;

describe('checkRedisReachable (start-up check of REDIS_URL)', () => {
  it('passes against the real Redis', async () => {
    await expect(checkRedisReachable(REDIS_URL)).resolves.toBeUndefined();
  });

  it('refuses a closed port with one line naming REDIS_URL, without its password', async () => {
    const error = await checkRedisReachable('redis://:s3cret-pw@127.0.0.1:1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreflightError);
    const message = (error as Error).message;
    expect(message).toMatch(/^cannot reach Redis at redis:\/\/127\.0\.0\.1:1 \(REDIS_URL\): /);
    expect(message).not.toContain('s3cret-pw');
    expect(message).not.toContain('\n');
  });

  describe('a server that accepts connections and never answers', () => {
    let server: Server;
    const sockets = new Set<Socket>();
    beforeAll(async () => {
      server = createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('gives up after the timeout instead of hanging', async () => {
      const { port } = server.address() as AddressInfo;
      const error = await checkRedisReachable(`redis://127.0.0.1:${port}`, 300).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PreflightError);
      expect((error as Error).message).toContain(`redis://127.0.0.1:${port}`);
    });
  });

  test.each([
    ['redis://user:pw@host:6379/2', 'redis://host:6379/2'],
    ['rediss://:pw@host', 'rediss://host'],
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
    ['not a url', '(unparseable REDIS_URL)'],
  ])('shows %s as %s', (url, shown) => {
    expect(redisUrlForDisplay(url)).toBe(shown);
  });
});
