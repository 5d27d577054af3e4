import fc from 'fast-check';
import { until } from '../support/wait';
import { garbageValue, hugeText, mayBuy, mutation, oddText, phone, smsText } from './generators';
import { assertAnswered, BUDGET_MS, RUNS, startFuzzGateway, type FuzzGateway } from './harness';
import { send } from './tally';
import { spoil } from './wire';

/**
 * HTTP fuzzing of the inbound SMS routes (`/sms/africastalking`, `/sms/africastalking/delivery`,
 * `/sms/inbound`) against a whole gateway and its sandbox: each body well-formed in its own
 * format but for odd ids, garbage senders, command-shaped texts with odd separators, unknown
 * delivery states, huge fields — and possibly spoilt on the wire. Properties: every request
 * answered, never a 5xx, within the hop budget; once every accepted message has been handled
 * (they are answered in jobs), the process is healthy and the sandbox ledger unchanged.
 */

let fuzz: FuzzGateway;
beforeAll(async () => {
  fuzz = await startFuzzGateway('Inbound SMS HTTP fuzzing');
});
afterAll(() => fuzz?.close());

const route = fc.oneof(
  fc
    .record({
      id: fc.oneof(fc.uuid(), oddText, hugeText),
      text: smsText,
      from: phone,
      to: fc.oneof(fc.constant('12345'), oddText),
      date: fc.oneof(fc.constant('2026-11-25 10:00:00'), oddText),
      linkId: fc.option(oddText, { nil: undefined }),
      networkCode: fc.option(fc.oneof(fc.constant('65201'), oddText), { nil: undefined }),
    })
    .map((body) => ({ path: '/sms/africastalking', form: true, body })),
  fc
    .record({
      id: fc.oneof(fc.uuid(), oddText, hugeText),
      status: fc.oneof(
        fc.constantFrom('Success', 'Sent', 'Buffered', 'Rejected', 'Failed', 'Expired'),
        oddText,
      ),
      failureReason: fc.option(fc.oneof(oddText, hugeText), { nil: undefined }),
      networkCode: fc.option(oddText, { nil: undefined }),
      retryCount: fc.option(fc.oneof(fc.integer().map(String), garbageValue), { nil: undefined }),
    })
    .map((body) => ({ path: '/sms/africastalking/delivery', form: true, body })),
  fc
    .record({
      id: fc.option(fc.oneof(fc.uuid(), oddText), { nil: undefined }),
      from: phone,
      to: fc.oneof(fc.constant('12345'), oddText),
      text: smsText,
      receivedAt: fc.oneof(fc.constant('2026-11-25T10:00:00Z'), oddText),
    })
    .map((body) => ({ path: '/sms/inbound', form: false, body })),
);

const message = fc.record({ route, mutation }).filter((c) => !mayBuy(c));

it(
  'inbound messages and delivery reports, random and spoilt',
  async () => {
    const counts = fuzz.counts('inbound SMS, 3 routes');
    const before = await fuzz.transactions();
    const handled = async () =>
      (await fuzz.gateway.metrics.smsInbound.get()).values.reduce((sum, v) => sum + v.value, 0);
    const handledBefore = await handled();
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(message, async (c) => {
        counts.cases += 1;
        const sent = spoil({ method: 'POST', ...c.route }, c.mutation);
        const answer = await send(fuzz.gateway.url, sent, counts, BUDGET_MS);
        assertAnswered(answer, () => `${sent.method} ${sent.path} ${String(sent.body).slice(0, 200)}`);
        if (answer.status === 200 && answer.body === 'OK' && !sent.path.endsWith('/delivery')) accepted += 1;
      }),
      { numRuns: RUNS },
    );
    // Accepted messages are answered in jobs: wait until every one was handled, then look.
    await until('every accepted SMS handled', async () => (await handled()) - handledBefore >= accepted, {
      timeoutMs: 60_000 + RUNS,
    });
    counts.ledgerChanges = (await fuzz.transactions()) - before;
    expect(await fuzz.healthy()).toBe(true);
    expect(counts.ledgerChanges).toBe(0);
    expect(counts.cases).toBeGreaterThanOrEqual(RUNS);
  },
  120_000 + RUNS * 10,
);
