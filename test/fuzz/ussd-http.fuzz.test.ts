import fc from 'fast-check';
import { ALL_ADAPTER_CASES } from '../ussd/adapter-cases';
import { newDialSession, type DialRequest } from '../../src/channels/ussd/wire-cases';
import { mayBuy, mutation, oddText, phone, sessionId, typed } from './generators';
import { assertAnswered, BUDGET_MS, RUNS, startFuzzGateway, type FuzzGateway } from './harness';
import { send } from './tally';
import { encodePathSegment, spoil } from './wire';

/**
 * HTTP fuzzing of every USSD aggregator route (Africa's Talking, Hubtel, Arkesel, Nalo, Comviva,
 * Infobip, Cellulant, Safaricom, generic with a mapping) against a whole gateway and its
 * sandbox. A case is a whole dialogue in the aggregator's own format — the dial, up to five
 * typed inputs, maybe the hang-up — with odd session ids (`{}`, `:`, `*`, newlines, unicode,
 * huge), garbage callers and service codes, overflowing amounts, and each request possibly
 * spoilt (a field dropped or replaced, another encoding, a raw body, another method, past the
 * body limit). Properties: every request answered, never a 5xx, within the hop budget; after
 * all cases the process is healthy and the sandbox ledger unchanged (no case can buy: `mayBuy`).
 */

let fuzz: FuzzGateway;
beforeAll(async () => {
  fuzz = await startFuzzGateway('USSD HTTP fuzzing');
});
afterAll(() => fuzz?.close());

const dialogue = fc
  .record({
    adapter: fc.nat(ALL_ADAPTER_CASES.length - 1),
    sessionId,
    msisdn: phone,
    serviceCode: fc.oneof({ weight: 4, arbitrary: fc.constant('*384*1#') }, oddText),
    inputs: fc.array(typed, { maxLength: 5 }),
    mutations: fc.array(mutation, { minLength: 7, maxLength: 7 }),
    hangUp: fc.boolean(),
  })
  .filter((c) => !mayBuy(c));

it(
  'every aggregator route: whole dialogues of random and spoilt requests',
  async () => {
    const counts = fuzz.counts(`USSD dialogues, ${ALL_ADAPTER_CASES.length} aggregators`);
    const before = await fuzz.transactions();
    await fc.assert(
      fc.asyncProperty(dialogue, async (c) => {
        counts.cases += 1;
        const { adapter, dialer } = ALL_ADAPTER_CASES[c.adapter];
        const session = newDialSession(c.sessionId, c.msisdn, c.serviceCode);
        const hop = async (r: DialRequest) => {
          const sent = spoil(
            { ...r, path: encodePathSegment(r.path, c.sessionId) },
            c.mutations[session.hops],
          );
          sent.path = `/ussd/${adapter.name}${sent.path}`;
          const answer = await send(fuzz.gateway.url, sent, counts, BUDGET_MS);
          assertAnswered(answer, () => `${sent.method} ${sent.path.slice(0, 200)}`);
          session.hops += 1;
        };
        await hop(dialer.start(session));
        for (const input of c.inputs) {
          await hop(dialer.next(session, input));
          session.inputs.push(input);
        }
        if (c.hangUp && dialer.hangUp) await hop(dialer.hangUp(session));
      }),
      { numRuns: RUNS },
    );
    counts.ledgerChanges = (await fuzz.transactions()) - before;
    expect(await fuzz.healthy()).toBe(true);
    expect(counts.ledgerChanges).toBe(0);
    expect(counts.cases).toBeGreaterThanOrEqual(RUNS);
  },
  60_000 + RUNS * 30,
);
