import fc from 'fast-check';
import { newDialSession, type DialRequest, type Dialer } from '../../src/ussd/wire-cases';
import { mayBuy, mutation, oddText, phone, sessionId, typed } from './generators';
import { assertAnswered, BUDGET_MS, RUNS, type FuzzGateway } from './harness';
import { send } from './tally';
import { encodePathSegment, spoil } from './wire';

/** One aggregator route as the fuzzing speaks to it: `/ussd/<route>` and a dialer of its format. */
export interface FuzzedRoute {
  route: string;
  dialer: Dialer;
}

/**
 * The USSD property every aggregator route is held to: whole dialogues in the route's format —
 * the dial (maybe with a sub-code), up to five typed inputs, maybe the hang-up — with odd session
 * ids, garbage callers and service codes, each request possibly spoilt; every request answered,
 * never a 5xx, within the hop budget; after all cases the process healthy and the ledger unchanged.
 */
export async function fuzzDialogues(fuzz: FuzzGateway, routes: readonly FuzzedRoute[], title: string) {
  const dialogue = fc
    .record({
      route: fc.nat(routes.length - 1),
      sessionId,
      msisdn: phone,
      serviceCode: fc.oneof({ weight: 4, arbitrary: fc.constant('*384*1#') }, oddText),
      extension: fc.option(fc.oneof(typed, oddText), { freq: 4 }),
      inputs: fc.array(typed, { maxLength: 5 }),
      mutations: fc.array(mutation, { minLength: 7, maxLength: 7 }),
      hangUp: fc.boolean(),
    })
    // `mayBuy` reads every string of the case, the sub-code's too.
    .filter((c) => !mayBuy(c));

  const counts = fuzz.counts(title);
  const before = await fuzz.transactions();
  await fc.assert(
    fc.asyncProperty(dialogue, async (c) => {
      counts.cases += 1;
      const { route, dialer } = routes[c.route];
      const session = newDialSession(c.sessionId, c.msisdn, c.serviceCode);
      const hop = async (r: DialRequest) => {
        const sent = spoil({ ...r, path: encodePathSegment(r.path, c.sessionId) }, c.mutations[session.hops]);
        sent.path = `/ussd/${route}${sent.path}`;
        const answer = await send(fuzz.gateway.url, sent, counts, BUDGET_MS);
        assertAnswered(answer, () => `${sent.method} ${sent.path.slice(0, 200)}`);
        session.hops += 1;
      };
      await hop(
        c.extension !== null && dialer.dialExtension
          ? dialer.dialExtension(session, c.extension)
          : dialer.start(session),
      );
      for (const input of c.inputs) {
        await hop(dialer.next(session, input));
        session.inputs.push(input);
      }
      if (c.hangUp && dialer.hangUp) await hop(dialer.hangUp(session));
    }),
    { numRuns: RUNS },
  );
  counts.ledgerChanges = (await fuzz.transactions()) - before;
  return { counts, healthy: await fuzz.healthy() };
}
