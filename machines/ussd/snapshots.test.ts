import { USSD_MACHINE_VERSION } from '../ussd-session.machine';
import { SETTLED_TAG } from '../../src/session/dialogue';
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
      ].sort(),
    );
  });
});

describe('the persisted shape belongs to a machine version', () => {
  it('changing the context keys means bumping USSD_MACHINE_VERSION (old snapshots then start afresh)', async () => {
    const d = await play(SCRIPTS[0]!, false);
    const keys = Object.keys(d.seen[0]!.context).sort();
    // Update both together: the engine discards snapshots of another version instead of crashing on them.
    expect({ version: USSD_MACHINE_VERSION, keys }).toEqual({
      version: '4',
      keys: [
        'account',
        'agent',
        'aggregator',
        'airtimeFor',
        'amountMinor',
        'amountTries',
        'backAsked',
        'identifier',
        'identifierTries',
        'language',
        'lastError',
        'msisdn',
        'notice',
        'productType',
        'products',
        'providerCode',
        'purchaseId',
        'quote',
        'resendId',
        'screen',
        'serviceCode',
        'sessionId',
        'settings',
        'stalled',
        'startedAt',
        'tokens',
      ],
    });
  });
});
