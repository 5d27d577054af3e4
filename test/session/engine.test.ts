import type Redis from 'ioredis';
import type { UssdHop } from '../../src/ussd/engine/hop';
import { loadLocales, measure } from '../../src/i18n';
import { createHopEngine, type HopEngine, type HopEngineOptions } from '../../src/ussd/engine/engine';
import {
  MemorySessionStore,
  RedisSessionStore,
  sessionKeys,
  type LockResult,
  type SessionRecord,
  type SessionRef,
  type SessionStore,
} from '../../src/ussd/engine/store';
import { createTestMachine, TEST_SHARED, type TestServices } from './test-machine';
import { deleteKeysUnder, testRedis } from '../support/redis';

const locales = loadLocales();
const LIMIT = 182;
const MSISDN = '26771234567';

/** A deferred the test resolves when it chooses. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The real store, plus a count of "busy" answers so a test can wait for a hop to be queued. */
class ObservedStore implements SessionStore {
  busy = 0;
  private busyWaiters: (() => void)[] = [];
  constructor(readonly inner: SessionStore) {}
  whenBusy(): Promise<void> {
    return this.busy > 0 ? Promise.resolve() : new Promise((r) => this.busyWaiters.push(r));
  }
  async loadAndLock(ref: SessionRef, lockMs: number): Promise<LockResult> {
    const r = await this.inner.loadAndLock(ref, lockMs);
    if (r.kind === 'busy') {
      this.busy += 1;
      this.busyWaiters.splice(0).forEach((w) => w());
    }
    return r;
  }
  saveAndUnlock = (...a: Parameters<SessionStore['saveAndUnlock']>) => this.inner.saveAndUnlock(...a);
  recall = (...a: Parameters<SessionStore['recall']>) => this.inner.recall(...a);
  saveIfCurrent = (...a: Parameters<SessionStore['saveIfCurrent']>) => this.inner.saveIfCurrent(...a);
  unlock = (...a: Parameters<SessionStore['unlock']>) => this.inner.unlock(...a);
  startMsisdnSession = (...a: Parameters<SessionStore['startMsisdnSession']>) =>
    this.inner.startMsisdnSession(...a);
  setLanguage = (...a: Parameters<SessionStore['setLanguage']>) => this.inner.setLanguage(...a);
  getLanguage = (msisdn: string) => this.inner.getLanguage(msisdn);
  peek = (...a: Parameters<SessionStore['peek']>) => this.inner.peek(...a);
  takeResumable = (...a: Parameters<SessionStore['takeResumable']>) => this.inner.takeResumable(...a);
  putShared = (...a: Parameters<SessionStore['putShared']>) => this.inner.putShared(...a);
  /** Set: the store has lost every shared context part (evicted). */
  sharedGone = false;
  getShared = async (hash: string) => (this.sharedGone ? null : this.inner.getShared(hash));
  close = () => this.inner.close();
}

/** The engine every test starts from: the test machine, a 5 s budget, resume within 2 minutes. */
function engineOn(store: SessionStore, services: TestServices, overrides: Partial<HopEngineOptions> = {}) {
  return createHopEngine({
    store,
    machine: createTestMachine(services),
    machineVersion: 'test-1',
    locales,
    screenLimit: LIMIT,
    hopBudgetMs: 5000,
    sessionTtlS: 300,
    resumeWindowS: 120,
    defaultLanguage: 'en-BW',
    sharedContextKeys: TEST_SHARED,
    ...overrides,
  });
}

interface Harness {
  makeStore(): SessionStore;
  redis?: Redis;
  prefix?: string;
  cleanup(): Promise<void>;
}

const kinds: [string, () => Harness][] = [
  [
    'memory',
    () => {
      const store = new MemorySessionStore();
      return { makeStore: () => store, cleanup: async () => undefined };
    },
  ],
  [
    'redis',
    () => {
      const { redis, prefix, cleanup } = testRedis();
      return { makeStore: () => new RedisSessionStore(redis, prefix), redis, prefix, cleanup };
    },
  ],
];

function hop(sessionId: string, text: string, msisdn = MSISDN): UssdHop {
  return {
    aggregator: 'africastalking',
    sessionId,
    msisdn,
    serviceCode: '*384#',
    text: { kind: 'cumulative', value: text },
    isNew: text === '',
    raw: {},
  };
}

