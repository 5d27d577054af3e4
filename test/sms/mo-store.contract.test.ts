import {
  MemorySmsMoStore,
  RedisSmsMoStore,
  type PendingQuote,
  type SmsMoStore,
} from '../../src/sms/mo/store';
import { testRedis, type TestRedis } from '../support/redis';

/** One contract, two stores: the embedded mode's memory and Redis behave the same. */

const quote = (code: string, expiresAt = Date.now() + 60_000): PendingQuote => ({
  id: `q-${code}`,
  code,
  expiresAt,
  intent: {
    productType: 'ELECTRICITY',
    providerCode: 'BPC',
    subscriberIdentifier: '01234567890',
    amount: { currency: 'BWP', minor: 900719925474099 },
    debitedAccountId: 1001,
    beneficiaryMsisdn: '26771234567',
    requesterMsisdn: '26771234567',
    language: 'en-BW',
    channel: 'SMS',
  },
  total: { currency: 'BWP', minor: 900719925474099 },
});

let redis: TestRedis;
beforeAll(() => {
  redis = testRedis('smsmo-store');
});
afterAll(async () => {
  await redis.cleanup();
});

describe.each([
  ['memory', (): SmsMoStore => new MemorySmsMoStore()],
  [
    'redis',
    (): SmsMoStore =>
      new RedisSmsMoStore(redis.redis, `${redis.prefix}:${Math.random().toString(36).slice(2)}`),
  ],
])('SMS-MO store contract: %s', (_name, make) => {
  const msisdn = '26771234567';
  const DAY = 24 * 3600 * 1000;

  it('claims the pending quote once; a second YES finds it bought, exact amounts kept', async () => {
    const store = make();
    await store.putQuote(msisdn, quote('4821'), DAY);
    const first = await store.claimQuote(msisdn, '4821', Date.now(), DAY);
    expect(first).toEqual({
      kind: 'claimed',
      quote: quote('4821', first.kind === 'claimed' ? first.quote.expiresAt : 0),
    });
    expect(await store.claimQuote(msisdn, '4821', Date.now(), DAY)).toMatchObject({
      kind: 'bought',
      quote: { id: 'q-4821' },
    });
    // A bare YES after the purchase is answered by the latest bought quote.
    expect(await store.claimQuote(msisdn, null, Date.now(), DAY)).toMatchObject({
      kind: 'bought',
      quote: { id: 'q-4821' },
    });
  });

  it("lists the sender's quote codes: the pending one and the bought ones", async () => {
    const store = make();
    expect(await store.quoteCodes(msisdn)).toEqual({ pending: null, bought: [] });
    await store.putQuote(msisdn, quote('4821'), DAY);
    expect(await store.quoteCodes(msisdn)).toEqual({ pending: '4821', bought: [] });
    await store.claimQuote(msisdn, '4821', Date.now(), DAY);
    await store.putQuote(msisdn, quote('5932'), DAY);
    expect(await store.quoteCodes(msisdn)).toEqual({ pending: '5932', bought: ['4821'] });
    await store.cancelQuote(msisdn, null);
    expect(await store.quoteCodes(msisdn)).toEqual({ pending: null, bought: ['4821'] });
    expect(await store.quoteCodes('26770000000')).toEqual({ pending: null, bought: [] });
  });

  it('concurrent YES: exactly one claims', async () => {
    const store = make();
    await store.putQuote(msisdn, quote('1111'), DAY);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => store.claimQuote(msisdn, '1111', Date.now(), DAY)),
    );
    expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'bought')).toHaveLength(19);
  });

  it('a wrong code, no quote, an expired quote, a replaced quote', async () => {
    const store = make();
    expect(await store.claimQuote(msisdn, null, Date.now(), DAY)).toEqual({ kind: 'none' });
    expect(await store.claimQuote(msisdn, '1234', Date.now(), DAY)).toEqual({ kind: 'none' });
    await store.putQuote(msisdn, quote('2222'), DAY);
    expect(await store.claimQuote(msisdn, '3333', Date.now(), DAY)).toEqual({ kind: 'mismatch' });
    await store.putQuote(msisdn, quote('4444'), DAY);
    expect(await store.claimQuote(msisdn, '2222', Date.now(), DAY)).toEqual({ kind: 'mismatch' });
    await store.putQuote(msisdn, quote('5555', Date.now() - 1), DAY);
    expect(await store.claimQuote(msisdn, null, Date.now(), DAY)).toMatchObject({ kind: 'expired' });
  });

  it('cancels only the pending quote (with its code when given)', async () => {
    const store = make();
    await store.putQuote(msisdn, quote('6666'), DAY);
    expect(await store.cancelQuote(msisdn, '7777')).toBe(false);
    expect(await store.cancelQuote(msisdn, '6666')).toBe(true);
    expect(await store.cancelQuote(msisdn, null)).toBe(false);
    expect(await store.claimQuote(msisdn, '6666', Date.now(), DAY)).toEqual({ kind: 'mismatch' });
  });

  it('sees a message once; forgets on request; counts hits per window and per counter', async () => {
    const store = make();
    const key = { provider: 'africastalking', messageId: 'ATXid_{x}:1' };
    expect(await store.firstSight(key, 60_000)).toBe(true);
    expect(await store.firstSight(key, 60_000)).toBe(false);
    await store.forget(key);
    expect(await store.firstSight(key, 60_000)).toBe(true);
    const now = Date.now();
    expect(await store.hit('inbound', msisdn, 60_000, now)).toBe(1);
    expect(await store.hit('inbound', msisdn, 60_000, now)).toBe(2);
    expect(await store.hit('replies', msisdn, 60_000, now)).toBe(1);
    expect(await store.hit('inbound', '26770000000', 60_000, now)).toBe(1);
  });

  it('tells apart message ids that differ only in a lone surrogate (a spoilt form field)', async () => {
    const store = make();
    const lone = { provider: 'africastalking', messageId: 'id-\ud800 &' };
    const otherLone = { provider: 'africastalking', messageId: 'id-\udc00 &' };
    const replaced = { provider: 'africastalking', messageId: 'id-\ufffd &' };
    expect(await store.firstSight(lone, 60_000)).toBe(true);
    expect(await store.firstSight(lone, 60_000)).toBe(false);
    expect(await store.firstSight(otherLone, 60_000)).toBe(true);
    expect(await store.firstSight(replaced, 60_000)).toBe(true);
  });
});
