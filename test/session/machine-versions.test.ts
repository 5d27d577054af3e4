/**
 * A machine change deployed while dialogues are in flight: a dialogue goes on on the machine
 * version it started with, on any instance that knows that version, old or new (machines/README.md,
 * "Shipping a machine change"). The next version is the gateway's machine with its quote state
 * renamed (test/support/next-ussd-machine.ts), so a snapshot standing at the quote cannot be
 * restored on it.
 */
import { USSD_MACHINE_VERSION, USSD_SHARED_CONTEXT } from '../../machines/ussd-session.machine';
import type { UssdMachines } from '../../machines/ussd-versions';
import { services } from '../../machines/ussd/test-kit';
import { loadLocales } from '../../src/i18n';
import { createHopEngine, type HopEngine } from '../../src/ussd/engine/engine';
import type { UssdReply } from '../../src/ussd/engine/hop';
import { RedisSessionStore, sessionKeys } from '../../src/ussd/engine/store';
import { DEPLOY, NEXT_USSD_VERSION } from '../support/next-ussd-machine';
import { testRedis, type TestRedis } from '../support/redis';

const locales = loadLocales();
const MSISDN = '26772000001';
const METER = '04123456789';
/** The electricity purchase, hop by hop (cumulative text), up to the Buy. */
const PURCHASE = ['', '1', `1*${METER}`, `1*${METER}*100`, `1*${METER}*100*1`];

let redis: TestRedis;
beforeEach(() => {
  redis = testRedis('machine-versions');
});
afterEach(() => redis.cleanup());

/** An instance of a build serving `machines` on the test Redis (a new one remembers nothing). */
function instance(machines: UssdMachines, kit = services()) {
  const build = (b: UssdMachines['start']) => ({
    version: b.version,
    machine: b.create(kit.services),
    screenOf: b.screenOf,
  });
  const start = build(machines.start);
  const engine = createHopEngine({
    store: new RedisSessionStore(redis.redis, redis.prefix),
    machine: start.machine,
    machineVersion: start.version,
    screenOf: start.screenOf,
    otherVersions: machines.others.map(build),
    sharedContextKeys: USSD_SHARED_CONTEXT,
    locales,
    screenLimit: 182,
    hopBudgetMs: 5000,
    sessionTtlS: 300,
    resumeWindowS: 120,
    defaultLanguage: 'en-BW',
  });
  return { engine, calls: kit.calls };
}

const hop = (engine: HopEngine, sessionId: string, text: string): Promise<UssdReply> =>
  engine.handleHop({
    aggregator: 'africastalking',
    sessionId,
    msisdn: MSISDN,
    serviceCode: '*384*123#',
    text: { kind: 'cumulative', value: text },
    isNew: text === '',
    raw: null,
  });

async function stored(sessionId: string): Promise<{ machineVersion: string; status: string }> {
  const key = sessionKeys(redis.prefix, { aggregator: 'africastalking', sessionId }).record;
  return JSON.parse((await redis.redis.get(key))!);
}

/** Plays `texts` on `engines` in turn (hop i on engines[i % n]); the replies and each record's version. */
async function play(engines: HopEngine[], sessionId: string, texts: string[]) {
  const replies: UssdReply[] = [];
  const versions: string[] = [];
  for (const [i, text] of texts.entries()) {
    replies.push(await hop(engines[i % engines.length], sessionId, text));
    versions.push((await stored(sessionId)).machineVersion);
  }
  return { replies, versions };
}

/** The replies of a purchase that went through: the quote, then the thank-you (END). */
function expectBought(replies: UssdReply[]): void {
  expect(replies[1].text).toContain('Enter meter number');
  expect(replies[3].text).toContain('Total');
  expect(replies.slice(0, 4).every((r) => !r.end)).toBe(true);
  expect(replies[4]).toMatchObject({ end: true, text: expect.stringContaining('Thank you') });
}

it('the next machine cannot continue a snapshot standing at the quote: run on it, the dialogue would start afresh', async () => {
  const before = instance(DEPLOY.before);
  await play([before.engine], 'lost', PURCHASE.slice(0, 4));
  // The next machine labelled with the current version: the record's version no longer protects it.
  const mislabelled = { ...DEPLOY.after.start, version: USSD_MACHINE_VERSION };
  const next = instance({ start: mislabelled, others: [] });
  const reply = await hop(next.engine, 'lost', PURCHASE[4]);
  expect(reply.text).toContain('Welcome');
  expect(next.calls.order).toHaveLength(0);
});

it('a build that no longer knows the version starts the dialogue afresh (the version is removed too early)', async () => {
  const before = instance(DEPLOY.before);
  await play([before.engine], 'late', PURCHASE.slice(0, 4));
  const after = instance(DEPLOY.after);
  expect((await hop(after.engine, 'late', PURCHASE[4])).text).toContain('Welcome');
  expect(after.calls.order).toHaveLength(0);
});

it('a dialogue started on version N is finished on a build that starts on N+1: on N, one purchase', async () => {
  const before = instance(DEPLOY.before);
  const { versions: first } = await play([before.engine], 'n', PURCHASE.slice(0, 3));
  const upgraded = instance(DEPLOY.switch);
  const replies = [];
  for (const text of PURCHASE.slice(3)) replies.push(await hop(upgraded.engine, 'n', text));
  expect(replies[0].text).toContain('Total');
  expect(replies[1]).toMatchObject({ end: true, text: expect.stringContaining('Thank you') });
  expect(upgraded.calls.order).toHaveLength(1);
  expect(first).toEqual([USSD_MACHINE_VERSION, USSD_MACHINE_VERSION, USSD_MACHINE_VERSION]);
  expect(await stored('n')).toMatchObject({ machineVersion: USSD_MACHINE_VERSION, status: 'final' });
  // A new dialogue on that build starts on N+1.
  await hop(upgraded.engine, 'n1', '');
  expect((await stored('n1')).machineVersion).toBe(NEXT_USSD_VERSION);
});

describe.each([
  ['before', 'expand'],
  ['expand', 'switch'],
  ['switch', 'after'],
] as const)('a rolling deploy from the %s build to the %s build', (from, to) => {
  it('two instances alternating hops finish a purchase started on either, each on the version it started with', async () => {
    const old = instance(DEPLOY[from]);
    const fresh = instance(DEPLOY[to]);
    const startedOld = await play([old.engine, fresh.engine], 'a', PURCHASE);
    const startedNew = await play([fresh.engine, old.engine], 'b', PURCHASE);
    expectBought(startedOld.replies);
    expectBought(startedNew.replies);
    expect(new Set(startedOld.versions)).toEqual(new Set([DEPLOY[from].start.version]));
    expect(new Set(startedNew.versions)).toEqual(new Set([DEPLOY[to].start.version]));
    expect(old.calls.order.length + fresh.calls.order.length).toBe(2);
  });
});

it('a dropped dialogue of the previous version is offered again on the new build and goes on on its version', async () => {
  const before = instance(DEPLOY.before);
  await play([before.engine], 'dropped', PURCHASE.slice(0, 4));
  const upgraded = instance(DEPLOY.switch);
  const offer = await hop(upgraded.engine, 'again', '');
  expect(offer.text).toContain('Continue');
  expect((await stored('again')).machineVersion).toBe(USSD_MACHINE_VERSION);
  expect((await hop(upgraded.engine, 'again', '1')).text).toContain('Total');
  const done = await hop(upgraded.engine, 'again', '1*1');
  expect(done).toMatchObject({ end: true, text: expect.stringContaining('Thank you') });
  expect(upgraded.calls.order).toHaveLength(1);
});
