import { main } from '../../src/cli/main';
import { RedisSpendStore } from '../../src/spend';
import { testRedis, type TestRedis } from '../support/redis';

/** `npm run cli -- blocklist …` against a real Redis, in-process with captured output. */

let r: TestRedis;
beforeAll(() => {
  r = testRedis('blocklist-cli');
});
afterAll(() => r.cleanup());

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['blocklist', ...argv], {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    env: { NODE_ENV: 'test', REDIS_URL: r.url, REDIS_PREFIX: r.prefix, ...env },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

it('adds, lists and removes numbers and identifiers, normalised as the gateway checks them', async () => {
  expect(await run(['add', '--msisdn', '+267 71 234 567'])).toMatchObject({
    code: 0,
    out: 'msisdn 26771234567 blocked',
  });
  expect(await run(['add', '--msisdn', '71234567'])).toMatchObject({
    code: 0,
    out: 'msisdn 26771234567 was already blocked',
  });
  expect(await run(['add', '--identifier', '0412 345 6789'])).toMatchObject({
    code: 0,
    out: 'identifier 04123456789 blocked',
  });
  const store = new RedisSpendStore(r.redis, r.prefix);
  expect(await store.isBlocked('msisdn', '26771234567')).toBe(true);
  expect((await run(['list', '--json'])).out).toBe(
    JSON.stringify({ msisdn: ['26771234567'], identifier: ['04123456789'] }, null, 2),
  );
  expect(await run(['remove', '--msisdn', '26771234567'])).toMatchObject({
    code: 0,
    out: 'msisdn 26771234567 unblocked',
  });
  expect(await store.isBlocked('msisdn', '26771234567')).toBe(false);
});

it('refuses bad input with a usage error and changes nothing', async () => {
  expect((await run(['add'])).code).toBe(2);
  expect((await run(['add', '--msisdn', 'not-a-number'])).err).toMatch(/not a phone number/);
  expect((await run(['drop', '--msisdn', '26771234567'])).code).toBe(2);
  expect((await run(['list'], { REDIS_URL: '' })).err).toMatch(/REDIS_URL/);
  expect(await new RedisSpendStore(r.redis, r.prefix).blocked('msisdn')).toEqual([]);
});
