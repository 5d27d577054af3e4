import { SETTLED_STATES } from '../../src/purchases/store';
import { InProcessJobQueue } from '../../src/queue';
import { createPurchaseDesk } from '../../src/purchases/desk';
import { startSandbox, type RunningSandbox } from '../../src/sandbox';
import { intent, record } from './fixtures';
import { CONFIRM_TIMEOUT_MS, makeService, RecordingNotifier } from './harness';
import { freshPurchaseStore } from './records';
import { until } from '../support/wait';

/**
 * A purchase written without its job (the process lost Redis between the record and the job,
 * or crashed there) must not wait for the next restart: the workers' periodic sweep confirms it
 * — once — and hands its outcome to the notifier.
 */

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, silent: true });
});
afterAll(() => sandbox.close());

/** A desk on this file's purchase records and an in-process queue, buying from the sandbox. */
async function deskOnSandbox(options: { sweepPageSize?: number } = {}) {
  const store = await freshPurchaseStore();
  const queue = new InProcessJobQueue({ retryDelayMs: 50 });
  const notifier = new RecordingNotifier();
  const desk = createPurchaseDesk({
    store,
    queue,
    service: makeService(sandbox.url),
    notifier,
    config: {
      purchaseApi: { confirmTimeoutMs: CONFIRM_TIMEOUT_MS } as never,
      reconcile: { baseDelayMs: 20, deadlineMs: 20_000 },
    },
    sweepPageSize: options.sweepPageSize,
  });
  return { store, queue, notifier, desk };
}

it('a created purchase that never got its job is confirmed by the periodic sweep, once', async () => {
  const { store, queue, notifier, desk } = await deskOnSandbox();
  await desk.startWorker({ sweepEveryMs: 50 });
  try {
    // Written as desk.create would, but no job was ever queued for it.
    const { record: orphan } = await store.create(record({ intent: intent() }));

    const settled = await until('the orphan settled by the sweep', async () => {
      const current = await store.get(orphan.id);
      return current && SETTLED_STATES.includes(current.state) && current.notifiedAt ? current : null;
    });
    expect(settled).toMatchObject({ state: 'succeeded', confirmAttempts: 1 });
    // Handed over under one request key (a sweep meeting it mid-hand-over repeats the key; the
    // notifier sends a key once).
    expect(new Set(notifier.calls.map((c) => c.requestKey))).toEqual(new Set([`settled:${orphan.id}`]));

    const ledger = (await (await fetch(`${sandbox.url}/sandbox/transactions`)).json()) as Array<{
      external_reference: string;
    }>;
    expect(ledger.filter((row) => row.external_reference === orphan.externalReference)).toHaveLength(1);
  } finally {
    desk.stopSweep();
    await queue.close();
  }
});

it('reaches every stuck purchase however many there are, a page at a time', async () => {
  const { store, queue, notifier, desk } = await deskOnSandbox({ sweepPageSize: 2 }); // five orphans: three pages
  await desk.startWorker();
  try {
    const orphans = [];
    for (let i = 0; i < 5; i += 1) orphans.push((await store.create(record({ intent: intent() }))).record);

    expect((await desk.resumeStuck()).confirm).toBe(5);
    await until(
      'every orphan told',
      () => new Set(notifier.calls.map((c) => c.requestKey)).size >= orphans.length,
    );
    for (const orphan of orphans) {
      expect(await store.get(orphan.id)).toMatchObject({ state: 'succeeded', confirmAttempts: 1 });
    }
    // One request key each: the sweep's hand-over pass can meet a record its job is handing over.
    expect(new Set(notifier.calls.map((c) => c.requestKey))).toEqual(
      new Set(orphans.map((o) => `settled:${o.id}`)),
    );
  } finally {
    await queue.close();
  }
});
