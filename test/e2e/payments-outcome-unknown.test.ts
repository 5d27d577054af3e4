import axios from 'axios';
import type { Gateway } from '../../src/gateway/app';
import { TEST_PAYERS } from '../../src/payments/sandbox';
import { TEST_METERS } from '../../src/sandbox';
import { until } from '../support/wait';
import { dialogue, startTestGateway } from './harness';

/**
 * A payment nobody learns the outcome of: the push is carried out but its answer (the only
 * carrier of the CheckoutRequestID) is lost, and the payer approves but the provider never sends
 * the callback. The purchase ends unpaid, yet the buyer's money may have been taken: once its
 * re-checks are over the payment waits in front of a person (`/admin/payments/unknown`, the
 * `payments_outcome_unknown` gauge) until someone looked it up at the provider and says so.
 */

const ADMIN = 'outcome-unknown-admin-token-0123';
const payer = TEST_PAYERS.find((p) => p.behaviour === 'callback_lost')!.msisdn;
const auth = { headers: { authorization: `Bearer ${ADMIN}` }, validateStatus: () => true };
let gateway: Gateway;

beforeAll(async () => {
  gateway = await startTestGateway(
    { ADMIN_TOKEN: ADMIN, SPEND_DAY_MAX_COUNT: '100' },
    {
      paymentSandbox: { approveDelayMs: 50 },
      // A payer's window, a re-check window and the collect's budget of a moment, not minutes.
      paymentLifecycle: {
        windowMs: 600,
        marginMs: 200,
        recheckForMs: 800,
        recheckEveryMs: 200,
        requestTimeoutMs: 500,
        lostMarginMs: 200,
        pollBaseMs: 200,
        pollMaxMs: 400,
      },
    },
  );
});

afterAll(async () => {
  await gateway?.close();
});

const gauge = async () =>
  Number(
    /^payments_outcome_unknown (\d+)$/m.exec((await axios.get(`${gateway.url}/metrics`)).data as string)?.[1],
  );

it('a keyless payment whose re-checks end unknown is a care item until a person reviews it', async () => {
  // The push is carried out, its answer dropped: the CheckoutRequestID never reaches us.
  await axios.post(`${gateway.paymentSandbox!.url}/sandbox/faults`, { operation: 'collect', fault: 'drop' });
  await dialogue(gateway, `unknown-${process.pid}`, payer, ['1', TEST_METERS.active, '1', '100', '1']);
  const [purchase] = await gateway.desk.listByMsisdn(payer);

  const listed = await until(
    'the payment in front of a person',
    async () => {
      const answer = await axios.get(`${gateway.url}/admin/payments/unknown`, auth);
      const { payments } = answer.data as { payments: { id: string; purchaseId: string; state: string }[] };
      return payments.find((p) => p.purchaseId === purchase.id) ?? null;
    },
    { timeoutMs: 30_000 },
  );
  expect(listed.state).toBe('unknown');
  // Nothing was bought with money nobody knows of, and no refund was asked for it.
  expect((await gateway.desk.get(purchase.id))?.state).toBe('failed');
  expect((await gateway.payments!.store.getByPurchase(purchase.id))?.refund).toBeNull();
  expect(await gauge()).toBe(1);

  // A review needs a note: nothing changes without one.
  const blank = await axios.post(
    `${gateway.url}/admin/payments/unknown/${listed.id}/review`,
    { note: ' ' },
    auth,
  );
  expect(blank.status).toBe(400);
  const reviewed = await axios.post(
    `${gateway.url}/admin/payments/unknown/${listed.id}/review`,
    { note: 'not in the M-Pesa statement of the day: nothing was taken' },
    auth,
  );
  expect(reviewed.status).toBe(200);
  expect((reviewed.data as { payment: { review: { note: string } } }).payment.review.note).toMatch(/not in/);
  expect(await gauge()).toBe(0);
  const again = await axios.post(
    `${gateway.url}/admin/payments/unknown/${listed.id}/review`,
    { note: 'twice' },
    auth,
  );
  expect(again.status).toBe(404);
  const trail = await gateway.records.query<{ action: string; actor: string; note: string }>(
    `SELECT action, actor, note FROM care_audit WHERE action = 'review_unknown_payment'`,
  );
  expect(trail.rows).toEqual([
    expect.objectContaining({ note: 'not in the M-Pesa statement of the day: nothing was taken' }),
  ]);
}, 60_000);