describe.each(kinds)('hop engine with the %s store', (_kind, makeHarness) => {
  let h: Harness;
  let services: TestServices;
  let store: ObservedStore;
  let engine: HopEngine;
  let lookup: ReturnType<typeof deferred<string>>;

  function build(overrides: Partial<HopEngineOptions> = {}): HopEngine {
    return engineOn(store, services, overrides);
  }

  beforeEach(() => {
    h = makeHarness();
    lookup = deferred<string>();
    services = {
      lookups: 0,
      lookup: () => lookup.promise,
      never: () => new Promise<string>(() => undefined),
    };
    store = new ObservedStore(h.makeStore());
    engine = build();
  });
  afterEach(async () => {
    await h.cleanup();
  });

  it('passes a secret input (a PIN) to the machine but never stores it: text and key masked', async () => {
    const sid = 'ATUid_secret';
    const replies = [];
    for (const text of ['', '7', '7*2468', '7*2468*1']) replies.push(await engine.handleHop(hop(sid, text)));
    expect(replies.map((r) => r.text.split('\n')[0])).toEqual([
      'Welcome! Choose a service:',
      'Enter your PIN:',
      'PIN ok',
      'Welcome! Choose a service:',
    ]);
    // A late re-delivery of the PIN hop does not rewind, and the PIN was checked once.
    expect((await engine.handleHop(hop(sid, '7*2468'))).text).toBe(replies[3].text);
    const raw = h.makeStore();
    const locked = await raw.loadAndLock({ aggregator: 'africastalking', sessionId: sid }, 1000);
    if (locked.kind !== 'locked') throw new Error('expected the session');
    await raw.unlock({ aggregator: 'africastalking', sessionId: sid }, locked.token);
    expect(locked.record).toMatchObject({ lastText: '7*####*1', secretRanges: [[2, 6]] });
    expect(JSON.stringify(locked.record)).not.toContain('2468');
    if (h.redis && h.prefix) {
      const keys = await h.redis.keys(`${h.prefix}*`);
      const values = await Promise.all(
        keys.map(async (k) => ((await h.redis!.type(k)) === 'string' ? h.redis!.get(k) : '')),
      );
      expect([...keys, ...values].join('\n')).not.toContain('2468');
    }
  });

  /** Plays a dialogue (cumulative texts) and returns every reply; checks each fits the limit. */
  async function play(sessionId: string, inputs: string[], e = engine, msisdn = MSISDN) {
    const replies = [];
    let text = '';
    for (const [i, input] of [''].concat(inputs).entries()) {
      if (i > 0) text = text === '' ? input : `${text}*${input}`;
      const reply = await e.handleHop(hop(sessionId, text, msisdn));
      expect(measure(reply.text).length).toBeLessThanOrEqual(LIMIT);
      replies.push(reply);
    }
    return replies;
  }

  it('plays a dialogue to its end: menu, free text, END', async () => {
    const [menu, prompt, done] = await play('s1', ['2', 'Thabo']);
    // A menu is marked as waiting for an option number; a free-text prompt is not.
    expect(menu).toEqual({ end: false, choice: true, text: expect.stringContaining('1 Slow lookup') });
    expect(menu.text).toContain(locales.t('en', 'menu.title'));
    expect(prompt).toEqual({ end: false, text: expect.stringContaining('Enter your name:') });
    expect(done).toEqual({ end: true, text: 'Hello Thabo' });
  });

  it('keeps a typed * inside the input (prefix, not split)', async () => {
    const replies = await play('s-star', ['2', '*12*']);
    expect(replies[2]).toEqual({ end: true, text: 'Hello *12*' });
  });

  it('answers a re-delivered hop with the stored reply and runs nothing again', async () => {
    lookup.resolve('42');
    const [, result] = await play('s2', ['1']);
    expect(result.text).toContain('Result: 42');
    expect(services.lookups).toBe(1);
    expect(await engine.handleHop(hop('s2', '1'))).toEqual(result);
    expect(services.lookups).toBe(1);
    // A late copy of an earlier hop does not rewind the dialogue: the current screen, nothing run.
    expect(await engine.handleHop(hop('s2', ''))).toEqual(result);
    expect(services.lookups).toBe(1);
    expect((await engine.handleHop(hop('s2', '1*0'))).text).toContain('Slow lookup');
  });

  it("a hop its adapter marks repeat (Comviva's empty input) gets the stored reply, and the dialogue goes on", async () => {
    const latest = (sessionId: string, value: string, repeat = false): UssdHop => ({
      ...hop(sessionId, ''),
      aggregator: 'comviva',
      isNew: false,
      text: { kind: 'latest', value },
      ...(repeat && { repeat }),
    });
    const menu = await engine.handleHop(latest('s-rep', '384'));
    const prompt = await engine.handleHop(latest('s-rep', '2'));
    expect(prompt.end).toBe(false);
    // An empty input is not the last one (no same-input re-delivery): only the mark says so.
    expect(await engine.handleHop(latest('s-rep', '', true))).toEqual(prompt);
    expect(await engine.handleHop(latest('s-rep', 'Neo'))).toEqual({ end: true, text: 'Hello Neo' });
    // Without a record, the repeat of a start is the start: a fresh menu.
    expect(await engine.handleHop(latest('s-rep-new', '', true))).toEqual(menu);
  });

  it('serialises two hops of one session arriving at once', async () => {
    await engine.handleHop(hop('s3', ''));
    const first = engine.handleHop(hop('s3', '1'));
    const second = engine.handleHop(hop('s3', '1'));
    await store.whenBusy(); // one hop holds the lock inside the slow lookup, the other waits
    lookup.resolve('7');
    const [a, b] = await Promise.all([first, second]);
    expect(a).toEqual(b);
    expect(a.text).toContain('Result: 7');
    expect(services.lookups).toBe(1);
    // State is consistent: back from the result goes to the menu.
    expect((await engine.handleHop(hop('s3', '1*0'))).text).toContain('Slow lookup');
  });

  it('refuses a hop from another MSISDN on the same session id and changes nothing', async () => {
    await play('s4', ['2']);
    const refused = await engine.handleHop(hop('s4', '2*Mpho', '26779999999'));
    // Said as what it is: this session is over for that number (not "service unavailable").
    expect(refused).toEqual({ end: true, text: locales.t('en', 'error.sessionEnded') });
    expect(await engine.handleHop(hop('s4', '2*Thabo'))).toEqual({ end: true, text: 'Hello Thabo' });
  });

  it('paginates a 15-option menu with 98 / 0, maps numbers globally, goes back and home', async () => {
    const [, page1] = await play('s5', ['3']);
    expect(page1.text).toContain('1 Option number 1');
    expect(page1.text).toContain('98 ');
    const page2 = await engine.handleHop(hop('s5', '3*98'));
    expect(page2.text).not.toContain('1 Option number 1 ');
    expect(page2.text).toMatch(/^0 /m);
    const backToPage1 = await engine.handleHop(hop('s5', '3*98*0'));
    expect(backToPage1.text).toEqual(page1.text);
    // Walk to the last page, then choose option 15 there.
    let text = '3*98*0';
    let reply = backToPage1;
    for (let i = 0; i < 10 && !reply.text.includes('15 Option'); i++) {
      text += '*98';
      reply = await engine.handleHop(hop('s5', text));
      expect(measure(reply.text).length).toBeLessThanOrEqual(LIMIT);
    }
    expect(reply.text).toContain('15 Option number 15');
    const picked = await engine.handleHop(hop('s5', `${text}*15`));
    expect(picked.text).toContain('Picked item:15');
    // 0 on a one-page screen is BACK (to the list, page 1), 0 again back to the menu, 00 home.
    expect((await engine.handleHop(hop('s5', `${text}*15*0`))).text).toEqual(page1.text);
    expect((await engine.handleHop(hop('s5', `${text}*15*0*0`))).text).toContain('Slow lookup');
    await engine.handleHop(hop('s5', `${text}*15*0*0*3`));
    expect((await engine.handleHop(hop('s5', `${text}*15*0*0*3*00`))).text).toContain('Slow lookup');
  });

  it('an invalid choice on page 2 of a list redraws page 2, not page 1', async () => {
    const [, page1] = await play('s5b', ['3']);
    const page2 = await engine.handleHop(hop('s5b', '3*98'));
    expect(page2.text).not.toEqual(page1.text);
    const again = await engine.handleHop(hop('s5b', '3*98*99'));
    expect(again).toEqual(page2);
    // Its options still answer by their global numbers, and 0 still goes to page 1.
    expect((await engine.handleHop(hop('s5b', '3*98*99*0'))).text).toEqual(page1.text);
  });

  it('turns a slow machine into its retry screen with TIMEOUT within the budget', async () => {
    engine = build({ hopBudgetMs: 600 });
    const [, retry] = await play('s6', ['1']);
    expect(retry).toEqual({ end: false, choice: true, text: expect.stringContaining('Try again') });
    lookup.resolve('9');
    expect((await engine.handleHop(hop('s6', '1*1'))).text).toContain('Result: 9');
  });

  it('answers a polite retry screen when the machine does not settle at all; the session stays usable', async () => {
    engine = build({ hopBudgetMs: 600 });
    const [menu, stuck] = await play('s7', ['4']);
    expect(stuck.end).toBe(false);
    expect(stuck.text).toContain(locales.t('en', 'error.timeout'));
    expect(stuck.text).toContain('Slow lookup'); // the previous screen again
    expect(menu.end).toBe(false);
    expect(await engine.handleHop(hop('s7', '4*2'))).toEqual({
      end: false,
      text: expect.stringContaining('Enter your name:'),
    });
    expect(await engine.handleHop(hop('s7', '4*2*Neo'))).toEqual({ end: true, text: 'Hello Neo' });
  });

  it('a store that does not answer: the hop still answers within its budget, without waiting for the save', async () => {
    engine = build({ hopBudgetMs: 600 });
    await engine.handleHop(hop('s20', ''));
    const hanging = deferred<never>();
    // Redis restarting: the save never comes back (under the lock, or in one round trip).
    store.saveAndUnlock = () => hanging.promise;
    store.saveIfCurrent = () => hanging.promise;
    const reply = await engine.handleHop(hop('s20', '5'));
    expect(reply).toEqual({ end: true, text: locales.t('en', 'error.hopInterrupted') });
  });

  it('a store error is not a bad snapshot: the dialogue is kept, not reset to a fresh menu', async () => {
    await play('s21', ['2']);
    const { saveAndUnlock, saveIfCurrent } = store;
    let failures = 0;
    const fail = async (): Promise<never> => {
      failures += 1;
      throw new Error('Connection is closed (test)');
    };
    store.saveAndUnlock = fail;
    store.saveIfCurrent = fail;
    const interrupted = await engine.handleHop(hop('s21', '2*Neo'));
    expect(interrupted).toEqual({ end: true, text: locales.t('en', 'error.hopInterrupted') });
    // One save attempt: no fresh dialogue was started (and saved) in its place.
    expect(failures).toBe(1);
    Object.assign(store, { saveAndUnlock, saveIfCurrent });
    expect(await engine.handleHop(hop('s21', '2*Neo'))).toEqual({ end: true, text: 'Hello Neo' });
  });

  it('a hop whose dialogue record is gone (Redis flushed) gets the polite END, not a fresh menu', async () => {
    // The aggregator's text says two inputs were answered; the store has no record of them.
    const lost = await engine.handleHop(hop('s-lost', '2*Neo'));
    expect(lost).toEqual({ end: true, text: locales.t('en', 'error.hopInterrupted') });
    // Nothing saved in its place: the next hop of that session is answered the same way.
    expect(await engine.handleHop(hop('s-lost', '2*Neo*1'))).toEqual(lost);
    // A latest-input hop cannot tell a lost dialogue from a new one: it starts afresh.
    const latest = await engine.handleHop({ ...hop('s-latest', ''), text: { kind: 'latest', value: '2' } });
    expect(latest.text).toContain(locales.t('en', 'menu.title'));
  });

  it('a lock lost before the save (Redis flushed under the hop): the polite END, never "try again"', async () => {
    lookup.resolve('42');
    await engine.handleHop(hop('s-flush', ''));
    // The service call (a Buy) runs; its record cannot be saved: the lock is gone with the data.
    store.saveAndUnlock = async () => false;
    const reply = await engine.handleHop(hop('s-flush', '1'));
    expect(services.lookups).toBe(1);
    expect(reply).toEqual({ end: true, text: locales.t('en', 'error.hopInterrupted') });
  });

  it('remembers a language change for the caller and uses it in the next session', async () => {
    const [, tn, bye] = await play('s8', ['5', '6']);
    expect(tn.text).toContain(locales.t('tn', 'menu.title'));
    expect(bye.end).toBe(true);
    const next = await engine.handleHop(hop('s8b', '', MSISDN));
    expect(next.text).toContain(locales.t('tn', 'menu.title'));
    const other = await engine.handleHop(hop('s8c', '', '26770000001'));
    expect(other.text).toContain(locales.t('en', 'menu.title'));
  });

  it('offers to resume a dialogue that dropped mid-way (no end notification), and continues it', async () => {
    await play('s9', ['2']); // at the name prompt, then the network drops
    const [offer] = await play('s9b', []);
    expect(offer.text).toContain(locales.t('en', 'resume.prompt'));
    const resumed = await engine.handleHop(hop('s9b', '1'));
    expect(resumed.text).toContain('Enter your name:');
    expect(await engine.handleHop(hop('s9b', '1*Kagiso'))).toEqual({ end: true, text: 'Hello Kagiso' });
    // The old dialogue was moved: a third session gets no offer.
    expect((await engine.handleHop(hop('s9c', ''))).text).not.toContain(locales.t('en', 'resume.prompt'));
  });

  it('resumes after an Incomplete end notification; start over gives the menu; Success is not resumable', async () => {
    await play('s10', ['2']);
    expect(
      await engine.endSession({
        aggregator: 'africastalking',
        sessionId: 's10',
        msisdn: MSISDN,
        status: 'incomplete',
      }),
    ).toBe('ended');
    // A late hop on the ended session does not resurrect it, and says the session has ended.
    expect(await engine.handleHop(hop('s10', '2*Late'))).toEqual({
      end: true,
      text: locales.t('en', 'error.sessionEnded'),
    });
    const [offer, fresh] = await play('s10b', ['2']);
    expect(offer.text).toContain(locales.t('en', 'resume.prompt'));
    expect(fresh.text).toContain('Slow lookup');

    await play('s11', ['2']);
    await engine.endSession({
      aggregator: 'africastalking',
      sessionId: 's11',
      msisdn: MSISDN,
      status: 'completed',
    });
    expect((await engine.handleHop(hop('s11b', ''))).text).toContain('Slow lookup');
  });

  it('ignores an end notification from another MSISDN', async () => {
    await play('s12', ['2']);
    expect(
      await engine.endSession({
        aggregator: 'africastalking',
        sessionId: 's12',
        msisdn: '26770000002',
        status: 'completed',
      }),
    ).toBe('ignored');
    expect(await engine.handleHop(hop('s12', '2*Neo'))).toEqual({ end: true, text: 'Hello Neo' });
  });

  it('starts a fresh menu when the stored snapshot is of another machine version', async () => {
    await play('s13', ['2']);
    const upgraded = build({ machineVersion: 'test-2' });
    const reply = await upgraded.handleHop(hop('s13', '2*Neo'));
    expect(reply).toEqual({ end: false, choice: true, text: expect.stringContaining('Slow lookup') });
    expect(await upgraded.handleHop(hop('s13', '2*Neo*2'))).toEqual({
      end: false,
      text: expect.stringContaining('Enter your name:'),
    });
  });

  it('stores the shared context once per content, apart from each snapshot', async () => {
    await play('s15', ['2']);
    await play('s16', ['3'], engine, '26771234500');
    const records = await Promise.all(
      ['s15', 's16'].map((sessionId) => store.peek({ aggregator: 'africastalking', sessionId })),
    );
    const hashes = records.map((r) => r?.shared);
    expect(hashes[0]).toMatch(/^[\w-]{22}$/);
    expect(hashes[1]).toBe(hashes[0]);
    for (const record of records) {
      expect(record?.snapshot).toMatchObject({ context: { result: '' } });
      expect(JSON.stringify(record?.snapshot)).not.toContain('shelf');
    }
    expect(JSON.parse((await store.getShared(hashes[0]!))!)).toEqual({
      shelf: { greeting: 'Hello', items: expect.arrayContaining(['item:1', 'item:15']) },
    });
    // Another process (nothing cached) continues from the stored part.
    expect(await build().handleHop(hop('s15', '2*Mpho'))).toEqual({ end: true, text: 'Hello Mpho' });
  });

  it('a dialogue whose shared context part is gone from the store starts afresh', async () => {
    await play('s17', ['2']);
    store.sharedGone = true;
    const other = build(); // another process: the part is in neither its memory nor the store
    const reply = await other.handleHop(hop('s17', '2*Neo'));
    expect(reply).toEqual({ end: false, choice: true, text: expect.stringContaining('Slow lookup') });
    store.sharedGone = false;
    // The process that wrote it still has it: its dialogues go on.
    await play('s18', ['2']);
    expect(await engine.handleHop(hop('s18', '2*Neo'))).toEqual({ end: true, text: 'Hello Neo' });
  });

  it('keeps only what replay needs once final', async () => {
    await play('s14', ['6']);
    const lock = await store.loadAndLock({ aggregator: 'africastalking', sessionId: 's14' }, 1000);
    expect(lock).toMatchObject({
      kind: 'locked',
      record: { status: 'final', snapshot: null, optionIds: [], lastReply: { end: true, text: 'Goodbye' } },
    });
  });
});

