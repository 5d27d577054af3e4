import { ALL_ADAPTER_CASES } from '../ussd/adapter-cases';
import { advantaDialer, safaricomCases } from '../../src/ussd/aggregators/safaricom/cases';
import { RUNS, startFuzzGateway, type FuzzGateway } from './harness';
import { fuzzDialogues, type FuzzedRoute } from './ussd-dialogues';

/**
 * HTTP fuzzing of every USSD aggregator route (Africa's Talking, Hubtel, Arkesel, Nalo, Comviva,
 * Infobip, Cellulant, Safaricom direct and Advanta-style, generic with a mapping) against a whole
 * gateway and its sandbox. A case is a whole dialogue in the aggregator's own format — the dial
 * (maybe on a sub-code, `*384*1#`), up to five typed inputs, maybe the hang-up — with odd session
 * ids (`{}`, `:`, `*`, newlines, unicode, huge), garbage callers and service codes, overflowing
 * amounts, and each request possibly spoilt (a field dropped or replaced, another encoding, a raw
 * body, another method, past the body limit). Properties: every request answered, never a 5xx,
 * within the hop budget; after all cases the process is healthy and the sandbox ledger unchanged
 * (no case can buy: `mayBuy`).
 */

let fuzz: FuzzGateway;
beforeAll(async () => {
  fuzz = await startFuzzGateway('USSD HTTP fuzzing');
});
afterAll(() => fuzz?.close());

const ROUTES: FuzzedRoute[] = [
  ...ALL_ADAPTER_CASES.map((c) => ({ route: c.adapter.name, dialer: c.dialer })),
  // Advanta's whole dial strings on the safaricom route.
  { route: 'safaricom', dialer: { ...safaricomCases.dialer, ...advantaDialer } },
];

it(
  'every aggregator route: whole dialogues of random and spoilt requests',
  async () => {
    const { counts, healthy } = await fuzzDialogues(fuzz, ROUTES, `USSD dialogues, ${ROUTES.length} formats`);
    expect(healthy).toBe(true);
    expect(counts.ledgerChanges).toBe(0);
    expect(counts.cases).toBeGreaterThanOrEqual(RUNS);
  },
  60_000 + RUNS * 30,
);
