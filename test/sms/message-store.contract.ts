import fc from 'fast-check';
import { messageId, type DeliveryNote, type Message } from '../../src/messaging/message';
import { deliveryAction } from '../../src/messaging/queue/deliveries';
import type { DeliveryDecision, MessageStore } from '../../src/messaging/store/store';

const NOW = new Date('2025-03-01T10:00:00.000Z');
const LATER = new Date('2025-03-01T10:05:00.000Z');

function outcome(purchaseId = 'p-1', key = 'settled', to = '26771234567'): Message {
  return {
    id: messageId(purchaseId, key, to),
    kind: 'purchase-outcome',
    purchaseId,
    to,
    message: 'Token: 1111',
  };
}

const at = (minute: number) => new Date(Date.UTC(2025, 2, 1, 10, minute));

/** DeliveryReports' rule, attempts left. */
const decide: DeliveryDecision = (record, delivery) => deliveryAction(record, delivery, true);

const failedNote: DeliveryNote = {
  state: 'failed',
  providerStatus: 'Failed',
  failureReason: 'DeliveryFailure',
  at: LATER.toISOString(),
};

/**
 * The behaviour of a MessageStore, run by message-store.test.ts on PostgreSQL and on PGlite.
 * `makeStore` gives an empty store.
 */
export function messageStoreContract(name: string, makeStore: () => Promise<MessageStore>): void {
  describe(`${name} message store contract`, () => {
    let store: MessageStore;
    beforeEach(async () => {
      store = await makeStore();
    });

    /** Created, then sent by the provider under message id `m-<id>`. */
    async function sent(n: Message, when = NOW): Promise<void> {
      await store.create(n, when);
      await store.update(n.id, { status: 'sent', attempts: 1, providerMessageId: `m-${n.id}` }, when);
    }

    it('claims in one statement: sending with one attempt more, the status found, a final one left', async () => {
      expect(await store.claim('absent', NOW)).toEqual({ previous: null, record: null });
      await store.create(outcome(), NOW);
      const first = await store.claim(outcome().id, LATER);
      expect(first.previous).toBe('queued');
      expect(first.record).toMatchObject({ status: 'sending', attempts: 1, updatedAt: LATER.toISOString() });
      // A worker that died mid-send: the next claim finds `sending`.
      const again = await store.claim(outcome().id, LATER);
      expect(again.previous).toBe('sending');
      expect(again.record).toMatchObject({ status: 'sending', attempts: 2 });
      await store.update(outcome().id, { status: 'sent' }, LATER);
      const final = await store.claim(outcome().id, at(20));
      expect(final.previous).toBe('sent');
      expect(final.record).toMatchObject({ status: 'sent', attempts: 2, updatedAt: LATER.toISOString() });
    });

    it('creates once and starts queued', async () => {
      expect(await store.create(outcome(), NOW)).toBe(true);
      expect(await store.create({ ...outcome(), message: 'other' }, LATER)).toBe(false);
      expect(await store.get(outcome().id)).toEqual({
        ...outcome(),
        status: 'queued',
        attempts: 0,
        lastError: null,
        providerMessageId: null,
        createdAt: NOW.toISOString(),
        updatedAt: NOW.toISOString(),
        sentAt: null,
      });
      expect(await store.get('p-x:k:1')).toBeNull();
    });

    it('keeps the sender when one is given', async () => {
      await store.create({ ...outcome(), from: 'GATEWAY' }, NOW);
      expect(await store.get(outcome().id)).toMatchObject({ from: 'GATEWAY' });
    });

    it('creates one of many concurrent creates of the same id', async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.create({ ...outcome(), message: `copy ${i}` }, NOW)),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      expect(await store.listByPurchase('p-1')).toHaveLength(1);
    });

    it('updates until final, then never again', async () => {
      await store.create(outcome(), NOW);
      await store.update(outcome().id, { status: 'sending', attempts: 1 }, NOW);
      const done = await store.update(
        outcome().id,
        { status: 'sent', providerMessageId: 'm-1', sentAt: LATER.toISOString() },
        LATER,
      );
      expect(done).toMatchObject({
        status: 'sent',
        attempts: 1,
        providerMessageId: 'm-1',
        sentAt: LATER.toISOString(),
        updatedAt: LATER.toISOString(),
      });
      const stale = await store.update(outcome().id, { status: 'queued', lastError: 'late' }, LATER);
      expect(stale).toMatchObject({ status: 'sent', lastError: null });
      expect(await store.get(outcome().id)).toEqual(done);
      expect(await store.update('p-x:k:1', { status: 'sent' }, NOW)).toBeNull();
    });

    it('changes only the fields a patch names, and may clear lastError', async () => {
      await store.create(outcome(), NOW);
      await store.update(outcome().id, { status: 'queued', attempts: 2, lastError: 'http 503' }, NOW);
      const revived = await store.update(outcome().id, { revivals: 1 }, LATER);
      expect(revived).toMatchObject({ status: 'queued', attempts: 2, lastError: 'http 503', revivals: 1 });
      expect(await store.update(outcome().id, { lastError: null }, LATER)).toMatchObject({
        lastError: null,
        attempts: 2,
      });
    });

    it("lists the open notifications (the sweep's work) until they reach a final status", async () => {
      await store.create(outcome('p-1', 'a'), NOW);
      await store.create(outcome('p-2', 'b'), LATER);
      await store.update(outcome('p-1', 'a').id, { status: 'sending', attempts: 1 }, NOW);
      expect((await store.listOpen(10)).map((r) => [r.id, r.status])).toEqual([
        [outcome('p-1', 'a').id, 'sending'],
        [outcome('p-2', 'b').id, 'queued'],
      ]);
      expect((await store.listOpen(1)).map((r) => r.id)).toEqual([outcome('p-1', 'a').id]);
      await store.update(outcome('p-1', 'a').id, { status: 'sent' }, LATER);
      await store.update(outcome('p-2', 'b').id, { revivals: 1 }, LATER);
      expect(await store.listOpen(10)).toEqual([expect.objectContaining({ status: 'queued', revivals: 1 })]);
      expect(await store.listOpen(0)).toEqual([]);
    });

    it('records a delivery report whatever its optional fields: absent, null, empty or odd', async () => {
      // An SMPP receipt without `err`, or an Africa's Talking report without `failureReason`.
      const optional = fc.oneof(
        fc.constant(undefined),
        fc.constant(null),
        fc.constant(''),
        fc.string({ maxLength: 20 }),
        // What a text column cannot hold as it is: NUL, a lone surrogate.
        fc.constantFrom('\u0000', 'bad\u0000reason', '\ud800', 'x\udc00y'),
      );
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('retry', 'giveup', 'note'),
          fc.constantFrom('delivered', 'pending', 'failed'),
          optional,
          optional,
          async (action, state, providerStatus, failureReason) => {
            const id = outcome(`p-dlr-${++n}`).id;
            await sent(outcome(`p-dlr-${n}`));
            const note = { state, providerStatus, failureReason, at: LATER.toISOString() } as DeliveryNote;
            const after = await store.recordDelivery(id, note, action, LATER);
            expect(after?.status).toBe({ retry: 'queued', giveup: 'undelivered', note: 'sent' }[action]);
            expect(after?.delivery).toMatchObject({ state, at: LATER.toISOString() });
            if (action === 'note') return;
            expect(after).toMatchObject({
              deliveryFailures: 1,
              lastError: expect.stringMatching(/^delivery failed: .+/),
            });
          },
        ),
        { numRuns: 60 },
      );
    });

    it('says why a delivery failed: its failure reason, else the provider status, else that none was given', async () => {
      const cases: [string | null | undefined, string | null | undefined, string][] = [
        ['Rejected', 'UserInBlacklist', 'delivery failed: UserInBlacklist'],
        ['Failed', '', 'delivery failed: Failed'],
        ['Expired', null, 'delivery failed: Expired'],
        [undefined, undefined, 'delivery failed: no reason given'],
      ];
      for (const [i, [providerStatus, failureReason, lastError]] of cases.entries()) {
        const n = outcome(`p-why-${i}`);
        await sent(n);
        const note = {
          state: 'failed',
          providerStatus,
          failureReason,
          at: LATER.toISOString(),
        } as DeliveryNote;
        expect(await store.recordDelivery(n.id, note, 'retry', LATER)).toMatchObject({ lastError });
      }
    });

    it('re-opens a sent copy reported failed, counts each failure, and only notes other reports', async () => {
      const n = outcome();
      await sent(n);
      const failed: DeliveryNote = {
        state: 'failed',
        providerStatus: 'Failed',
        failureReason: 'DeliveryFailure',
        at: LATER.toISOString(),
      };
      expect(await store.recordDelivery(n.id, failed, 'retry', LATER)).toMatchObject({
        status: 'queued',
        deliveryFailures: 1,
        delivery: failed,
        updatedAt: LATER.toISOString(),
      });
      expect((await store.listOpen(10)).map((r) => r.id)).toEqual([n.id]);
      // Not sent (queued again): a report changes nothing but the note kept.
      expect(await store.recordDelivery(n.id, failed, 'retry', LATER)).toMatchObject({
        status: 'queued',
        deliveryFailures: 1,
      });
      await store.update(n.id, { status: 'sent', attempts: 2 }, LATER);
      const delivered: DeliveryNote = {
        ...failed,
        state: 'delivered',
        providerStatus: 'Success',
        failureReason: null,
      };
      expect(await store.recordDelivery(n.id, delivered, 'note', LATER)).toMatchObject({
        status: 'sent',
        deliveryFailures: 1,
        delivery: delivered,
      });
      expect(await store.recordDelivery('p-x:k:1', failed, 'retry', LATER)).toBeNull();
    });

    it('keeps a report on an id not linked yet, and the write that marks the copy sent applies it once', async () => {
      const n = outcome();
      await store.create(n, NOW);
      await store.update(n.id, { status: 'sending', attempts: 1 }, NOW);
      // The provider reported before the gateway read its answer: twice (a duplicate).
      expect(await store.recordReport('ATXid_early', failedNote, decide, NOW)).toEqual({ kind: 'kept' });
      expect(await store.recordReport('ATXid_early', failedNote, decide, NOW)).toEqual({ kind: 'kept' });
      const { record, early } = await store.markSent(n.id, ['ATXid_early'], decide, LATER);
      expect(early).toEqual({ delivery: failedNote, action: 'retry' });
      expect(record).toMatchObject({
        status: 'queued',
        providerMessageId: 'ATXid_early',
        deliveryFailures: 1,
        delivery: failedNote,
        lastError: 'delivery failed: DeliveryFailure',
      });
      // Another duplicate after the link: the copy is re-opened already, only noted.
      expect(await store.recordReport('ATXid_early', failedNote, decide, LATER)).toMatchObject({
        kind: 'applied',
        action: 'note',
        record: { status: 'queued', deliveryFailures: 1 },
      });
      // The copy sent again under a new id: a late report on the old one changes nothing.
      await store.update(n.id, { status: 'sending', attempts: 2 }, LATER);
      expect((await store.markSent(n.id, ['ATXid_again'], decide, LATER)).early).toBeUndefined();
      const late = await store.recordReport('ATXid_early', { ...failedNote, at: 'late' }, decide, LATER);
      expect(late).toMatchObject({
        kind: 'applied',
        action: 'note',
        record: { status: 'sent', deliveryFailures: 1 },
      });
      expect(await store.get(n.id)).toMatchObject({ status: 'sent', delivery: failedNote });
    });

    it('applies an early report that says delivered or pending as a note, and a give-up when retries are spent', async () => {
      const [a, b] = [outcome('p-1'), outcome('p-2')];
      for (const m of [a, b]) await store.create(m, NOW);
      const pending: DeliveryNote = { ...failedNote, state: 'pending', providerStatus: 'Buffered' };
      await store.recordReport('m-a', failedNote, decide, NOW);
      // A pending report never replaces a final one kept for the same id.
      await store.recordReport('m-a', pending, decide, NOW);
      await store.recordReport('m-b', pending, decide, NOW);
      const giveUp: DeliveryDecision = (record, delivery) => deliveryAction(record, delivery, false);
      expect(await store.markSent(a.id, ['m-a'], giveUp, LATER)).toMatchObject({
        early: { action: 'giveup' },
        record: { status: 'undelivered', deliveryFailures: 1 },
      });
      expect((await store.listUndelivered(10)).map((m) => m.id)).toEqual([a.id]);
      expect(await store.markSent(b.id, ['m-b'], decide, LATER)).toMatchObject({
        early: { action: 'note' },
        record: { status: 'sent', delivery: pending },
      });
      expect((await store.markSent(outcome('p-3').id, [], decide, LATER)).record).toBeNull();
    });

    it('re-opens a copy once whatever races: duplicate reports against the write that marks it sent', async () => {
      for (let round = 0; round < 5; round += 1) {
        const n = outcome(`p-race-${round}`);
        await store.create(n, NOW);
        await store.update(n.id, { status: 'sending', attempts: 1 }, NOW);
        const id = `m-race-${round}`;
        const results = await Promise.all([
          store.recordReport(id, failedNote, decide, NOW),
          store.markSent(n.id, [id], decide, NOW),
          store.recordReport(id, failedNote, decide, NOW),
          store.recordReport(id, failedNote, decide, NOW),
        ]);
        const actions = results.map((r) =>
          'early' in r ? r.early?.action : 'action' in r ? r.action : null,
        );
        expect(actions.filter((a) => a === 'retry')).toHaveLength(1);
        expect(await store.get(n.id)).toMatchObject({ status: 'queued', deliveryFailures: 1 });
      }
    });

    describe('an SMS sent in parts, each reported on its own (SMPP receipts)', () => {
      const delivered: DeliveryNote = {
        state: 'delivered',
        providerStatus: 'DELIVRD',
        failureReason: null,
        at: LATER.toISOString(),
      };
      const undeliv: DeliveryNote = { ...failedNote, providerStatus: 'UNDELIV', failureReason: 'err 001' };

      /** Created, handed to the provider, accepted as parts `ids`. */
      async function sentInParts(n: Message, ids: string[]) {
        await store.create(n, NOW);
        await store.update(n.id, { status: 'sending', attempts: 1 }, NOW);
        return store.markSent(n.id, ids, decide, NOW);
      }

      it('links each part to the message; a failed part re-opens it once, whatever else is reported', async () => {
        const n = outcome();
        expect((await sentInParts(n, ['SMSC3', 'SMSC4'])).record).toMatchObject({
          status: 'sent',
          providerMessageId: 'SMSC3,SMSC4',
        });
        for (const id of ['SMSC3', 'SMSC4'])
          expect(await store.findByProviderMessage(id)).toMatchObject({ id: n.id });
        const actions = [
          await store.recordReport('SMSC4', undeliv, decide, LATER),
          // Duplicates of the failure, the other part's failure, and its delivery.
          await store.recordReport('SMSC4', undeliv, decide, LATER),
          await store.recordReport('SMSC3', undeliv, decide, LATER),
          await store.recordReport('SMSC3', delivered, decide, LATER),
        ].map((r) => (r.kind === 'applied' ? r.action : r.kind));
        expect(actions).toEqual(['retry', 'note', 'note', 'note']);
        expect(await store.get(n.id)).toMatchObject({
          status: 'queued',
          deliveryFailures: 1,
          lastError: 'delivery failed: err 001',
          delivery: { ...undeliv, parts: { delivered: 0, total: 2 } },
        });
        // Sent again as new parts: a late report on the first copy's parts changes nothing.
        await store.update(n.id, { status: 'sending', attempts: 2 }, LATER);
        await store.markSent(n.id, ['SMSC5', 'SMSC6'], decide, LATER);
        expect(await store.recordReport('SMSC4', undeliv, decide, LATER)).toMatchObject({ action: 'note' });
        expect(await store.get(n.id)).toMatchObject({ status: 'sent', deliveryFailures: 1 });
      });

      it('re-opens it once when duplicate failures of both parts race', async () => {
        const n = outcome('p-parts-race');
        await sentInParts(n, ['R1', 'R2']);
        const results = await Promise.all(
          ['R2', 'R1', 'R2', 'R1', 'R2'].map((id) => store.recordReport(id, undeliv, decide, LATER)),
        );
        expect(results.filter((r) => r.kind === 'applied' && r.action === 'retry')).toHaveLength(1);
        expect(await store.get(n.id)).toMatchObject({ status: 'queued', deliveryFailures: 1 });
      });

      it('is delivered once every part is, pending until then', async () => {
        const n = outcome();
        await sentInParts(n, ['D1', 'D2']);
        expect(await store.recordReport('D1', delivered, decide, LATER)).toMatchObject({
          action: 'note',
          record: {
            status: 'sent',
            delivery: { ...delivered, state: 'pending', parts: { delivered: 1, total: 2 } },
          },
        });
        // A duplicate of the same part's receipt is not the other part's.
        await store.recordReport('D1', delivered, decide, LATER);
        expect(await store.get(n.id)).toMatchObject({ delivery: { state: 'pending' } });
        // A late ENROUTE on a delivered part does not take its delivery back.
        await store.recordReport(
          'D1',
          { ...delivered, state: 'pending', providerStatus: 'ENROUTE' },
          decide,
          LATER,
        );
        await store.recordReport('D2', delivered, decide, LATER);
        expect(await store.get(n.id)).toMatchObject({
          status: 'sent',
          delivery: { ...delivered, parts: { delivered: 2, total: 2 } },
        });
        expect(await store.get(n.id)).not.toHaveProperty('deliveryFailures');
      });

      it('applies the reports on its parts that came before the send was written', async () => {
        const [a, b] = [outcome('p-early-a'), outcome('p-early-b')];
        for (const [id, note] of [
          ['EA2', undeliv],
          ['EA2', undeliv],
          ['EA1', delivered],
          ['EB1', delivered],
          ['EB2', delivered],
        ] as const)
          expect(await store.recordReport(id, note, decide, NOW)).toEqual({ kind: 'kept' });
        expect(await sentInParts(a, ['EA1', 'EA2'])).toMatchObject({
          early: { action: 'retry', delivery: { state: 'failed', providerStatus: 'UNDELIV' } },
          record: { status: 'queued', deliveryFailures: 1 },
        });
        expect(await sentInParts(b, ['EB1', 'EB2'])).toMatchObject({
          early: { action: 'note', delivery: { state: 'delivered', parts: { delivered: 2, total: 2 } } },
          record: { status: 'sent', delivery: { state: 'delivered' } },
        });
      });
    });

    it('keeps each kind; a reply names no purchase', async () => {
      const receipt: Message = { ...outcome('p-1', 'receipt:k', '26770000001'), kind: 'agent-receipt' };
      const reply: Message = {
        id: messageId('mo:w1', 'reply', '26771234567'),
        kind: 'sms-reply',
        to: '26771234567',
        message: 'Send BUY <meter> <amount>',
      };
      await store.create(outcome(), NOW);
      await store.create(receipt, NOW);
      await store.create(reply, NOW);
      expect(await store.get(outcome().id)).toMatchObject({ kind: 'purchase-outcome', purchaseId: 'p-1' });
      expect(await store.get(receipt.id)).toMatchObject({ kind: 'agent-receipt', purchaseId: 'p-1' });
      const stored = await store.get(reply.id);
      expect(stored).toMatchObject({ kind: 'sms-reply', status: 'queued' });
      expect(stored).not.toHaveProperty('purchaseId');
      expect((await store.listByPurchase('p-1')).map((m) => m.kind).sort()).toEqual([
        'agent-receipt',
        'purchase-outcome',
      ]);
    });

    it('lists the messages of one purchase', async () => {
      await store.create(outcome('p-1', 'a'), NOW);
      await store.create(outcome('p-1', 'b'), LATER);
      await store.create(outcome('p-2', 'a'), NOW);
      expect((await store.listByPurchase('p-1')).map((n) => n.id)).toEqual([
        outcome('p-1', 'a').id,
        outcome('p-1', 'b').id,
      ]);
      expect(await store.listByPurchase('p-3')).toEqual([]);
    });

    it("finds a message by its provider's message id, the latest link winning", async () => {
      await store.create(outcome('p-1', 'a'), NOW);
      await store.create(outcome('p-1', 'b'), NOW);
      expect(await store.findByProviderMessage('ATXid_1')).toBeNull();
      await store.linkProviderMessage('ATXid_1', outcome('p-1', 'a').id);
      expect(await store.findByProviderMessage('ATXid_1')).toMatchObject({ id: outcome('p-1', 'a').id });
      await store.linkProviderMessage('ATXid_1', outcome('p-1', 'b').id);
      expect(await store.findByProviderMessage('ATXid_1')).toMatchObject({ id: outcome('p-1', 'b').id });
      await store.linkProviderMessage('ATXid_2', 'p-9:k:1');
      expect(await store.findByProviderMessage('ATXid_2')).toBeNull();
    });

    it('keeps refused and given-up SMS in the undelivered view, oldest first, until dismissed', async () => {
      const refused = outcome('p-1', 'a');
      const givenUp = outcome('p-2', 'a');
      const reportedFailed = outcome('p-3', 'a');
      const delivered = outcome('p-4', 'a');
      await store.create(givenUp, at(2));
      await store.create(refused, at(1));
      await sent(reportedFailed, at(3));
      await sent(delivered, at(4));
      expect(await store.countUndelivered()).toBe(0);
      expect(await store.listUndelivered(10)).toEqual([]);

      await store.update(givenUp.id, { status: 'undelivered', lastError: 'http 500' }, at(5));
      await store.update(refused.id, { status: 'rejected', lastError: 'unknown sender id' }, at(6));
      const note: DeliveryNote = { state: 'failed', providerStatus: 'Failed', failureReason: null, at: '' };
      await store.recordDelivery(reportedFailed.id, note, 'giveup', at(7));
      await store.recordDelivery(delivered.id, { ...note, state: 'delivered' }, 'note', at(7));

      expect((await store.listUndelivered(10)).map((r) => [r.id, r.status])).toEqual([
        [refused.id, 'rejected'],
        [givenUp.id, 'undelivered'],
        [reportedFailed.id, 'undelivered'],
      ]);
      expect(await store.countUndelivered()).toBe(3);
      expect((await store.listUndelivered(2)).map((r) => r.id)).toEqual([refused.id, givenUp.id]);
      expect(await store.listUndelivered(0)).toEqual([]);

      await store.dismissUndelivered(givenUp.id);
      await store.dismissUndelivered(givenUp.id);
      await store.dismissUndelivered('p-x:k:1');
      expect((await store.listUndelivered(10)).map((r) => r.id)).toEqual([refused.id, reportedFailed.id]);
      expect(await store.countUndelivered()).toBe(2);
      // Final: a stale worker's update does not take it out.
      await store.update(refused.id, { status: 'queued' }, at(8));
      expect((await store.listUndelivered(10)).map((r) => r.id)).toEqual([refused.id, reportedFailed.id]);
      expect(await store.get(refused.id)).toMatchObject({ status: 'rejected' });
    });
  });
}
