import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import {
  Catalogue,
  derivedHint,
  identifierHint,
  validateIdentifier,
  type IdentifierRule,
  type VasProduct,
} from '../../src/vas';
import { armFault, captureLogs, ctx, serviceFor, startCountingProxy, type CountingProxy } from './helpers';
import { until } from '../support/wait';

const rule = (overrides: Partial<IdentifierRule> = {}): IdentifierRule => ({
  label: 'Meter number',
  minLength: 11,
  maxLength: 13,
  pattern: '^[0-9]{11,13}$',
  hint: null,
  ...overrides,
});

describe('validateIdentifier and identifierHint', () => {
  it.each([
    ['01234567890', { ok: true }],
    ['0123456789012', { ok: true }],
    ['0123456789', { ok: false, reason: 'tooShort', min: 11, max: 13 }],
    ['01234567890123', { ok: false, reason: 'tooLong', min: 11, max: 13 }],
    ['0123456789A', { ok: false, reason: 'pattern', min: 11, max: 13 }],
  ])('%s → %p', (value, expected) => expect(validateIdentifier(rule(), value)).toEqual(expected));

  it('applies length and pattern together, and skips null constraints', () => {
    expect(validateIdentifier(rule({ pattern: '^[0-9]+$', maxLength: null }), '0'.repeat(40))).toEqual({
      ok: true,
    });
    expect(validateIdentifier(rule({ minLength: null, maxLength: null, pattern: null }), 'x')).toEqual({
      ok: true,
    });
    expect(validateIdentifier(rule({ pattern: '^9', minLength: 2, maxLength: null }), '12')).toMatchObject({
      reason: 'pattern',
    });
  });

  it('an invalid pattern in the catalogue is skipped, not a crash', () => {
    expect(validateIdentifier(rule({ pattern: '([0-9' }), '01234567890')).toEqual({ ok: true });
    expect(validateIdentifier(rule({ pattern: '([0-9' }), '0123')).toMatchObject({ reason: 'tooShort' });
  });

  it('never logs, even for a broken pattern (dialogue guards call it)', () => {
    const logs = captureLogs();
    try {
      expect(validateIdentifier(rule({ pattern: '(unclosed' }), '01234567890')).toEqual({ ok: true });
    } finally {
      logs.stop();
    }
    const { lines } = logs;
    expect(lines).toEqual([]);
  });

  it('the admin hint wins over the derived one', () => {
    expect(identifierHint(rule())).toBe('11 to 13 characters');
    expect(identifierHint(rule({ minLength: 10, maxLength: 10 }))).toBe('exactly 10 characters');
    expect(identifierHint(rule({ hint: 'As on your meter card' }))).toBe('As on your meter card');
    expect(identifierHint(rule({ minLength: null, maxLength: null }))).toBeNull();
  });

  test.each([
    [11, 13, { key: 'identifier.hintDerived', params: { min: 11, max: 13 } }, '11 to 13 characters'],
    [10, 10, { key: 'identifier.hintExact', params: { min: 10 } }, 'exactly 10 characters'],
    [4, null, { key: 'identifier.hintMin', params: { min: 4 } }, 'at least 4 characters'],
    [null, 8, { key: 'identifier.hintMax', params: { max: 8 } }, 'at most 8 characters'],
    [null, null, null, null],
  ])('min %p, max %p: one derived hint for screens (%j) and the CLI (%p)', (min, max, hint, english) => {
    expect(derivedHint(min, max)).toEqual(hint);
    expect(identifierHint(rule({ minLength: min, maxLength: max }))).toBe(english);
  });
});

describe('Catalogue cache', () => {
  let sandbox: RunningSandbox;
  let proxy: CountingProxy;
  const PATH = '/public/v1/vas-products';
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, silent: true });
    proxy = await startCountingProxy(sandbox.url);
  });
  afterAll(async () => {
    await proxy.close();
    await sandbox.close();
  });

  it('loads once for concurrent callers, serves stale while refreshing, and keeps it on error', async () => {
    let now = 0;
    const catalogue = new Catalogue(serviceFor(proxy.url), { ttlMs: 1000, now: () => now });
    const base = proxy.count(PATH);
    const all = await Promise.all([
      catalogue.products(ctx()),
      catalogue.products(ctx()),
      catalogue.products(ctx()),
    ]);
    expect(all[0].map((p) => p.productType)).toEqual(['ELECTRICITY', 'AIRTIME', 'WATER']);
    expect(all[2].find((p) => p.productType === 'WATER')?.providers[0].code).toBe('WUC');
    expect(proxy.count(PATH) - base).toBe(1);

    now = 500; // fresh: no call
    await catalogue.products();
    expect(proxy.count(PATH) - base).toBe(1);

    now = 1500; // stale: answered from cache, refreshed in the background
    expect(await catalogue.products()).toHaveLength(3);
    await until('the background refresh', () => proxy.count(PATH) - base === 2);

    now = 3000; // stale and the refresh fails: the stale copy keeps answering
    await armFault(sandbox.url, { endpoint: 'vas-products', fault: 'internal_error', count: 5 });
    expect(await catalogue.products()).toHaveLength(3);
    // The proxy counts the earlier refresh when it arrives, before its answer lands: while it is
    // in flight, no second one starts, and when it lands after the clock moved it counts as
    // loaded now. So the clock moves on at each ask (every copy is stale), as a real one would,
    // until the failing refresh has gone out.
    await until('the failed background refresh', async () => {
      now += 1000;
      expect(await catalogue.products()).toHaveLength(3);
      return proxy.count(PATH) - base >= 3;
    });
    expect((await catalogue.products()).map((p) => p.productType)).toContain('ELECTRICITY');
    await fetch(`${sandbox.url}/sandbox/faults`, { method: 'DELETE' });
  });
});

describe('Catalogue and a broken identifier pattern', () => {
  it('reports the pattern once when it loads the catalogue, not on every check or reload', async () => {
    const broken: VasProduct = {
      productType: 'WATER',
      displayName: 'Water',
      providers: [],
      identifier: rule({ pattern: '([0-9' }),
    };
    const loads: Array<Promise<VasProduct[]>> = [];
    const listProducts = () => {
      loads.push(Promise.resolve([broken]));
      return loads[loads.length - 1];
    };
    const catalogue = new Catalogue({ listProducts }, { ttlMs: 0 }); // every read reloads
    const logs = captureLogs();
    try {
      await catalogue.products(ctx());
      await catalogue.products(ctx()); // stale at once: reloaded in the background
      await until('the second load', () => loads.length === 2);
      await loads[1]; // the catalogue's own handler of this load ran first
      validateIdentifier(broken.identifier, '01234567890');
    } finally {
      logs.stop();
    }
    const { lines } = logs;
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 'error',
      productType: 'WATER',
      pattern: '([0-9',
    });
  });
});
