import { SmsConversation } from '../../src/channels/sms/mo/conversation';
import { MemorySmsMoStore, RedisSmsMoStore, type SmsMoStore } from '../../src/channels/sms/mo/store';
import { loadConfig } from '../../src/config';
import { loadLocales } from '../../src/i18n';
import { TEST_METERS } from '../../src/sandbox';
import { MemorySessionStore } from '../../src/session/store';
import { MemorySpendStore, Spend } from '../../src/spend';
import { Catalogue } from '../../src/vas';
import { startHarness, type Harness } from '../purchases/harness';
import { testRedis, type TestRedis } from '../support/redis';

/**
 * A quote is bought only within SMS_QUOTE_TTL_S: with the conversation's clock moved past it,
 * `YES <code>` says the code has expired and buys nothing (the sandbox and the desk are real;
 * the conversation's store is the memory one and the Redis one in turn).
 */

describe.each([['memory'], ['redis']])('quote expiry (%s store)', (kind) => {
  let harness: Harness;
  let redis: TestRedis | undefined;
  let now = Date.now();
  const replies: string[] = [];
  let conversation: SmsConversation;
  const from = kind === 'memory' ? '26771230001' : '26771230002';

  beforeAll(async () => {
    harness = await startHarness('in-process');
    redis = kind === 'redis' ? testRedis('smsexpiry') : undefined;
    const store: SmsMoStore = redis
      ? new RedisSmsMoStore(redis.redis, redis.prefix)
      : new MemorySmsMoStore(() => now);
    const catalogue = new Catalogue(harness.service);
    const sessions = new MemorySessionStore();
    const account = (await harness.service.listAccounts({ requestId: 'expiry' })).find(
      (a) => a.category === 'CURRENT',
    )!;
    conversation = new SmsConversation(
      store,
      {
        products: (ctx) => catalogue.products(ctx),
        debitAccount: async () => account,
        quote: (request, ctx) => harness.service.validate(request, ctx),
        checkSpend: (intent) => new Spend(new MemorySpendStore(), loadConfig({}).spend).check(intent),
        desk: harness.desk,
        language: { get: (m) => sessions.getLanguage(m), set: (m, t) => sessions.setLanguage(m, t) },
        async reply(sms) {
          replies.push(sms.message);
        },
      },
      loadLocales(),
      {
        quoteTtlS: 300,
        ratePerMin: 100,
        repliesPerMin: 100,
        defaultLanguage: 'en-BW',
        defaultRegion: 'BW',
        timeZone: 'Africa/Gaborone',
      },
      () => now,
    );
  });
  afterAll(async () => {
    await harness.close();
    await redis?.cleanup();
  });

  const sms = (text: string, id: string) => ({
    provider: 'generic',
    messageId: id,
    from,
    to: '1',
    text,
    receivedAt: 'now',
  });

  it('an expired code buys nothing and says so; a fresh quote buys', async () => {
    await conversation.handle(sms(`ELEC ${TEST_METERS.active} 40`, 'e1'), 'e1');
    const code = /YES (\d{4})/.exec(replies[0])![1];
    now += 301_000;
    expect(await conversation.handle(sms(`YES ${code}`, 'e2'), 'e2')).toBe('refused');
    expect(replies[1]).toBe(
      `Code ${code} is wrong or has expired; nothing was bought. Send your purchase again for a new code.`,
    );
    // A bare YES after expiry: the same answer, still nothing bought.
    expect(await conversation.handle(sms('YES', 'e2b'), 'e2b')).toBe('refused');
    expect(replies[2]).toMatch(/is wrong or has expired; nothing was bought/);
    expect(await harness.desk.listByMsisdn(from)).toEqual([]);

    await conversation.handle(sms(`ELEC ${TEST_METERS.active} 40`, 'e3'), 'e3');
    const fresh = /YES (\d{4})/.exec(replies[3])![1];
    now += 299_000;
    expect(await conversation.handle(sms(`YES ${fresh}`, 'e4'), 'e4')).toBe('bought');
    expect(await harness.desk.listByMsisdn(from)).toHaveLength(1);
  });
});