describe('a hop that calls no service: one round trip on a remembered record', () => {
  const ref = (sessionId: string): SessionRef => ({ aggregator: 'africastalking', sessionId });
  let first: ReturnType<typeof testRedis>;
  let second: ReturnType<typeof testRedis>;
  let services: TestServices;
  let lookup: ReturnType<typeof deferred<string>>;
  beforeEach(() => {
    first = testRedis();
    second = testRedis();
    lookup = deferred<string>();
    services = { lookups: 0, lookup: () => lookup.promise, never: () => new Promise(() => undefined) };
  });
  afterEach(async () => {
    await deleteKeysUnder(first.redis, first.prefix);
    await second.cleanup();
    await first.cleanup();
  });
  /** An instance of the gateway: its own engine, store and connection, on the one prefix. */
  function instance(redis: Redis) {
    const store = new RedisSessionStore(redis, first.prefix);
    const calls = { loadAndLock: 0, saveAndUnlock: 0, saveIfCurrent: 0 };
    for (const name of Object.keys(calls) as (keyof typeof calls)[]) {
      const real = store[name].bind(store) as (...args: unknown[]) => Promise<unknown>;
      (store as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        calls[name] += 1;
        return real(...args);
      };
    }
    return { engine: engineOn(store, services, { resumeWindowS: 0 }), store, calls };
  }
  const stored = async (sessionId: string) =>
    JSON.parse((await first.redis.get(sessionKeys(first.prefix, ref(sessionId)).record))!) as SessionRecord;

  it('a menu choice is saved with saveIfCurrent alone; a service call takes the lock', async () => {
    const a = instance(first.redis);
    await a.engine.handleHop(hop('q1', ''));
    expect(a.calls).toEqual({ loadAndLock: 1, saveAndUnlock: 1, saveIfCurrent: 0 });
    expect((await a.engine.handleHop(hop('q1', '2'))).text).toContain('Enter your name:');
    expect(a.calls).toEqual({ loadAndLock: 1, saveAndUnlock: 1, saveIfCurrent: 1 });
    expect(await a.engine.handleHop(hop('q1', '2*0'))).toMatchObject({
      text: expect.stringContaining('Slow lookup'),
    });
    expect(a.calls.saveIfCurrent).toBe(2);
    // The lookup is a service: never called without the lock.
    lookup.resolve('42');
    expect((await a.engine.handleHop(hop('q1', '2*0*1'))).text).toContain('Result: 42');
    expect(a.calls).toEqual({ loadAndLock: 2, saveAndUnlock: 2, saveIfCurrent: 2 });
    expect(services.lookups).toBe(1);
    expect(await stored('q1')).toMatchObject({ hops: 4, lastText: '2*0*1', status: 'active' });
  });

  it('a hop that calls a service is stepped once: what was decided on the remembered record runs under the lock', async () => {
    const a = instance(first.redis);
    await a.engine.handleHop(hop('q5', ''));
    lookup.resolve('7');
    expect((await a.engine.handleHop(hop('q5', '1'))).text).toContain('Result: 7');
    expect(a.calls).toEqual({ loadAndLock: 2, saveAndUnlock: 2, saveIfCurrent: 0 });
    expect(services.slowChosen).toBe(1);
  });

  it('two instances taking turns on one dialogue: a record changed by the other is never overwritten', async () => {
    const a = instance(first.redis);
    const b = instance(second.redis);
    const texts = ['', '2', '2*0', '2*0*2', '2*0*2*0', '2*0*2*0*2', '2*0*2*0*2*Mpho'];
    const replies = [];
    for (const [i, text] of texts.entries())
      replies.push(await (i % 2 ? b : a).engine.handleHop(hop('q2', text)));
    expect(replies.map((r) => r.text.split('\n')[0])).toEqual([
      'Welcome! Choose a service:',
      'Enter your name:',
      'Welcome! Choose a service:',
      'Enter your name:',
      'Welcome! Choose a service:',
      'Enter your name:',
      'Hello Mpho',
    ]);
    // Each remembered record had gone stale: every quick save found it changed and took the lock instead.
    expect(a.calls.saveIfCurrent + b.calls.saveIfCurrent).toBe(5);
    expect(a.calls.saveAndUnlock + b.calls.saveAndUnlock).toBe(7);
    expect(await stored('q2')).toMatchObject({ hops: 7, status: 'final', lastText: '2*0*2*0*2*Mpho' });
  });

  it('the same hop twice at once on one instance: the dialogue moves once, both get its answer', async () => {
    const a = instance(first.redis);
    await a.engine.handleHop(hop('q3', ''));
    const [one, two] = await Promise.all([
      a.engine.handleHop(hop('q3', '2')),
      a.engine.handleHop(hop('q3', '2')),
    ]);
    expect(one).toEqual(two);
    expect(one.text).toContain('Enter your name:');
    expect(await stored('q3')).toMatchObject({ hops: 2, lastText: '2' });
    expect((await a.engine.handleHop(hop('q3', '2*Naledi'))).text).toBe('Hello Naledi');
  });

  it('a quick hop while another hop holds the lock waits for it, and then sees its record', async () => {
    const a = instance(first.redis);
    const b = instance(second.redis);
    await a.engine.handleHop(hop('q4', ''));
    // Another instance is in the middle of a hop of the same session (it holds the lock).
    const held = await b.store.loadAndLock(ref('q4'), 5000);
    if (held.kind !== 'locked' || !held.record) throw new Error('expected the lock');
    const waiting = a.engine.handleHop(hop('q4', '2'));
    // Wait until the quick save was refused (busy) before the other hop saves its own move.
    for (let i = 0; i < 500 && a.calls.loadAndLock < 2; i++) await new Promise((r) => setImmediate(r));
    expect(a.calls.saveIfCurrent).toBe(1);
    const moved = {
      ...held.record,
      lastText: '2',
      lastRequestKey: 'c:2',
      hops: 2,
      lastReply: { text: 'From B', end: false },
    };
    expect(await b.store.saveAndUnlock(ref('q4'), held.token, moved, 60)).toBe(true);
    // The same hop, already answered by the other instance: its reply, and nothing stepped again.
    expect(await waiting).toEqual({ text: 'From B', end: false });
    expect(await stored('q4')).toMatchObject({ hops: 2, lastReply: { text: 'From B' } });
  });
});

