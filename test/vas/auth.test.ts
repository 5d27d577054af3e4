import { startSandbox, TEST_METERS, SANDBOX_CREDENTIALS, type RunningSandbox } from '../../src/sandbox';
import { AuthenticationError, createPurchaseService } from '../../src/vas';
import { ctx, ledger, purchase, ref, serviceFor, startCountingProxy, type CountingProxy } from './helpers';
import { until } from '../support/wait';

/** Login, proactive refresh, refresh after expiry, single flight, one re-attempt after 401. */

const ACCESS_IN_S = 3;
const LOGIN = '/public/v1/auth/login';
const REFRESH = '/public/v1/auth/refresh';

let sandbox: RunningSandbox;
let proxy: CountingProxy;

beforeAll(async () => {
  // Tokens of 3 s: short enough to wait out, long enough that a refreshed one outlives the calls
  // it serves on a loaded machine (1 s failed there: the retry met an expired token again).
  sandbox = await startSandbox({ port: 0, silent: true, accessIn: ACCESS_IN_S });
  proxy = await startCountingProxy(sandbox.url);
});
afterAll(async () => {
  await proxy.close();
  await sandbox.close();
});

/** A controllable client clock: the server's tokens still expire in real time. */
function clock() {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms: number) => void (offset += ms) };
}

/** The server's token, issued no later than `issuedBy` (the login's answer), has run out. */
async function tokenExpired(issuedBy: number): Promise<void> {
  const at = issuedBy + ACCESS_IN_S * 1000 + 100;
  await until('the token to expire', () => Date.now() > at, { timeoutMs: ACCESS_IN_S * 1000 + 2000 });
}

const counts = () => ({ login: proxy.count(LOGIN), refresh: proxy.count(REFRESH) });
const delta = (before: { login: number; refresh: number }) => ({
  login: proxy.count(LOGIN) - before.login,
  refresh: proxy.count(REFRESH) - before.refresh,
});

it('20 concurrent first calls share one login', async () => {
  const before = counts();
  const service = serviceFor(proxy.url);
  const results = await Promise.all(Array.from({ length: 20 }, () => service.listAccounts(ctx())));
  expect(results).toHaveLength(20);
  expect(delta(before)).toEqual({ login: 1, refresh: 0 });
});

it('refreshes before access_in runs out, once for 20 concurrent callers', async () => {
  // Tokens of 60 s here: the refreshed one must not reach 80% of its life (real time) while the
  // 20 calls run, however busy the machine (with 1 s, a loaded CI run refreshed twice).
  const longLived = await startSandbox({ port: 0, silent: true, accessIn: 60 });
  const counting = await startCountingProxy(longLived.url);
  try {
    const time = clock();
    const service = serviceFor(counting.url, {}, { now: time.now });
    await service.listAccounts(ctx());
    const before = { login: counting.count(LOGIN), refresh: counting.count(REFRESH) };
    time.advance(50_000); // past 80% of a 60 s life, before it ends
    await Promise.all(Array.from({ length: 20 }, () => service.listAccounts(ctx())));
    expect({
      login: counting.count(LOGIN) - before.login,
      refresh: counting.count(REFRESH) - before.refresh,
    }).toEqual({ login: 0, refresh: 1 });
  } finally {
    await counting.close();
    await longLived.close();
  }
});

it('a token the server refused (expired) is refreshed and the call re-attempted once', async () => {
  const loggedInAt = Date.now();
  // The client clock stands still, so it believes its token fresh while the server expires it.
  const service = serviceFor(proxy.url, {}, { now: () => loggedInAt });
  await service.listAccounts(ctx());
  await tokenExpired(Date.now());
  const before = counts();
  const accountsBefore = proxy.count('/public/v1/accounts');
  const results = await Promise.all(Array.from({ length: 5 }, () => service.listAccounts(ctx())));
  expect(results.every((a) => a.length === 4)).toBe(true);
  expect(delta(before)).toEqual({ login: 0, refresh: 1 });
  expect(proxy.count('/public/v1/accounts') - accountsBefore).toBe(10);
});

it('confirm refused with invalid_credentials is re-sent once after refresh and buys exactly once', async () => {
  const frozenAt = Date.now();
  const service = serviceFor(proxy.url, {}, { now: () => frozenAt });
  await service.listAccounts(ctx());
  await tokenExpired(Date.now());
  const externalReference = ref('auth');
  const confirmsBefore = proxy.count('/public/v1/purchases/confirm');
  const done = await service.confirm(
    purchase({ subscriberIdentifier: TEST_METERS.active, externalReference }),
    ctx(),
  );
  expect(done.status).toBe('SUCCESSFUL');
  expect(proxy.count('/public/v1/purchases/confirm') - confirmsBefore).toBe(2);
  const rows = (await ledger(sandbox.url)).filter((r) => r.external_reference === externalReference);
  expect(rows).toHaveLength(1);
});

it('bad credentials fail with AuthenticationError, after one login attempt', async () => {
  const before = counts();
  const service = createPurchaseService({
    baseUrl: proxy.url,
    interface: 'v1',
    ...SANDBOX_CREDENTIALS,
    password: 'wrong',
    timeoutMs: 2000,
    confirmTimeoutMs: 4000,
  });
  const error = await service.listProducts(ctx()).catch((e) => e);
  expect(error).toBeInstanceOf(AuthenticationError);
  expect(error.code).toBe('invalid_credentials');
  expect(delta(before).login).toBe(1);
});
