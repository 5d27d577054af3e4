import fc from 'fast-check';
import { SmsConversation } from '../../src/sms/mo/conversation';
import { MemorySmsMoStore } from '../../src/sms/mo/store';
import { loadLocales } from '../../src/i18n';
import { TEST_METERS, TEST_WATER_ACCOUNTS } from '../../src/sandbox';
import { MemorySessionStore } from '../../src/ussd/engine/store';
import { Catalogue } from '../../src/vas';
import { loadConfig } from '../../src/config';
import { Spend, SqlSpendStore } from '../../src/spend';
import { testPglite } from '../support/database';
import type { PurchaseIntent, PurchaseRecord } from '../../src/purchases/types';
import { startHarness, type Harness } from '../purchases/harness';

/**
 * The SMS conversation never buys without the pending quote's code: for any generated message
 * (garbage, near-commands, buy commands, YES with a wrong code, a bare YES with the code-less
 * form off, as in production…) no purchase is created and the
 * sandbox ledger gets no debit. Real components throughout: the sandbox over HTTP for the
 * catalogue and quotes, the desk, the spend rules on the embedded database, the conversation's memory store.
 * `FUZZ_RUNS` sets the count (`npm run test:fuzz`: 100,000).
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
/** Jest's time limit per property: a generous 5 ms a message (a bound, never a measurement). */
const TIME_LIMIT_MS = 30_000 + RUNS * 5;
let harness: Harness;
let conversation: SmsConversation;
const created: { intent: PurchaseIntent; key: string }[] = [];
const replies: { to: string; message: string }[] = [];
let seq = 0;
let records: Awaited<ReturnType<typeof testPglite>>;

beforeAll(async () => {
  harness = await startHarness('in-process');
  records = await testPglite();
  const catalogue = new Catalogue(harness.service);
  const sessions = new MemorySessionStore();
  const spend = new Spend(new SqlSpendStore(records.db), loadConfig({}).spend);
  const account = (await harness.service.listAccounts({ requestId: 'fuzz' })).find(
    (a) => a.category === 'CURRENT',
  )!;
  conversation = new SmsConversation(
    new MemorySmsMoStore(),
    {
      products: (ctx) => catalogue.products(ctx),
      debitAccount: async () => account,
      quote: (request, ctx) => harness.service.validate(request, ctx),
      checkSpend: (intent) => spend.check(intent),
      desk: {
        async create(intent, key): Promise<PurchaseRecord> {
          created.push({ intent, key });
          return harness.desk.create(intent, key);
        },
        listByMsisdn: (msisdn, options) => harness.desk.listByMsisdn(msisdn, options),
      },
      language: { get: (m) => sessions.getLanguage(m), set: (m, t) => sessions.setLanguage(m, t) },
      async reply(sms) {
        replies.push(sms);
      },
    },
    loadLocales(),
    {
      quoteTtlS: 300,
      ratePerMin: 1_000_000,
      repliesPerMin: 1_000_000,
      defaultLanguage: 'en-BW',
      defaultRegion: 'BW',
      timeZone: 'Africa/Gaborone',
      // As in production: only the code buys (a bare YES is one more message that must not).
      yesWithoutCode: false,
    },
  );
}, 30_000);

afterAll(async () => {
  await harness.close();
  await records.cleanup();
});

const word = fc.constantFrom(
  'ELEC',
  'elec',
  'POWER',
  'MOTLAKASE',
  'WATER',
  'METSI',
  'AIR',
  'MOGALA',
  'NO',
  'NYAA',
  'TOKEN',
  'LANG',
  'HELP',
  '?',
  'BUY',
  'YESS',
  'YE S',
  TEST_METERS.active,
  TEST_METERS.blocked,
  TEST_WATER_ACCOUNTS.active,
  '26771234567',
  '+26771234567',
  'MASCOM',
  'orange',
  'BWP',
  'P100',
  '100',
  '25.50',
  '0',
  '-5',
  '1e3',
  '99999999999999999999',
  '10.555',
);
const sep = fc.constantFrom(' ', '*', '#', '  ', ' * ', '\n', '.', ',');
/** Grammar-shaped text: known words and numbers joined by the separators people use. */
const shaped = fc.tuple(fc.array(word, { minLength: 1, maxLength: 5 }), sep).map(([ws, s]) => ws.join(s));
/** YES (any alias) with any code but the pending one. */
const wrongYes = (code: string) =>
  fc
    .tuple(
      fc.constantFrom('YES', 'yes', 'Y', 'OK', 'EE'),
      fc.integer({ min: 0, max: 99_999_999 }).map(String),
      fc.string({ maxLength: 8 }),
    )
    .filter(([, c]) => c !== code)
    .map(([k, c, rest]) => `${k} ${c} ${rest}`);
const anyText = fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 60 }), shaped);

const msisdn = (): string => `2677${String(1_000_000 + (seq++ % 8_999_999)).padStart(7, '0')}`;
const sms = (from: string, text: string) => ({
  provider: 'generic',
  messageId: `f-${seq++}`,
  from,
  to: '12345',
  text,
  receivedAt: 'now',
});

/** Quote a real purchase for `from` and return its code. */
async function pendingCode(from: string): Promise<string> {
  const before = replies.length;
  await conversation.handle(sms(from, `ELEC ${TEST_METERS.active} 10`), `q-${seq++}`);
  const quote = replies.slice(before).find((r) => r.to === from)?.message ?? '(no reply)';
  const code = /YES (\d{4})/.exec(quote)?.[1];
  if (!code) throw new Error(`expected a quote, got: ${quote}`);
  return code;
}

it(
  'no message from a sender without a pending quote ever buys',
  async () => {
    await fc.assert(
      fc.asyncProperty(anyText, async (text) => {
        await conversation.handle(sms(msisdn(), text), `k-${seq++}`);
        expect(created).toEqual([]);
      }),
      { numRuns: RUNS },
    );
    process.stdout.write(`SMS property (no pending quote): ${RUNS} messages, ${created.length} purchases\n`);
  },
  TIME_LIMIT_MS,
);

it(
  'with a pending quote, nothing but its code buys it (a bare YES neither, the code-less form off)',
  async () => {
    const runs = Math.max(50, Math.round(RUNS / 20));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(anyText, fc.constant('')), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 1000 }),
        async (texts, salt) => {
          const from = msisdn();
          const code = await pendingCode(from);
          const bare = fc.sample(fc.constantFrom('YES', 'yes', 'Y', 'OK', 'EE', ' yes. '), {
            numRuns: 1,
            seed: salt,
          });
          const messages = [...texts, ...bare, ...fc.sample(wrongYes(code), { numRuns: 2, seed: salt })];
          for (const text of messages) {
            // Guard the property's premise: the code itself buys by design.
            if (text.includes(code)) continue;
            await conversation.handle(sms(from, text), `k-${seq++}`);
          }
          expect(created).toEqual([]);
        },
      ),
      { numRuns: runs },
    );
    process.stdout.write(`SMS property (pending quote): ${runs} sequences, ${created.length} purchases\n`);
  },
  TIME_LIMIT_MS,
);

it('and the code itself does buy (the set-up can see a purchase)', async () => {
  const from = msisdn();
  const code = await pendingCode(from);
  await conversation.handle(sms(from, `yes*${code}`), `k-${seq++}`);
  expect(created).toHaveLength(1);
  expect(created[0].intent).toMatchObject({
    subscriberIdentifier: TEST_METERS.active,
    requesterMsisdn: from,
  });
});
