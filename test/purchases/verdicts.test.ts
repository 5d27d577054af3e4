import { randomUUID } from 'node:crypto';
import { TEST_METERS } from '../../src/sandbox';
import type { PurchaseService } from '../../src/vas/port';
import { NotFoundError } from '../../src/vas/errors';
import { intent } from './fixtures';
import { startHarness, type Harness } from './harness';
import { until } from '../support/wait';

/**
 * Verdicts must be facts, and an issued token is never dropped: a success answered for a record
 * that settled otherwise (or is gone) is still delivered; a confirm that could not get an access
 * token was never sent and is sent later; "no charge was found" is re-checked and corrected when
 * the purchase turns out to have succeeded.
 */

const bwp = (units: number) => ({ currency: 'BWP', minor: units * 100 });
const key = () => `verdict:${randomUUID()}`;

/** Lets a test step in around confirm and retry of the real client. */
function steerable(service: PurchaseService) {
  const steered = Object.create(service) as PurchaseService & {
    afterConfirm?: (ref: string) => Promise<void>;
    retryNotFoundFor?: Set<string>;
  };
  steered.confirm = async (request, ctx) => {
    const tx = await service.confirm(request, ctx);
    await steered.afterConfirm?.(request.externalReference ?? '');
    return tx;
  };
  steered.retry = async (request, ctx) => {
    if (steered.retryNotFoundFor?.has(request.externalReference))
      throw new NotFoundError({
        type: 'not_found_error',
        code: 'transaction_not_found',
        message: 'no prior transaction (test)',
        param: null,
        retryable: false,
        requestId: ctx.requestId,
        status: 404,
      });
    return service.retry(request, ctx);
  };
  return steered;
}

describe.each(['in-process', 'bullmq'] as const)('verdicts (%s)', (mode) => {
  let h: Harness;
  let service: ReturnType<typeof steerable>;
  beforeAll(async () => {
    h = await startHarness(mode, (real) => (service = steerable(real)), {
      recheckEveryMs: 100,
      recheckForMs: 60_000,
    });
  });
  afterAll(() => h.close());
  afterEach(async () => {
    service.afterConfirm = undefined;
    service.retryNotFoundFor = undefined;
    await h.clearFaults();
  });

  it('a login failure just before confirm: nothing is sent, the confirm goes out later, one debit', async () => {
    // First in this file: the worker has not logged in yet, so the confirm needs a login.
    await h.fault({ endpoint: 'login', fault: 'internal_error', count: 1 });
    const created = await h.desk.create(
      intent({ subscriberIdentifier: TEST_METERS.active13, amount: bwp(62) }),
      key(),
    );
    const done = await h.settled(created.id);
    expect(done.state).toBe('succeeded');
    // The first confirm never left (no token); the second one bought. Nothing was reconciled.
    expect(done.confirmAttempts).toBe(2);
    expect(done.reconcileAttempts).toBe(0);
    expect(await h.ledger(created.externalReference)).toHaveLength(1);
  });

  it('a success answered after the record settled otherwise is still delivered, with its token', async () => {
    const created = await h.desk.create(intent({ amount: bwp(61) }), key());
    service.afterConfirm = async () => {
      // Meanwhile something else settled the record (an operator, a stray verdict).
      const current = (await h.store.get(created.id))!;
      await h.store.transition(current.id, [current.state], 'failed', current.version, {
        failure: { code: 'operator', message: 'closed by hand', charged: 'unknown' },
        settledAt: new Date().toISOString(),
      });
    };
    await until('the late token SMS', () =>
      h.notifier.for(created.id).some((c) => c.requestKey.startsWith('late:')),
    );
    const late = h.notifier.for(created.id).find((c) => c.requestKey.startsWith('late:'))!;
    const [debit] = await h.ledger(created.externalReference);
    expect(late.record.state).toBe('succeeded');
    expect(late.record.result?.rawToken).toBe(debit.token);
    // The record notes it (no refund of its payment can start now) and goes to the care queue
    // with both facts, instead of staying failed beside a token.
    const cared = await until('the purchase in front of a person', async () => {
      const record = await h.store.get(created.id);
      return record?.state === 'needs_attention' ? record : null;
    });
    expect(cared.lateSuccess).toMatchObject({ transactionId: debit.id });
    expect(cared.lastError?.message).toMatch(/issued a token after the purchase had failed/);
  });

  it('"no charge found" is re-checked at a low frequency and corrected when the purchase succeeded', async () => {
    await h.fault({ endpoint: 'confirm', fault: 'provider_timeout', completes: true });
    const created = await h.desk.create(intent({ amount: bwp(63) }), key());
    service.retryNotFoundFor = new Set([created.externalReference]);
    const failed = await h.settled(created.id);
    expect(failed.state).toBe('failed');
    expect(failed.failure).toMatchObject({ code: 'transaction_not_found', charged: false });
    expect(failed.recheckUntil).not.toBeNull();
    // The service finds it after all: the next re-check corrects the outcome and sends the token.
    service.retryNotFoundFor = undefined;
    await until('the corrected SMS', () =>
      h.notifier.for(created.id).some((c) => c.requestKey === `corrected:${created.id}`),
    );
    const corrected = (await h.store.get(created.id))!;
    const [debit] = await h.ledger(created.externalReference);
    expect(corrected.state).toBe('succeeded');
    expect(corrected.result?.rawToken).toBe(debit.token);
    expect(h.notifier.for(created.id).map((c) => [c.requestKey, c.record.state])).toEqual([
      [`settled:${created.id}`, 'failed'],
      [`corrected:${created.id}`, 'succeeded'],
    ]);
  });
});
