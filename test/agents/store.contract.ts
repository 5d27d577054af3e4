import { randomBytes, scryptSync } from 'node:crypto';
import { AgentExistsError, AgentInputError, AgentPins, AgentRegistry } from '../../src/agents';
import type { AgentStore } from '../../src/agents/store';
import { FAST_SCRYPT, frozenClock, MINUTE } from './helpers';

const AGENT = '26771234567';

/** One behaviour for every AgentStore, seen through the registry and the PINs: run by store.sql.test.ts on PostgreSQL and PGlite. */
export function agentStoreContract(name: string, makeStore: () => Promise<AgentStore>): void {
  describe(`${name} agent store contract`, () => {
    let store: AgentStore;
    let time: ReturnType<typeof frozenClock>;
    let registry: AgentRegistry;
    let pins: AgentPins;

    beforeEach(async () => {
      store = await makeStore();
      time = frozenClock();
      const settings = {
        store,
        timeZone: 'Africa/Gaborone',
        region: 'BW' as const,
        clock: time.clock,
        scrypt: FAST_SCRYPT,
      };
      registry = new AgentRegistry(settings);
      pins = new AgentPins(settings);
    });

    async function addAgent(msisdn = AGENT) {
      return registry.add({ msisdn, name: 'Kgosi Stores', funding: { kind: 'float' } });
    }

    /** Wrong PIN `times` times; the outcomes. */
    async function wrong(times: number) {
      const outcomes = [];
      for (let i = 0; i < times; i += 1) outcomes.push(await pins.verifyPin(AGENT, '000111'));
      return outcomes;
    }

    it('registers an agent from a national number, with a one-time PIN, and never hands out the hash', async () => {
      const { agent, oneTimePin } = await registry.add({
        msisdn: '71234567',
        name: '  Kgosi Stores ',
        language: 'tn',
        funding: { kind: 'account', debitedAccountId: 1002 },
        limits: { maxSaleMinor: 50_000 },
      });
      expect(oneTimePin).toMatch(/^\d{6}$/);
      expect(agent).toEqual({
        msisdn: AGENT,
        name: 'Kgosi Stores',
        language: 'tn',
        status: 'active',
        disabledReason: null,
        failedAttempts: 0,
        lockedUntil: null,
        lockoutDay: null,
        lockoutsToday: 0,
        mustChangePin: true,
        funding: { kind: 'account', debitedAccountId: 1002 },
        limits: { maxSaleMinor: 50_000 },
        createdAt: '2026-11-23T06:00:00.000Z',
        updatedAt: '2026-11-23T06:00:00.000Z',
      });
      expect(await registry.get(AGENT)).toEqual(agent);
      expect(await registry.get('26770000000')).toBeNull();
      const stored = await store.get(AGENT);
      expect(stored!.pin).toEqual({
        hash: expect.any(String),
        salt: expect.any(String),
        params: { ...FAST_SCRYPT, pepper: true },
        version: 1,
      });
      expect(JSON.stringify(stored)).not.toContain(oneTimePin);
    });

    it('refuses a taken MSISDN and bad input, naming the field, and writes nothing', async () => {
      await addAgent();
      await expect(addAgent('+267 71 234 567')).rejects.toBeInstanceOf(AgentExistsError);
      const bad = (input: object) =>
        registry.add({ msisdn: '26772000001', name: 'X', funding: { kind: 'float' }, ...input } as never);
      await expect(bad({ msisdn: '12' })).rejects.toMatchObject({ field: 'msisdn' });
      await expect(bad({ name: ' ' })).rejects.toMatchObject({ field: 'name' });
      await expect(bad({ language: 'English' })).rejects.toMatchObject({ field: 'language' });
      await expect(bad({ funding: { kind: 'account', debitedAccountId: 0 } })).rejects.toMatchObject({
        field: 'debitedAccountId',
      });
      await expect(bad({ funding: { kind: 'cash' } })).rejects.toBeInstanceOf(AgentInputError);
      await expect(bad({ limits: { maxDayCount: 1.5 } })).rejects.toMatchObject({ field: 'maxDayCount' });
      expect((await registry.list()).map((a) => a.msisdn)).toEqual([AGENT]);
    });

    it('lists agents oldest first with limit and offset', async () => {
      for (const [i, msisdn] of ['26771000003', '26771000001', '26771000002'].entries()) {
        time.set(`2026-11-23T06:00:0${i}.000Z`);
        await addAgent(msisdn);
      }
      expect((await registry.list()).map((a) => a.msisdn)).toEqual([
        '26771000003',
        '26771000001',
        '26771000002',
      ]);
      expect((await registry.list({ limit: 1, offset: 1 })).map((a) => a.msisdn)).toEqual(['26771000001']);
    });

    it('accepts the right PIN, counts wrong ones, and locks for 15 minutes after the third', async () => {
      const { oneTimePin } = await addAgent();
      expect(await pins.verifyPin(AGENT, oneTimePin)).toEqual({
        status: 'ok',
        mustChangePin: true,
        pinVersion: 1,
      });
      expect(await wrong(2)).toEqual([
        { status: 'wrong', attemptsLeft: 2 },
        { status: 'wrong', attemptsLeft: 1 },
      ]);
      const until = new Date(time.now().getTime() + 15 * MINUTE);
      expect(await pins.verifyPin(AGENT, '000111')).toEqual({ status: 'locked', until });
      expect(await registry.get(AGENT)).toMatchObject({
        status: 'locked',
        lockedUntil: until.toISOString(),
        lockoutsToday: 1,
        failedAttempts: 0,
      });
      // Locked: even the right PIN is refused, and nothing is counted.
      time.advance(15 * MINUTE - 1);
      expect(await pins.verifyPin(AGENT, oneTimePin)).toEqual({ status: 'locked', until });
      time.advance(1);
      expect((await registry.get(AGENT))!.status).toBe('active');
      expect(await pins.verifyPin(AGENT, oneTimePin)).toMatchObject({ status: 'ok' });
    });

    it('a right PIN clears the wrong ones', async () => {
      const { oneTimePin } = await addAgent();
      await wrong(2);
      await pins.verifyPin(AGENT, oneTimePin);
      expect(await wrong(2)).toEqual([
        { status: 'wrong', attemptsLeft: 2 },
        { status: 'wrong', attemptsLeft: 1 },
      ]);
    });

    it('doubles the second lockout of the day and disables the agent at the third', async () => {
      const { oneTimePin } = await addAgent();
      await wrong(3);
      time.advance(15 * MINUTE);
      const second = await wrong(3);
      expect(second[2]).toEqual({ status: 'locked', until: new Date(time.now().getTime() + 30 * MINUTE) });
      time.advance(30 * MINUTE);
      expect(await wrong(3)).toEqual([
        { status: 'wrong', attemptsLeft: 2 },
        { status: 'wrong', attemptsLeft: 1 },
        { status: 'disabled', reason: 'lockouts' },
      ]);
      time.advance(24 * 60 * MINUTE);
      expect(await pins.verifyPin(AGENT, oneTimePin)).toEqual({ status: 'disabled', reason: 'lockouts' });
      expect(await registry.get(AGENT)).toMatchObject({ status: 'disabled', disabledReason: 'lockouts' });

      // Only an operator brings it back: a fresh one-time PIN clears the lockouts.
      const reset = await pins.resetPin(AGENT);
      expect(reset.agent).toMatchObject({ status: 'active', lockoutsToday: 0, mustChangePin: true });
      expect(await pins.verifyPin(AGENT, oneTimePin)).toMatchObject({ status: 'wrong' });
      expect(await pins.verifyPin(AGENT, reset.oneTimePin)).toEqual({
        status: 'ok',
        mustChangePin: true,
        pinVersion: 2,
      });
    });

    it('counts lockouts per local day (Africa/Gaborone): the next day starts again at 15 minutes', async () => {
      await addAgent();
      time.set('2026-11-23T21:00:00.000Z'); // 23:00 in Gaborone
      await wrong(3);
      time.set('2026-11-23T21:20:00.000Z');
      const [, , secondLock] = await wrong(3);
      expect(secondLock).toEqual({ status: 'locked', until: new Date('2026-11-23T21:50:00.000Z') });
      time.set('2026-11-23T22:00:00.000Z'); // 00:00 on the 24th in Gaborone
      const [, , nextDay] = await wrong(3);
      expect(nextDay).toEqual({ status: 'locked', until: new Date('2026-11-23T22:15:00.000Z') });
      expect(await registry.get(AGENT)).toMatchObject({ lockoutDay: '2026-11-24', lockoutsToday: 1 });
    });

    it('counts concurrent wrong PINs (USSD and SMS at once) exactly: one lockout, never more', async () => {
      await addAgent();
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => pins.verifyPin(AGENT, '000111')));
      expect(outcomes.filter((o) => o.status === 'wrong')).toHaveLength(2);
      expect(outcomes.filter((o) => o.status === 'locked')).toHaveLength(8);
      expect(await registry.get(AGENT)).toMatchObject({
        status: 'locked',
        lockoutsToday: 1,
        failedAttempts: 0,
      });
    });

    it('changes a PIN in one step: the old one counts, the new one is checked', async () => {
      const { oneTimePin } = await addAgent();
      expect(await pins.changePin(AGENT, oneTimePin, '1234')).toEqual({
        status: 'invalid',
        problem: 'weak',
      });
      expect(await pins.changePin(AGENT, oneTimePin, '12a4')).toEqual({
        status: 'invalid',
        problem: 'format',
      });
      expect(await pins.changePin(AGENT, oneTimePin, oneTimePin)).toEqual({
        status: 'invalid',
        problem: 'same',
      });
      expect((await registry.get(AGENT))!.failedAttempts).toBe(0);
      expect(await pins.changePin(AGENT, '000111', '482913')).toEqual({
        status: 'wrong',
        attemptsLeft: 2,
      });
      expect(await pins.changePin(AGENT, oneTimePin, '482913')).toEqual({ status: 'changed' });
      expect(await registry.get(AGENT)).toMatchObject({ mustChangePin: false, failedAttempts: 0 });
      expect(await pins.verifyPin(AGENT, oneTimePin)).toMatchObject({ status: 'wrong' });
      expect(await pins.verifyPin(AGENT, '482913')).toEqual({
        status: 'ok',
        mustChangePin: false,
        pinVersion: 2,
      });
    });

    it('changes a PIN over several screens, keeping only a hash of the new one', async () => {
      const { oneTimePin } = await addAgent();
      const check = await pins.verifyPin(AGENT, oneTimePin);
      if (check.status !== 'ok') throw new Error('expected ok');
      expect(await pins.newPinCandidate(AGENT, oneTimePin)).toEqual({ ok: false, problem: 'same' });
      const prepared = await pins.newPinCandidate(AGENT, '582914');
      if (!prepared.ok) throw new Error('expected a candidate');
      expect(JSON.stringify(prepared.candidate)).not.toContain('582914');
      expect(await pins.candidateMatches(prepared.candidate, '582915')).toBe(false);
      expect(await pins.candidateMatches(prepared.candidate, '582914')).toBe(true);
      // An operator reset in between makes the check stale: nothing is written.
      const reset = await pins.resetPin(AGENT);
      expect(await pins.setNewPin(AGENT, prepared.candidate, check.pinVersion)).toEqual({
        status: 'stale',
      });
      const again = await pins.verifyPin(AGENT, reset.oneTimePin);
      if (again.status !== 'ok') throw new Error('expected ok');
      expect(await pins.setNewPin(AGENT, prepared.candidate, again.pinVersion)).toEqual({
        status: 'changed',
      });
      expect(await pins.verifyPin(AGENT, '582914')).toMatchObject({ status: 'ok', mustChangePin: false });
    });

    it('disables (operator, BLOCK) and enables; a reset PIN does not lift a disable it did not cause', async () => {
      const { oneTimePin } = await addAgent();
      await wrong(2);
      expect(await registry.disable(AGENT, 'blocked')).toMatchObject({
        status: 'disabled',
        disabledReason: 'blocked',
      });
      expect(await pins.verifyPin(AGENT, oneTimePin)).toEqual({ status: 'disabled', reason: 'blocked' });
      const reset = await pins.resetPin(AGENT);
      expect(reset.agent).toMatchObject({ status: 'disabled', disabledReason: 'blocked' });
      expect(await registry.enable(AGENT)).toMatchObject({
        status: 'active',
        disabledReason: null,
        failedAttempts: 0,
      });
      expect(await pins.verifyPin(AGENT, reset.oneTimePin)).toMatchObject({ status: 'ok' });
      await expect(registry.disable('26770000000')).rejects.toMatchObject({ name: 'AgentNotFoundError' });
      expect(await pins.verifyPin('26770000000', '1234')).toEqual({ status: 'not_agent' });
    });

    it('re-hashes a PIN with raised parameters at its next right entry', async () => {
      const { oneTimePin } = await addAgent();
      const raised = { ...FAST_SCRYPT, N: 2048 };
      const stronger = new AgentPins({
        store,
        timeZone: 'Africa/Gaborone',
        clock: time.clock,
        scrypt: raised,
      });
      expect(await stronger.verifyPin(AGENT, oneTimePin)).toEqual({
        status: 'ok',
        mustChangePin: true,
        pinVersion: 2,
      });
      expect((await store.get(AGENT))!.pin).toMatchObject({ params: raised, version: 2 });
      expect(await pins.verifyPin(AGENT, oneTimePin)).toMatchObject({ status: 'ok' });
    });

    it('verifies a hash made before the PIN secret and re-hashes it with the secret at the next right entry', async () => {
      await addAgent();
      // The first scheme: scrypt of the PIN itself, with the salt (no pepper in the parameters).
      const salt = randomBytes(16);
      const { N, r, p, keyLen } = FAST_SCRYPT;
      const old = {
        hash: scryptSync('480273', salt, keyLen, { N, r, p }).toString('base64'),
        salt: salt.toString('base64'),
      };
      await store.setPin(AGENT, {
        pin: { ...old, params: FAST_SCRYPT },
        mustChangePin: false,
        expectedVersion: null,
        reset: true,
        now: time.clock(),
      });
      const version = (await store.get(AGENT))!.pin.version;
      expect(await pins.verifyPin(AGENT, '480274')).toMatchObject({ status: 'wrong' });
      expect(await pins.verifyPin(AGENT, '480273')).toMatchObject({
        status: 'ok',
        pinVersion: version + 1,
      });
      const pin = (await store.get(AGENT))!.pin;
      expect(pin.params).toEqual({ ...FAST_SCRYPT, pepper: true });
      expect(pin.hash).not.toBe(old.hash);
      expect(await pins.verifyPin(AGENT, '480273')).toMatchObject({ status: 'ok' });
    });
  });
}
