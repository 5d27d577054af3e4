import { SmsConversation } from '../../src/sms/mo/conversation';
import { MemorySmsMoStore, RedisSmsMoStore, type SmsMoStore } from '../../src/sms/mo/store';
import { loadConfig } from '../../src/config';
import { loadLocales } from '../../src/i18n';
import { TEST_METERS } from '../../src/sandbox';
import { MemorySessionStore } from '../../src/ussd/engine/store';
import { Spend, SqlSpendStore } from '../../src/spend';
import { Catalogue } from '../../src/vas';
import { startHarness, type Harness } from '../purchases/harness';
import { testPglite } from '../support/database';
import { testRedis, type TestRedis } from '../support/redis';

/**
 * The life of a pending quote: bought only within SMS_QUOTE_TTL_S (the conversation's clock is
 * moved past it), dropped by any new purchase command even a refused one, and kept when the job
 * of the message that asked for it runs again. The sandbox and the desk are real; the
 * conversation's store is the memory one and the Redis one in turn.
 */

describe.each([['memory'], ['redis']])('pending quote (%s store)', (kind) => {
  let harness: Harness;
  let redis: TestRedis | undefined;
  let now = Date.now();
  const replies: string[] = [];
  const replyIds: string[] = [];
  let conversation: SmsConversation;
  let records: Awaited<ReturnType<typeof testPglite>>;
  let from = kind === 'memory' ? '26771230001' : '26771230002';

  beforeAll(async () => {
    harness = await startHarness('in-process');
    records = await testPglite();
    const spend = new Spend(new SqlSpendStore(records.db), loadConfig({}).spend);
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
        checkSpend: (intent) => spend.check(intent),
        desk: harness.desk,
        language: { get: (m) => sessions.getLanguage(m), set: (m, t) => sessions.setLanguage(m, t) },
        async reply(sms) {
          replies.push(sms.message);
          replyIds.push(sms.id);
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
        // The code-less form on (the default outside production): a bare YES after expiry, or
        // after the quote was dropped, still buys nothing.
        yesWithoutCode: true,
      },
      () => now,
    );
  });
  afterAll(async () => {
    await harness.close();
    await records.cleanup();
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

  it('a new purchase command drops the pending quote even when it is refused', async () => {
    from = kind === 'memory' ? '26771230011' : '26771230012';
    const start = replies.length;
    await conversation.handle(sms(`ELEC ${TEST_METERS.active} 40`, 'r1'), 'r1');
    const code = /YES (\d{4})/.exec(replies[start])![1];
    // Refused by the service, then refused by the grammar: each time the quote is gone.
    expect(await conversation.handle(sms(`ELEC ${TEST_METERS.blocked} 40`, 'r2'), 'r2')).toBe('refused');
    expect(await conversation.handle(sms('YES', 'r3'), 'r3')).toBe('refused');
    expect(replies[start + 2]).toMatch(/^You have no purchase waiting/);
    await conversation.handle(sms(`ELEC ${TEST_METERS.active} 40`, 'r4'), 'r4');
    const second = /YES (\d{4})/.exec(replies[replies.length - 1])![1];
    expect(await conversation.handle(sms('WATER 50', 'r5'), 'r5')).toBe('refused');
    expect(await conversation.handle(sms(`YES ${second}`, 'r6'), 'r6')).toBe('refused');
    expect(replies[replies.length - 1]).toMatch(/^(You have no purchase waiting|Code \d{4} is wrong)/);
    expect(await conversation.handle(sms(`YES ${code}`, 'r6b'), 'r6b')).toBe('refused');
    // Not a purchase command: the quote stays.
    await conversation.handle(sms(`ELEC ${TEST_METERS.active} 40`, 'r7'), 'r7');
    const kept = /YES (\d{4})/.exec(replies[replies.length - 1])![1];
    await conversation.handle(sms('HELP', 'r8'), 'r8');
    await conversation.handle(sms('hello', 'r9'), 'r9');
    expect(await conversation.handle(sms(`YES ${kept}`, 'r10'), 'r10')).toBe('bought');
    expect(await harness.desk.listByMsisdn(from)).toHaveLength(1);
  });

  it('a retried job re-sends its own quote (same code, same reply id) instead of a new one', async () => {
    from = kind === 'memory' ? '26771230021' : '26771230022';
    const start = replies.length;
    expect(await conversation.handle(sms(`WATER 2000123456 30`, 'w1'), 'w1')).toBe('quoted');
    expect(await conversation.handle(sms(`WATER 2000123456 30`, 'w1'), 'w1')).toBe('quoted');
    expect(replies.slice(start)).toEqual([replies[start], replies[start]]);
    expect(replyIds.slice(start)).toEqual(['mo:w1', 'mo:w1']);
    const code = /YES (\d{4})/.exec(replies[start])![1];
    expect(await conversation.handle(sms(`YES ${code}`, 'w2'), 'w2')).toBe('bought');
  });
});