describe('hop engine across a restart (Redis)', () => {
  it('continues a dialogue with a new engine and a new connection', async () => {
    const first = testRedis();
    const second = testRedis();
    const services: TestServices = {
      lookups: 0,
      lookup: async () => 'x',
      never: () => new Promise(() => undefined),
    };
    try {
      const engineA = engineOn(new RedisSessionStore(first.redis, first.prefix), services);
      await engineA.handleHop(hop('r1', ''));
      expect((await engineA.handleHop(hop('r1', '2'))).text).toContain('Enter your name:');
      await first.redis.quit();

      const engineB = engineOn(new RedisSessionStore(second.redis, first.prefix), services);
      expect(await engineB.handleHop(hop('r1', '2*Lesedi'))).toEqual({ end: true, text: 'Hello Lesedi' });
      const record = JSON.parse(
        (await second.redis.get(
          sessionKeys(first.prefix, { aggregator: 'africastalking', sessionId: 'r1' }).record,
        ))!,
      ) as SessionRecord;
      expect(record).toMatchObject({ status: 'final', hops: 3, msisdn: MSISDN });
      expect(
        await second.redis.ttl(
          sessionKeys(first.prefix, { aggregator: 'africastalking', sessionId: 'r1' }).record,
        ),
      ).toBeGreaterThan(0);
    } finally {
      // Clean the shared prefix through the live connection.
      await deleteKeysUnder(second.redis, first.prefix);
      await second.cleanup();
    }
  });
});
