import { AgentRegistry } from '../../src/agents';
import { SqlAgentStore } from '../../src/agents/store/sql';
import type { Database } from '../../src/records/database';
import { DialCallers } from '../../src/subscribers/caller-on-dial';
import { METERED_PRODUCTS, SqlSavedMeters } from '../../src/subscribers/saved-meters';
import { testDatabase, testPglite } from '../support/database';
import { FAST_SCRYPT, frozenClock, MINUTE } from '../agents/helpers';

/**
 * Issue 29: the dial's one read — the caller's agent row (or none) and its saved meters in one
 * statement — answers exactly what the registry and the saved meters answer apart.
 */

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 10, minute, 0, 123)).toISOString();

describe.each([
  ['postgres', () => testDatabase('caller_dial')],
  ['pglite', () => testPglite()],
] as const)('the caller on the dial, on %s', (_kind, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  const time = frozenClock('2026-11-23T06:00:00.000Z');
  let registry: AgentRegistry;
  let meters: SqlSavedMeters;
  /** Every statement sent through `callers`. */
  const sent: string[] = [];
  let callers: DialCallers;
  beforeAll(async () => {
    ({ db, cleanup } = await open());
    registry = new AgentRegistry({
      store: new SqlAgentStore(db),
      timeZone: 'Africa/Gaborone',
      region: 'BW',
      scrypt: FAST_SCRYPT,
      clock: time.clock,
    });
    meters = new SqlSavedMeters(db);
    const counted: Database = {
      ...db,
      query: (text, params) => {
        sent.push(text);
        return db.query(text, params);
      },
    };
    callers = new DialCallers(counted, METERED_PRODUCTS, time.clock);
  });
  afterAll(() => cleanup());

  it("answers a subscriber's meters as the saved meters list them, and no agent", async () => {
    const msisdn = '26771000001';
    for (let i = 1; i <= 7; i += 1)
      await meters.remember(msisdn, 'ELECTRICITY', `0100000000${i}`, `OWNER ${i}`, at(i));
    await meters.remember(msisdn, 'WATER', 'W1', null, at(3));
    await meters.remember(msisdn, 'AIRTIME', '26771000001', null, at(4));

    const caller = await callers.read(msisdn);
    expect(caller.agent).toBeNull();
    expect(caller.meters).toEqual(await meters.listOf(msisdn, METERED_PRODUCTS));
    // Five electricity, newest first, then water; no airtime (not a metered product).
    expect(caller.meters.map((m) => m.identifier)).toEqual([
      '01000000007',
      '01000000006',
      '01000000005',
      '01000000004',
      '01000000003',
      'W1',
    ]);
    expect(caller.meters[0]).toEqual({
      productType: 'ELECTRICITY',
      identifier: '01000000007',
      name: 'OWNER 7',
      lastBoughtAt: at(7),
    });
    expect(await callers.read('26771000099')).toEqual({ agent: null, meters: [] });
  });

  it('answers an agent as the registry does (no PIN hash; a lockout that ran out reads active)', async () => {
    const msisdn = '26771000002';
    await registry.add({ msisdn, name: 'Kgosi Shop', funding: { kind: 'float' } });
    await registry.setDealer(msisdn, true, 'operator');
    await meters.remember(msisdn, 'WATER', 'W9', 'OWN TAP', at(1));

    const caller = await callers.read(msisdn);
    expect(caller.agent).toEqual(await registry.get(msisdn));
    expect(caller.agent).toMatchObject({ msisdn, name: 'Kgosi Shop', dealer: true, status: 'active' });
    expect(caller.agent).not.toHaveProperty('pin');
    // Read alongside: on a code that serves no agents, an agent's number is a subscriber.
    expect(caller.meters.map((m) => m.identifier)).toEqual(['W9']);

    await db.query(`UPDATE agents SET status = 'locked', locked_until = $2 WHERE msisdn = $1`, [
      msisdn,
      new Date(time.now().getTime() + 10 * MINUTE).toISOString(),
    ]);
    expect((await callers.read(msisdn)).agent).toMatchObject({ status: 'locked' });
    time.advance(11 * MINUTE);
    expect((await callers.read(msisdn)).agent).toEqual(await registry.get(msisdn));
    expect((await callers.read(msisdn)).agent).toMatchObject({ status: 'active', lockedUntil: null });
  });

  it('asked twice at once (agent? and meters?), sends one statement; asked again later, another', async () => {
    const msisdn = '26771000003';
    await meters.remember(msisdn, 'ELECTRICITY', 'E1', null, at(1));
    sent.length = 0;
    const [first, second, other] = await Promise.all([
      callers.read(msisdn),
      callers.read(msisdn),
      callers.read('26771000004'),
    ]);
    expect(second).toBe(first);
    expect(first.meters.map((m) => m.identifier)).toEqual(['E1']);
    expect(other).toEqual({ agent: null, meters: [] });
    expect(sent).toHaveLength(2); // one per number
    await callers.read(msisdn);
    expect(sent).toHaveLength(3);
  });
});
