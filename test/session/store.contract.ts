import type { SessionRecord, SessionStore } from '../../src/ussd/engine/store';

export const ref = { aggregator: 'africastalking', sessionId: 'ATUid_1' };
const now = Date.now();

export function record(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    machineVersion: 'v1',
    snapshot: { value: 'menu', context: { n: 1 } },
    msisdn: '26771234567',
    serviceCode: '*384#',
    lastText: '1',
    lastRequestKey: 'c:1',
    lastReply: { text: 'Enter amount:', end: false },
    page: 1,
    pages: 2,
    optionIds: ['a', 'b'],
    language: 'en-BW',
    status: 'active',
    hops: 2,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

/** One behaviour for every SessionStore: run by store.memory.test.ts and store.redis.test.ts. */
export function sessionStoreContract(name: string, makeStore: () => Promise<SessionStore>): void {
  describe(`${name} session store contract`, () => {
    let store: SessionStore;
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    it('keeps a shared context part by hash, and names none it was not given', async () => {
      expect(await store.getShared('h1')).toBeNull();
      await store.putShared('h1', '{"products":[1]}', 60);
      await store.putShared('h2', '{"products":[2]}', 60);
      expect(await store.getShared('h1')).toBe('{"products":[1]}');
      expect(await store.getShared('h2')).toBe('{"products":[2]}');
    });

    it('locks a new session and returns no record', async () => {
      const lock = await store.loadAndLock(ref, 5000);
      expect(lock).toMatchObject({ kind: 'locked', record: null });
    });

    it('is busy while locked, and free again after save', async () => {
      const first = await store.loadAndLock(ref, 5000);
      expect(await store.loadAndLock(ref, 5000)).toEqual({ kind: 'busy' });
      if (first.kind !== 'locked') throw new Error('expected lock');
      expect(await store.saveAndUnlock(ref, first.token, record(), 60)).toBe(true);
      const second = await store.loadAndLock(ref, 5000);
      expect(second).toMatchObject({ kind: 'locked', record: record() });
    });

    it('keeps sessions apart by aggregator and session id', async () => {
      const a = await store.loadAndLock(ref, 5000);
      const b = await store.loadAndLock({ ...ref, sessionId: 'ATUid_2' }, 5000);
      const c = await store.loadAndLock({ ...ref, aggregator: 'hubtel' }, 5000);
      expect([a.kind, b.kind, c.kind]).toEqual(['locked', 'locked', 'locked']);
    });

    it('refuses to save with a stale token and writes nothing', async () => {
      const lock = await store.loadAndLock(ref, 5000);
      if (lock.kind !== 'locked') throw new Error('expected lock');
      expect(await store.saveAndUnlock(ref, 'not-the-token', record(), 60)).toBe(false);
      expect(await store.loadAndLock(ref, 5000)).toEqual({ kind: 'busy' });
      await store.unlock(ref, lock.token);
      expect(await store.loadAndLock(ref, 5000)).toMatchObject({ kind: 'locked', record: null });
    });

    it('unlock only releases its own lock', async () => {
      const lock = await store.loadAndLock(ref, 5000);
      if (lock.kind !== 'locked') throw new Error('expected lock');
      await store.unlock(ref, 'other');
      expect(await store.loadAndLock(ref, 5000)).toEqual({ kind: 'busy' });
      await store.unlock(ref, lock.token);
      expect((await store.loadAndLock(ref, 5000)).kind).toBe('locked');
    });

    it('a lock expires by itself (a crashed hop does not block the session forever)', async () => {
      expect((await store.loadAndLock(ref, 1)).kind).toBe('locked');
      let next = await store.loadAndLock(ref, 5000);
      for (let i = 0; i < 200 && next.kind === 'busy'; i++) {
        await new Promise((r) => setTimeout(r, 5));
        next = await store.loadAndLock(ref, 5000);
      }
      expect(next.kind).toBe('locked');
    });

    it('remembers the language and the previous session per caller', async () => {
      const first = await store.startMsisdnSession('26771234567', ref, 60);
      expect(first).toEqual({ language: null, previous: null });
      // Replaying the first hop of the same session is not a "previous" session.
      expect(await store.startMsisdnSession('26771234567', ref, 60)).toEqual({
        language: null,
        previous: null,
      });
      expect(await store.getLanguage('26771234567')).toBeNull();
      await store.setLanguage('26771234567', 'tn-BW');
      expect(await store.getLanguage('26771234567')).toBe('tn-BW');
      const next = { ...ref, sessionId: 'ATUid_9' };
      expect(await store.startMsisdnSession('26771234567', next, 60)).toEqual({
        language: 'tn-BW',
        previous: ref,
      });
      expect(await store.startMsisdnSession('26770000000', next, 60)).toEqual({
        language: null,
        previous: null,
      });
    });

    describe('the record a process remembers (recall, saveIfCurrent)', () => {
      async function put(rec: SessionRecord): Promise<void> {
        const lock = await store.loadAndLock(ref, 5000);
        if (lock.kind !== 'locked') throw new Error('expected lock');
        expect(await store.saveAndUnlock(ref, lock.token, rec, 60)).toBe(true);
      }
      function recalled() {
        const known = store.recall(ref);
        if (!known) throw new Error('expected a remembered record');
        return known;
      }

      it('remembers the active record it saved, frozen, and forgets a finished one', async () => {
        expect(store.recall(ref)).toBeNull();
        await put(record());
        const known = recalled();
        expect(known.record).toEqual(record());
        expect(Object.isFrozen(known.record.lastReply)).toBe(true);
        await put(record({ status: 'final', hops: 3 }));
        expect(store.recall(ref)).toBeNull();
      });

      it('an unchanged record is not read again: loadAndLock returns the remembered one', async () => {
        await put(record());
        const known = recalled();
        const lock = await store.loadAndLock(ref, 5000);
        expect(lock).toMatchObject({ kind: 'locked' });
        expect(lock.kind === 'locked' && lock.record).toBe(known.record);
      });

      it('saves a hop computed from the remembered record in one step, without leaving a lock', async () => {
        await put(record());
        const next = record({ hops: 3, lastText: '1*2', lastRequestKey: 'c:1*2' });
        expect(await store.saveIfCurrent(ref, recalled().version, next, 60, 5000)).toEqual({ kind: 'saved' });
        expect(recalled().record).toEqual(next);
        const lock = await store.loadAndLock(ref, 5000);
        expect(lock).toMatchObject({ kind: 'locked', record: next });
      });

      it('writes nothing while a hop holds the lock', async () => {
        await put(record());
        const { version } = recalled();
        const lock = await store.loadAndLock(ref, 5000);
        if (lock.kind !== 'locked') throw new Error('expected lock');
        expect(await store.saveIfCurrent(ref, version, record({ hops: 9 }), 60, 5000)).toEqual({
          kind: 'busy',
        });
        await store.unlock(ref, lock.token);
        expect(await store.peek(ref)).toEqual(record());
      });

      it('writes nothing over a record that changed since: the caller gets the lock and the record instead', async () => {
        await put(record());
        const { version } = recalled();
        const newer = record({ hops: 3, lastText: '1*2', lastRequestKey: 'c:1*2' });
        await put(newer);
        const late = await store.saveIfCurrent(ref, version, record({ hops: 9 }), 60, 5000);
        expect(late).toMatchObject({ kind: 'locked', record: newer });
        expect(await store.loadAndLock(ref, 5000)).toEqual({ kind: 'busy' });
        if (late.kind !== 'locked') throw new Error('expected lock');
        expect(await store.saveAndUnlock(ref, late.token, record({ hops: 4 }), 60)).toBe(true);
        expect(await store.peek(ref)).toEqual(record({ hops: 4 }));
      });

      it('a record rewritten without a version (a resume tombstone) is never taken for the remembered one', async () => {
        await put(record());
        const { version } = recalled();
        expect(await store.takeResumable(ref, { minUpdatedAt: now - 1000, machineVersions: ['v1'] })).toEqual(
          record(),
        );
        const late = await store.saveIfCurrent(ref, version, record({ hops: 9 }), 60, 5000);
        expect(late).toMatchObject({ kind: 'locked', record: { status: 'moved' } });
      });

      it('an expired record is not brought back', async () => {
        await put(record());
        const { version } = recalled();
        const lock = await store.loadAndLock(ref, 5000);
        if (lock.kind !== 'locked') throw new Error('expected lock');
        expect(await store.saveAndUnlock(ref, lock.token, record(), 1)).toBe(true);
        // The remembered version is now the 1-second save's; wait for it to expire.
        const { version: shortLived } = recalled();
        for (let i = 0; i < 300 && (await store.peek(ref)) !== null; i++)
          await new Promise((r) => setTimeout(r, 10));
        expect(version).not.toBe(shortLived);
        const late = await store.saveIfCurrent(ref, shortLived, record({ hops: 9 }), 60, 5000);
        expect(late).toMatchObject({ kind: 'locked', record: null });
      });
    });

    describe('takeResumable', () => {
      async function put(rec: SessionRecord): Promise<void> {
        const lock = await store.loadAndLock(ref, 5000);
        if (lock.kind !== 'locked') throw new Error('expected lock');
        await store.saveAndUnlock(ref, lock.token, rec, 60);
      }
      const conditions = { minUpdatedAt: now - 1000, machineVersions: ['v1'] };

      it('takes an active dialogue once, leaving a tombstone that keeps the replay fields', async () => {
        await put(record());
        expect(await store.takeResumable(ref, conditions)).toEqual(record());
        expect(await store.takeResumable(ref, conditions)).toBeNull();
        const lock = await store.loadAndLock(ref, 5000);
        expect(lock).toMatchObject({
          kind: 'locked',
          record: {
            status: 'moved',
            snapshot: null,
            optionIds: [],
            msisdn: '26771234567',
            lastRequestKey: 'c:1',
            lastReply: { text: 'Enter amount:', end: false },
          },
        });
      });

      it.each([
        ['final', record({ status: 'final' })],
        ['completed', record({ status: 'completed' })],
        ['without snapshot', record({ snapshot: null })],
        ['too old', record({ updatedAt: now - 5000 })],
        ['another machine version', record({ machineVersion: 'v0' })],
      ])('refuses a dialogue that is %s', async (_label, rec) => {
        await put(rec);
        expect(await store.takeResumable(ref, conditions)).toBeNull();
      });

      it('takes a dialogue of any version the build can continue (a deploy keeps the previous one)', async () => {
        await put(record({ machineVersion: 'v0' }));
        const both = { ...conditions, machineVersions: ['v1', 'v0'] };
        expect(await store.takeResumable(ref, both)).toMatchObject({
          machineVersion: 'v0',
          status: 'active',
        });
        expect(await store.peek(ref)).toMatchObject({ machineVersion: 'v0', status: 'moved' });
      });

      it.each(['incomplete', 'failed'] as const)('takes an %s dialogue', async (status) => {
        await put(record({ status }));
        expect(await store.takeResumable(ref, conditions)).toMatchObject({ status });
      });

      it.each(['final', 'completed', 'moved'] as const)(
        'refuses a dialogue it saved as %s, however the record reads later',
        async (status) => {
          await put(record({ status }));
          expect(await store.takeResumable(ref, conditions)).toBeNull();
          expect(await store.takeResumable(ref, conditions)).toBeNull();
        },
      );

      it('refuses while a hop holds the lock, and when absent', async () => {
        expect(await store.takeResumable(ref, conditions)).toBeNull();
        await put(record());
        await store.loadAndLock(ref, 5000);
        expect(await store.takeResumable(ref, conditions)).toBeNull();
      });
    });
  });
}
