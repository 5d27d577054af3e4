import { USSD_MACHINE_VERSION } from '../ussd-session.machine';
import { SETTLED_TAG } from '../../src/ussd/engine/dialogue';
import { SCRIPTS, play } from './test-scripts';

/** Every settled state the scripts reach, as the engine would persist it. */
const settledStates = new Set<string>();

describe('snapshot round-trip at every settled state', () => {
  it.each(SCRIPTS.map((s) => [s.name, s] as const))(
    '%s continues identically after JSON restores',
    async (_n, script) => {
      const live = await play(script, false);
      const restored = await play(script, true);
      const view = (d: typeof live) =>
        d.seen.map((s) => ({
          state: s.value,
          status: s.status,
          context: s.context,
          settled: s.hasTag(SETTLED_TAG),
        }));
      expect(view(restored)).toEqual(view(live));
      expect(restored.restores).toBeGreaterThan(0);
      for (const s of live.seen) {
        settledStates.add(String(s.value));
        // The context is plain JSON: nothing lost or changed by a round trip.
        expect(JSON.parse(JSON.stringify(s.context))).toEqual(s.context);
      }
    },
  );

  afterAll(() => {
    // The scripts cover every settled state of the machine.
    expect([...settledStates].sort()).toEqual(
      [
        'airtimeFor',
        'amount',
        'cancelled',
        'done',
        'identifier',
        'language',
        'menu',
        'phone',
        'provider',
        'quote',
        'refused',
        'resent',
        'stalled',
        'tokens',
        'tooManyTries',
        'tryLater',
        'unavailable',
        // v7
        'tokenFor',
        'beneficiary',
        'inProgressAsk',
        'notAgain',
        'purchaseDetail',
        'report',
        'reported',
        'meters',
        'meter',
        'help',
      ].sort(),
    );
  });
});

describe('the persisted shape belongs to a machine version', () => {
  it('changing the context keys means bumping USSD_MACHINE_VERSION (old snapshots then start afresh)', async () => {
    const d = await play(SCRIPTS[0]!, false);
    const keys = Object.keys(d.seen[0]!.context).sort();
    // Update both together: the engine discards snapshots of another version instead of crashing on them.
    const purchaseKeys = Object.keys(d.seen[0]!.context.purchase).sort();
    expect({ version: USSD_MACHINE_VERSION, keys, purchaseKeys }).toEqual({
      version: '7',
      keys: [
        'account',
        'agent',
        'aggregator',
        'language',
        'meters',
        'msisdn',
        'notice',
        'products',
        'purchase',
        'purchaseId',
        'resendId',
        'serviceCode',
        'sessionId',
        'settings',
        'shown',
        'startedAt',
        'tokens',
      ],
      purchaseKeys: [
        'airtimeFor',
        'amountMinor',
        'amountTries',
        'backAsked',
        'identifier',
        'identifierTries',
        'lastError',
        'productType',
        'providerCode',
        'quote',
        'stalled',
      ],
    });
  });

  it('keeps the context to at most 18 fields on every screen the scripts reach', async () => {
    // XState copies the whole context on every update (Object.assign into a new object); V8
    // turns a copy with more fields than about 18 into a dictionary, and copying from one then
    // costs ~20x more. Group new fields (as `purchase` does) rather than add them at the top.
    const widest = Math.max(
      ...(await Promise.all(SCRIPTS.map((script) => play(script, false)))).flatMap((d) =>
        d.seen.map((s) => Object.keys(s.context).length),
      ),
    );
    expect(widest).toBeLessThanOrEqual(18);
  });
});
