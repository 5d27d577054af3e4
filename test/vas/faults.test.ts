import { startSandbox, TEST_METERS, type RunningSandbox } from '../../src/sandbox';
import {
  InternalServerError,
  ProviderTimeoutError,
  ProviderUnavailableError,
  RateLimitError,
  TokenUnavailableError,
  TransportError,
  outcomeOf,
} from '../../src/vas';
import {
  armFault,
  ctx,
  ledger,
  purchase,
  ref,
  serviceFor,
  startCountingProxy,
  type CountingProxy,
} from './helpers';

/** Sandbox fault injection: each network-failure class, and confirm is sent exactly once. */

let sandbox: RunningSandbox;
let proxy: CountingProxy;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true, delayMs: 60_000 });
  proxy = await startCountingProxy(sandbox.url);
});
afterAll(async () => {
  await proxy.close();
  await sandbox.close();
});

const CONFIRM = '/public/v1/purchases/confirm';
const retryOf = (externalReference: string) => ({
  sourceChannel: 'USSD' as const,
  language: 'en-BW',
  productType: 'ELECTRICITY' as const,
  subscriberIdentifier: TEST_METERS.active,
  externalReference,
});

describe('confirm faults', () => {
  it('provider_timeout (504) is outcome unknown, not re-sent, and retry finds the completed purchase', async () => {
    const service = serviceFor(proxy.url);
    await armFault(sandbox.url, { endpoint: 'confirm', fault: 'provider_timeout' });
    const externalReference = ref('pt');
    const before = proxy.count(CONFIRM);
    const error = await service.confirm(purchase({ externalReference }), ctx()).catch((e) => e);
    expect(error).toBeInstanceOf(ProviderTimeoutError);
    expect(outcomeOf(error)).toBe('unknown');
    expect(error.retryable).toBe(true);
    expect(proxy.count(CONFIRM) - before).toBe(1);
    const found = await service.retry(retryOf(externalReference), ctx());
    expect(found.status).toBe('SUCCESSFUL');
    expect(found.tokens).toHaveLength(1);
  });

  it('provider_unavailable (502) is outcome unknown: the wallet may be debited, only retry can tell', async () => {
    await armFault(sandbox.url, { endpoint: 'confirm', fault: 'provider_unavailable' });
    const error = await serviceFor(proxy.url)
      .confirm(purchase({ externalReference: ref() }), ctx())
      .catch((e) => e);
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(outcomeOf(error)).toBe('unknown');
  });

  it('internal_error (500) is outcome unknown', async () => {
    await armFault(sandbox.url, { endpoint: 'confirm', fault: 'internal_error' });
    const error = await serviceFor(proxy.url)
      .confirm(purchase({ externalReference: ref() }), ctx())
      .catch((e) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(outcomeOf(error)).toBe('unknown');
  });

  it('a dropped connection after sending is outcome unknown, and the purchase did complete', async () => {
    await armFault(sandbox.url, { endpoint: 'confirm', fault: 'drop' });
    const externalReference = ref('drop');
    const before = proxy.count(CONFIRM);
    const error = await serviceFor(sandbox.url)
      .confirm(purchase({ externalReference }), ctx())
      .catch((e) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error.outcome).toBe('unknown');
    expect(proxy.count(CONFIRM)).toBe(before); // went direct, not via the proxy
    const rows = (await ledger(sandbox.url)).filter((r) => r.external_reference === externalReference);
    expect(rows.map((r) => r.status)).toEqual(['SUCCESSFUL']);
  });

  it('a slow answer past the confirm timeout is outcome unknown', async () => {
    await armFault(sandbox.url, { endpoint: 'confirm', fault: 'slow', delayMs: 2000 });
    const service = serviceFor(sandbox.url, { timeoutMs: 200, confirmTimeoutMs: 400 });
    const error = await service.confirm(purchase({ externalReference: ref() }), ctx()).catch((e) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error.outcome).toBe('unknown');
  });
});

describe('read faults', () => {
  it('a slow validate past the read timeout and a validate dropped on a new connection are outcome unknown', async () => {
    const service = serviceFor(sandbox.url, { timeoutMs: 300, confirmTimeoutMs: 1000 });
    await service.listAccounts(ctx()); // log in first, so the fault hits validate
    await armFault(sandbox.url, { endpoint: 'validate', fault: 'slow', delayMs: 2000 });
    await expect(service.validate(purchase(), ctx())).rejects.toMatchObject({
      outcome: 'unknown',
      name: 'OutcomeUnknownError',
    });
    // Dropped on the kept-alive connection, then on the new one: sent twice, then unknown.
    await armFault(sandbox.url, { endpoint: 'validate', fault: 'drop', count: 2 });
    await expect(service.validate(purchase(), ctx())).rejects.toMatchObject({
      outcome: 'unknown',
      staleConnection: false,
    });
  });

  it('a read whose kept-alive connection is reset (the server closed it as idle) is sent once more on a new one', async () => {
    const service = serviceFor(proxy.url);
    await service.listAccounts(ctx()); // the connection the validate will reuse
    const VALIDATE = '/public/v1/purchases/validate';
    const before = proxy.count(VALIDATE);
    await armFault(sandbox.url, { endpoint: 'validate', fault: 'drop' });
    const quote = await service.validate(purchase(), ctx());
    expect(quote.status).toBe('ON_GOING');
    expect(proxy.count(VALIDATE) - before).toBe(2);
  });

  it('a confirm whose kept-alive connection is reset is never sent again: outcome unknown', async () => {
    const service = serviceFor(proxy.url);
    await service.listAccounts(ctx());
    await armFault(sandbox.url, { endpoint: 'confirm', fault: 'drop', completes: false });
    const before = proxy.count(CONFIRM);
    const error = await service.confirm(purchase({ externalReference: ref('stale') }), ctx()).catch((e) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ outcome: 'unknown', staleConnection: true });
    expect(proxy.count(CONFIRM) - before).toBe(1);
  });

  it('a dropped login is a transport error the caller sees (no silent retry)', async () => {
    await armFault(sandbox.url, { endpoint: 'login', fault: 'drop' });
    const error = await serviceFor(sandbox.url)
      .listProducts(ctx())
      .catch((e) => e);
    expect(error).toBeInstanceOf(TransportError);
  });
});

