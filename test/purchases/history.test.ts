import { PurchaseHistory } from '../../src/purchases/history';
import { SqlPurchaseStore } from '../../src/purchases/store/sql';
import type { PurchasePatch } from '../../src/purchases/store';
import type { PurchaseIntent, PurchaseState } from '../../src/purchases/types';
import { intent, record } from './fixtures';
import { testDatabase, type TestDatabase } from '../support/database';

/** "My purchases" and "still in progress, buy again anyway?" (issue 31 §4) on PostgreSQL. */

let t: TestDatabase;
let history: PurchaseHistory;
let store: SqlPurchaseStore;
beforeAll(async () => {
  t = await testDatabase('history');
  history = new PurchaseHistory(t.db);
  store = new SqlPurchaseStore({ db: t.db });
});
afterAll(() => t.cleanup());

async function purchase(
  state: PurchaseState,
  overrides: Partial<PurchaseIntent>,
  patch: PurchasePatch = {},
  createdAt?: string,
) {
  const r = record({ intent: intent(overrides), ...(createdAt && { createdAt, updatedAt: createdAt }) });
  await store.create(r);
  if (state === 'created') return r;
  const moved = await store.transition(r.id, ['created'], state, r.version, patch);
  if (!moved.ok) throw new Error('not moved');
  return moved.record;
}

const me = '26771550001';
const friend = '26771550002';
const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 9, minute)).toISOString();

it('lists the last purchases of a number in every state: delivered, in progress, not completed', async () => {
  const delivered = await purchase(
    'succeeded',
    { requesterMsisdn: me, beneficiaryMsisdn: me, subscriberDetails: 'KABELO M' },
    {
      result: {
        transactionId: 1,
        reference: 'BPC-1',
        rawToken: 'Credit Token: 1111 2222|KeyChange Token1: 3333 4444',
        units: '70.6 kWh',
        total: { currency: 'BWP', minor: 10150 },
        providerTransactionId: null,
      },
    },
    at(1),
  );
  const late = await purchase('confirming', { requesterMsisdn: me, beneficiaryMsisdn: me }, {}, at(2));
  const failed = await purchase(
    'failed',
    { requesterMsisdn: me, beneficiaryMsisdn: me },
    { failure: { code: 'meter_blocked', message: 'blocked', charged: false } },
    at(3),
  );
  const gift = await purchase('succeeded', { requesterMsisdn: friend, beneficiaryMsisdn: me }, {}, at(4));
  const checked = await purchase(
    'needs_attention',
    { requesterMsisdn: me, beneficiaryMsisdn: friend },
    {},
    at(5),
  );
  // An agent's sale to someone else is not the agent's own purchase.
  await purchase(
    'succeeded',
    { requesterMsisdn: me, beneficiaryMsisdn: friend, agent: { msisdn: me } },
    {},
    at(6),
  );

  const views = await history.recentPurchases(me, 10);
  expect(views.map((v) => [v.purchaseId, v.status, v.why])).toEqual([
    [checked.id, 'in_progress', 'manual_check'],
    [gift.id, 'delivered', null],
    [failed.id, 'not_completed', 'meter_blocked'],
    [late.id, 'in_progress', null],
    [delivered.id, 'delivered', null],
  ]);
  expect(views[4]).toMatchObject({
    name: 'KABELO M',
    reference: 'BPC-1',
    units: '70.6 kWh',
    total: { currency: 'BWP', minor: 10150 },
    // Key-change first: the order to enter them.
    tokens: [
      { description: 'KeyChange Token1', value: '3333 4444' },
      { description: 'Credit Token', value: '1111 2222' },
    ],
    paidByThisNumber: true,
    beneficiary: null,
  });
  expect(views[3]).toMatchObject({ reference: late.externalReference, createdAt: at(2), tokens: [] });
  expect(views[2]).toMatchObject({ notCharged: true });
  expect(views[1]).toMatchObject({ paidByThisNumber: false });
  expect(views[0]).toMatchObject({ beneficiary: friend, paidByThisNumber: true });
  expect((await history.recentPurchases(me, 2)).map((v) => v.purchaseId)).toEqual([checked.id, gift.id]);
});

it('finds the purchases for an identifier this number made that have no outcome yet', async () => {
  const meter = '04999000111';
  const going = await purchase('unknown', { requesterMsisdn: me, subscriberIdentifier: meter }, {}, at(10));
  const paying = await purchase('created', { requesterMsisdn: me, subscriberIdentifier: meter }, {}, at(11));
  await purchase('succeeded', { requesterMsisdn: me, subscriberIdentifier: meter }, {}, at(12));
  await purchase('failed', { requesterMsisdn: me, subscriberIdentifier: meter }, {}, at(13));
  // Someone else's purchase for the same meter is not this number's to worry about.
  await purchase('confirming', { requesterMsisdn: friend, subscriberIdentifier: meter }, {}, at(14));

  const open = await history.purchasesInProgress(me, meter);
  expect(open.map((v) => v.purchaseId)).toEqual([paying.id, going.id]);
  expect(open[1]).toMatchObject({
    status: 'in_progress',
    amount: { currency: 'BWP', minor: 10000 },
    reference: going.externalReference,
    identifier: meter,
  });
  expect(await history.purchasesInProgress(me, '00000000000')).toEqual([]);
});
