import { DIAL_STRING_MAPPING, dialStringDialer } from '../../src/ussd/aggregators/generic/cases';
import { RUNS, startFuzzGateway, type FuzzGateway } from './harness';
import { fuzzDialogues } from './ussd-dialogues';

/**
 * The generic route fuzzed under a second kind of mapping (the other file fuzzes the JSON one): an
 * Advanta-style gateway's GET query with the whole dial string, stripped of the code and `#`, and
 * a `CON`/`END` text reply. The same properties as every aggregator route (ussd-dialogues.ts).
 */

let fuzz: FuzzGateway;
beforeAll(async () => {
  fuzz = await startFuzzGateway('USSD generic mapping fuzzing (dial strings)', {
    USSD_GENERIC_MAPPING: DIAL_STRING_MAPPING,
  });
});
afterAll(() => fuzz?.close());

it(
  'the generic route mapped for dial strings: whole dialogues of random and spoilt requests',
  async () => {
    const { counts, healthy } = await fuzzDialogues(
      fuzz,
      [{ route: 'generic', dialer: dialStringDialer }],
      'generic, dial-string mapping',
    );
    expect(healthy).toBe(true);
    expect(counts.ledgerChanges).toBe(0);
    expect(counts.cases).toBeGreaterThanOrEqual(RUNS);
  },
  60_000 + RUNS * 30,
);
