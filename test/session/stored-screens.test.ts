/**
 * The gateway's own dialogue as the engine stores it in Redis: a record names its screen
 * (`context.shown`) instead of storing it, a screen drawn again from a stored record (another
 * page, on another instance) is the one the machine showed, and a record stays within 2 KB of
 * Redis on every screen of an electricity purchase.
 */
import {
  createUssdMachine,
  dialogueScreen,
  USSD_MACHINE_VERSION,
  type DialogueServices,
  USSD_SHARED_CONTEXT,
} from '../../machines/ussd-session.machine';
import { services } from '../../machines/ussd/test-kit';
import { loadLocales } from '../../src/i18n';
import { createHopEngine, type HopEngine } from '../../src/ussd/engine/engine';
import type { UssdReply } from '../../src/ussd/engine/hop';
import { RedisSessionStore, sessionKeys } from '../../src/ussd/engine/store';
import { testRedis, type TestRedis } from '../support/redis';

const locales = loadLocales();
const MSISDN = '26772000001';
const METER = '04123456789';

let redis: TestRedis;
beforeEach(() => {
  redis = testRedis('stored-screens');
});
afterEach(() => redis.cleanup());

/** An instance of the gateway's dialogue engine on the test Redis (a new one remembers nothing). */
function instance(screenLimit = 182, overrides: Partial<DialogueServices> = {}): HopEngine {
  return createHopEngine({
    store: new RedisSessionStore(redis.redis, redis.prefix),
    machine: createUssdMachine(services(overrides).services),
    machineVersion: USSD_MACHINE_VERSION,
    sharedContextKeys: USSD_SHARED_CONTEXT,
    screenOf: dialogueScreen,
    locales,
    screenLimit,
    hopBudgetMs: 5000,
    sessionTtlS: 300,
    resumeWindowS: 120,
    defaultLanguage: 'en-BW',
  });
}

const hop = (engine: HopEngine, sessionId: string, text: string, msisdn = MSISDN): Promise<UssdReply> =>
  engine.handleHop({
    aggregator: 'africastalking',
    sessionId,
    msisdn,
    serviceCode: '*384*123#',
    text: { kind: 'cumulative', value: text },
    isNew: text === '',
    raw: null,
  });

const recordKey = (sessionId: string) =>
  sessionKeys(redis.prefix, { aggregator: 'africastalking', sessionId }).record;

it('stores each screen of a purchase by name, within 2 KB of Redis', async () => {
  const engine = instance();
  const shown: unknown[] = [];
  for (const text of ['', '1', `1*${METER}`, `1*${METER}*100`]) {
    const reply = await hop(engine, 's1', text);
    expect(reply.end).toBe(false);
    const json = (await redis.redis.get(recordKey('s1')))!;
    const context = JSON.parse(json).snapshot.context;
    expect(context.screen).toBeUndefined();
    shown.push(context.shown);
    expect(await redis.redis.memory('USAGE', recordKey('s1'))).toBeLessThanOrEqual(2048);
  }
  expect(shown).toEqual([
    { prompt: 'menu' },
    { prompt: 'identifier' },
    { prompt: 'amount' },
    { prompt: 'quote' },
  ]);
});

it("stays within 2 KB with a repeat buyer's saved meters in the dialogue (five per product, long names)", async () => {
  // The most a number has: five electricity meters and five water accounts, each with a long name.
  const meters = (['ELECTRICITY', 'WATER'] as const).flatMap((productType) =>
    Array.from({ length: 5 }, (_, i) => ({
      productType,
      identifier: productType === 'WATER' ? `555000000${i}` : `0412345678${i}`,
      name: `MOTSUMI KABELO GAONEWE ${productType} ${i}`,
    })),
  );
  const engine = instance(182, { savedMeters: async () => meters });
  const kept: number[] = [];
  // The menu, the identifier (the saved meters offered), the first one chosen, the quote.
  for (const text of ['', '1', '1*1', '1*1*100']) {
    expect((await hop(engine, 'm1', text)).end).toBe(false);
    const context = JSON.parse((await redis.redis.get(recordKey('m1')))!).snapshot.context;
    kept.push(Object.values(context.meters ?? {}).flat().length);
    expect(await redis.redis.memory('USAGE', recordKey('m1'))).toBeLessThanOrEqual(2048);
  }
  // Held from the dial until the quote (the largest record) lets them go.
  expect(kept).toEqual([10, 10, 10, 0]);
});

it('keeps the notice a prompt was shown with when it is drawn again', async () => {
  const small = instance(60);
  await hop(small, 'n1', '');
  await hop(small, 'n1', '1');
  await hop(small, 'n1', `1*${METER}`);
  // A wrong amount: the amount prompt again, the reason above it.
  const wrong = await hop(small, 'n1', `1*${METER}*x`);
  const context = JSON.parse((await redis.redis.get(recordKey('n1')))!).snapshot.context;
  expect(context.shown).toEqual({ prompt: 'amount', notice: { key: 'amount.invalid.notNumber' } });
  expect(context.notice).toBeNull();
  expect(wrong.text).toContain(locales.t('en', 'amount.invalid.notNumber').slice(0, 20));
});

it('draws a page of a stored screen on another instance as the machine showed it (the catalogue put back)', async () => {
  // A screen small enough that the main menu takes two pages.
  const first = instance(60);
  const page1 = await hop(first, 'p1', '');
  expect(page1.text).toContain('98');
  // Another caller's dialogue on the same screen (a new dialogue of the same caller would close p1).
  const otherCaller = '26772000002';
  await hop(first, 'p2', '', otherCaller);

  // Another instance knows nothing of p1 but what Redis holds; the first draws p2's page 2 itself.
  const other = await hop(instance(60), 'p1', '98');
  const same = await hop(first, 'p2', '98', otherCaller);
  expect(other).toEqual(same);
  // Page 2 lists a product: drawn from the catalogue, which the record only names.
  expect(other.text).toContain(`3 ${locales.t('en', 'product.WATER')}`);
  expect(other.text).not.toEqual(page1.text);
});