describe('rate limit (sandbox 429 with Retry-After)', () => {
  it('reads wait out a short Retry-After and succeed', async () => {
    const limited = await startSandbox({ port: 0, silent: true, rateLimit: { limit: 2, windowMs: 1000 } });
    const counting = await startCountingProxy(limited.url);
    try {
      const service = serviceFor(counting.url);
      for (let i = 0; i < 3; i += 1) expect(await service.listAccounts(ctx())).toHaveLength(4);
      expect(counting.count('/public/v1/accounts')).toBe(4); // one 429, waited out, re-sent
    } finally {
      await counting.close();
      await limited.close();
    }
  });

  it('confirm is handed the 429 and never re-sent; a long Retry-After is not waited for', async () => {
    const limited = await startSandbox({ port: 0, silent: true, rateLimit: { limit: 1, windowMs: 60_000 } });
    const counting = await startCountingProxy(limited.url);
    try {
      const service = serviceFor(counting.url);
      await service.listAccounts(ctx());
      const error = await service.confirm(purchase({ externalReference: ref() }), ctx()).catch((e) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error.retryAfterMs).toBeGreaterThan(5000);
      expect(counting.count(CONFIRM)).toBe(1);
      expect(await ledger(limited.url)).toHaveLength(0);
      await expect(service.listAccounts(ctx())).rejects.toBeInstanceOf(RateLimitError);
      expect(counting.count('/public/v1/accounts')).toBe(2);
    } finally {
      await counting.close();
      await limited.close();
    }
  });
});

describe('no access token before a confirm', () => {
  it('a login that fails is "not sent": the confirm never left, nothing is debited', async () => {
    const service = serviceFor(proxy.url);
    await armFault(sandbox.url, { endpoint: 'login', fault: 'internal_error' });
    const before = proxy.count(CONFIRM);
    const debits = (await ledger(sandbox.url)).length;
    const error = await service.confirm(purchase({ externalReference: ref('tok') }), ctx()).catch((e) => e);
    expect(error).toBeInstanceOf(TokenUnavailableError);
    expect(outcomeOf(error)).toBe('not_sent');
    expect(error.message).toMatch(/^confirm: no access token \(.*\); nothing was sent$/);
    expect(proxy.count(CONFIRM)).toBe(before);
    expect(await ledger(sandbox.url)).toHaveLength(debits);
  });

  it('a read keeps the login error itself', async () => {
    const service = serviceFor(proxy.url);
    await armFault(sandbox.url, { endpoint: 'login', fault: 'internal_error' });
    await expect(service.listAccounts(ctx())).rejects.toBeInstanceOf(InternalServerError);
  });
});
