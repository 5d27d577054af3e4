import { randomUUID } from 'node:crypto';
import { intent } from './fixtures';
import { startFrontProxy, type FrontProxy } from './front-proxy';
import { makeService, startHarness, type Harness, type Mode } from './harness';

/**
 * Reconcile through a front proxy that answers some `retry` calls itself, with no error
 * envelope (a 404 page while the service is being deployed, a 400 from a filter): that is no
 * verdict of the service about the transaction, so it must never settle "failed, not charged".
 */

describe.each<Mode>(['in-process', 'bullmq'])(
  'reconcile through a proxy answering without an envelope (%s queue)',
  (mode) => {
    let h: Harness;
    let proxy: FrontProxy;

    beforeAll(async () => {
      proxy = await startFrontProxy();
      h = await startHarness(mode, () => makeService(proxy.url));
      proxy.target = h.sandbox.url;
    });
    afterAll(async () => {
      await h.close();
      await proxy.close();
    });

    it.each([
      ['internal_error', 'internal_error'],
      ['provider_unavailable', 'provider_unavailable'],
    ])(
      'an error envelope (%s) in a 200 answer to a confirm that was performed is not "not charged"',
      async (type, code) => {
        proxy.replaceNextConfirmAnswer(200, {
          error: { type, code, message: 'broken gateway', param: null, retryable: false },
        });
        const created = await h.desk.create(
          intent({ amount: { currency: 'BWP', minor: 6300 + code.length } }),
          `t:${randomUUID()}`,
        );
        const done = await h.settled(created.id);
        const ledger = await h.ledger(created.externalReference);
        expect(ledger.filter((row) => row.debited_minor > 0)).toHaveLength(1);
        expect(done.state).toBe('succeeded');
        expect(done.result?.rawToken).toBe(ledger[0].token);
      },
    );

    it.each([404, 400])(
      'a %i without an error envelope on retry is not "not charged": the debited purchase settles succeeded',
      async (status) => {
        await h.fault({ endpoint: 'confirm', fault: 'drop', completes: true });
        proxy.breakRetries(2, status);
        const created = await h.desk.create(
          intent({ amount: { currency: 'BWP', minor: 6100 + status } }),
          `t:${randomUUID()}`,
        );
        const done = await h.settled(created.id);
        const ledger = await h.ledger(created.externalReference);
        expect(ledger.filter((row) => row.debited_minor > 0)).toHaveLength(1);
        expect(done.state).toBe('succeeded');
        expect(done.result?.rawToken).toBe(ledger[0].token);
      },
    );
  },
);
