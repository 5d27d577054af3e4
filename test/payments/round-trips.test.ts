import type { PaymentLifecycle } from '../../src/payments/lifecycle/runner';
import type { SqlPaymentStore } from '../../src/payments/store/sql';
import type { PaymentRecord } from '../../src/payments/store/types';
import type { SqlPurchaseStore } from '../../src/purchases/store';
import type { PurchaseIntent } from '../../src/purchases/types';
import { TEST_DATABASE_URL } from '../support/database';
import { countSocketWrites } from '../support/socket-writes';
import { until } from '../support/wait';
import { intent, record } from '../purchases/fixtures';
import { startMpesaLifecycle, type MpesaLifecycleHarness } from './mpesa-lifecycle-harness';

/**
 * The round trips to PostgreSQL of the paid path's two writes before the PIN (issue 38), counted
 * as the writes on the connections' sockets (one a round trip's request): the Buy's purchase with
 * its payment row, and the push's answer (the payment `pending` with the provider's key). Each
 * decides nothing from its answers, so each is sent whole (`transactionInOneTrip`): 3 and 2 round
 * trips before. The M-Pesa adapter against the payment sandbox, as the gateway runs them.
 */

const PG_PORT = Number(new URL(TEST_DATABASE_URL).port || 5432);
let harness: MpesaLifecycleHarness;
let lifecycle: PaymentLifecycle;
let payments: SqlPaymentStore;
let purchases: SqlPurchaseStore;
const paid: string[] = [];

beforeAll(async () => {
  harness = await startMpesaLifecycle({
    schema: 'paytrips',
    // The callback comes once the counts are taken.
    sandbox: { approveDelayMs: 1_000 },
    settings: {},
    hooks: { onPaid: async (id) => void paid.push(id), onUnpaid: async () => undefined },
  });
  ({ lifecycle, payments, purchases } = harness);
});
afterAll(() => harness.close());

it("a paid Buy's purchase and payment row leave in one round trip, and so does the push's answer", async () => {
  const candidate = record({
    intent: {
      ...intent({ requesterMsisdn: '26775900001', amount: { currency: 'KES', minor: 10_000 } }),
      paymentRequired: true,
    } as PurchaseIntent,
  });
  // A first statement of each text prepares it on its connection: the same round trip all the same.
  const pg = countSocketWrites({ toPort: PG_PORT });
  let requested: Promise<PaymentRecord | null> | undefined;
  let buy: number;
  let answer: number;
  let pending: PaymentRecord;
  try {
    const created = await purchases.create(
      candidate,
      undefined,
      (c, tx) => (requested = lifecycle.writeRequestWith(c, tx)),
    );
    expect(created.created).toBe(true);
    buy = pg.calls;
    pg.reset();
    pending = await lifecycle.sendRequested((await requested)!);
    answer = pg.calls;
  } finally {
    pg.stop();
  }
  expect({ buy, answer }).toEqual({ buy: 1, answer: 1 });
  expect(pending).toMatchObject({ state: 'pending', purchaseId: candidate.id });
  expect(pending.providerReference).toEqual(expect.any(String));
  await until('paid by its callback', () => paid.includes(candidate.id));
  expect((await payments.getByPurchase(candidate.id))!.state).toBe('successful');

  // The same key again writes neither row, in one round trip too.
  const again = await purchases.create(
    record({ intent: candidate.intent, idempotencyKey: candidate.idempotencyKey }),
    undefined,
    (c, tx) => (requested = lifecycle.writeRequestWith(c, tx)),
  );
  expect(again).toMatchObject({ created: false, record: { id: candidate.id } });
  expect(await requested).toBeNull();
});
